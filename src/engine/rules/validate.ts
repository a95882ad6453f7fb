/**
 * Whole-table checks once every rule is in, as the kernel makes them when the table is loaded:
 * jump loops, targets reachable from hooks they are not allowed in, the nf_tables depth limit.
 * (Each rule was checked when it was read: compile.ts.)
 */
import { lookupTarget } from './registry.ts';
import type { ChainRec, TableRec } from './table.ts';
import { BUILTIN_CHAINS, type Chain, type Diagnostic, type Rule } from './types.ts';

function err(rule: Rule, column: number, message: string, hint?: string): Diagnostic {
  return hint === undefined
    ? { severity: 'error', line: rule.line, column, message }
    : { severity: 'error', line: rule.line, column, message, hint };
}

/**
 * Visits a chain's rules in order, by what the checks read of each: the user chain it jumps or
 * goes to (or null), its target's name (null without a target), and a reference the graph's
 * `rule` turns into the rule when a diagnostic names it.
 */
type RulesOf = (
  chain: ChainRec,
  visit: (to: ChainRec | null, targetName: string | null, ref: number) => void,
) => void;

/** A table's own rules, by id: no rule object (nor jump operation) is made for them. */
function tableRules(table: TableRec): RulesOf {
  return (chain, visit) =>
    table.eachRuleId(chain, (id) => visit(table.jumpsTo(id), table.targetNameOf(id), id));
}

/**
 * The table's chains in their `chainId` order. By forEach: spread from the Map's iterator, unoptimized
 * (it runs once per table), made a result object per chain.
 */
function chainList(table: TableRec): ChainRec[] {
  const out: ChainRec[] = [];
  table.chains.forEach((c) => out.push(c));
  return out;
}

/** Whole-table checks once every rule is in (every deferred chain compiled): loops, hooks, depth. */
export function validateTable(table: TableRec): Diagnostic[] {
  return checkGraph(
    table,
    jumpGraph(table, tableRules(table), (ref) => table.rule(ref)),
  );
}

/**
 * Whether the whole-table checks could find anything in a table with deferred chains
 * (ParseOptions.deferChains), without compiling them: each deferred line stands for a rule with
 * only its target, found by a scan of the line (sketchTarget). A scan sees every target a
 * compiled rule has, and may see more (a ` -j ` in a comment): when it finds nothing, the checks
 * on the compiled rules find nothing either; when it finds something, the reader compiles the
 * deferred chains and runs the checks (validateTable) for the exact diagnostics.
 */
export function sketchHasProblems(table: TableRec): boolean {
  const source = table.cols.source;
  const compiled = tableRules(table);
  // A sketched rule's reference is -1 - its line's place in `lines` (the table's are ids).
  const sketched: number[] = [];
  // jumpGraph visits each chain once: a deferred chain's lines are sketched as they are visited.
  const rulesOf: RulesOf = (chain, visit) => {
    const lines = chain.deferred;
    if (lines === null) return compiled(chain, visit);
    for (let k = 0; k < lines.length; k += 3) {
      const start = lines[k] as number;
      const name = sketchTarget(source.slice(start, start + (lines[k + 2] as number)));
      const to = name === null ? undefined : table.chains.get(name);
      sketched.push(lines[k + 1] as number);
      visit(to && !to.builtin ? to : null, name, -sketched.length);
    }
  };
  // Only what the checks read of a sketched rule for a diagnostic: its line and target column.
  const rule = (ref: number): Rule =>
    ref >= 0
      ? table.rule(ref)
      : ({ line: sketched[-1 - ref], targetColumn: 1, via: '-j' } as unknown as Rule);
  return checkGraph(table, jumpGraph(table, rulesOf, rule)).length > 0;
}

const TARGET_OPTIONS = [' -j ', ' -g ', ' --jump ', ' --goto '];

/** The word after the last `-j`, `-g`, `--jump` or `--goto` of a rule line outside quotes, or null. */
export function sketchTarget(line: string): string | null {
  let at = -1;
  let option = '';
  for (const o of TARGET_OPTIONS) {
    const k = line.lastIndexOf(o);
    if (k > at) {
      at = k;
      option = o;
    }
  }
  if (at < 0) return null;
  // Inside a quoted word when an odd number of quotes is before it (a \" does not count).
  let quotes = 0;
  for (let q = line.indexOf('"'); q >= 0 && q < at; q = line.indexOf('"', q + 1))
    if (line.charCodeAt(q - 1) !== 92 /* \ */) quotes++;
  if (quotes % 2) return quotedTarget(line);
  const from = at + option.length;
  const end = line.indexOf(' ', from);
  return line.slice(from, end < 0 ? line.length : end);
}

/** sketchTarget for a line whose last target option is inside quotes: word by word. */
function quotedTarget(line: string): string | null {
  let quoted = false;
  let found = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) quoted = !quoted;
    else if (!quoted && c === 32 && line.charCodeAt(i + 1) === 45 /* - */) {
      const w = line.indexOf(' ', i + 1);
      if (w < 0) break;
      if (TARGET_OPTIONS.includes(line.slice(i, w + 1))) found = w + 1;
    }
  }
  if (found < 0) return null;
  const w = line.indexOf(' ', found);
  return line.slice(found, w < 0 ? line.length : w);
}

/** The jump graph as integer arrays (CSR): 100k-rule tables make Maps of chains the hot spot. */
interface Graph {
  readonly chains: readonly ChainRec[];
  /** Edges of chain i are `to[start[i] .. start[i+1]-1]`, made by `rules[...]`. */
  readonly start: Int32Array;
  readonly to: Int32Array;
  /** The rule of each edge, by reference (`rule` makes the rule). */
  readonly edgeRule: Int32Array;
  /** The rules with an extension target (the ones checkHooks looks at), their names and chains. */
  readonly targeted: readonly number[];
  readonly targetedName: readonly string[];
  readonly targetedChain: readonly number[];
  readonly rule: (ref: number) => Rule;
}

/**
 * Chains are numbered by `chainId` (table.ts, when the table was closed). One pass over the rules, which
 * also collects the ones checkHooks reads: the rule objects are scattered over the heap, and the
 * three passes there were took 130-170 ms of a 130k-rule table's load (one: 90-100 ms).
 */
function jumpGraph(table: TableRec, rulesOf: RulesOf, rule: (ref: number) => Rule): Graph {
  const chains = chainList(table);
  const n = chains.length;
  const start = new Int32Array(n + 1);
  let to = new Int32Array(1024);
  let edgeRule = new Int32Array(1024);
  const targeted: number[] = [];
  const targetedName: string[] = [];
  const targetedChain: number[] = [];
  let e = 0;
  let i = 0;
  const visit = (dest: ChainRec | null, targetName: string | null, ref: number): void => {
    if (dest !== null) {
      // A chain deleted with -X after the jump was read is no longer in the table.
      const id = table.chainId(dest);
      if (id < 0) return;
      if (e === to.length) {
        const bigger = new Int32Array(e * 2);
        bigger.set(to);
        to = bigger;
        const biggerRules = new Int32Array(e * 2);
        biggerRules.set(edgeRule);
        edgeRule = biggerRules;
      }
      to[e] = id;
      edgeRule[e++] = ref;
    } else if (targetName !== null) {
      targeted.push(ref);
      targetedName.push(targetName);
      targetedChain.push(i);
    }
  };
  for (i = 0; i < n; i++) {
    start[i] = e;
    rulesOf(chains[i] as ChainRec, visit);
  }
  start[n] = e;
  return {
    chains,
    start,
    to: to.subarray(0, e),
    edgeRule: edgeRule.subarray(0, e),
    targeted,
    targetedName,
    targetedChain,
    rule,
  };
}

function checkGraph(table: TableRec, g: Graph): Diagnostic[] {
  const loops = checkLoops(g);
  return [...loops, ...checkHooks(table, g), ...(loops.length ? [] : checkDepth(table, g))];
}

/**
 * nf_tables validates every chain reachable from a base chain with a jump stack of 16 levels
 * (NFT_JUMP_STACK_SIZE; nft_chain_validate in net/netfilter/nf_tables_api.c returns EMLINK at
 * level 16), so iptables-nft refuses a jump or goto that reaches a chain 16 levels below a
 * built-in chain: `RULE_APPEND failed (Too many links)` (checked with iptables-nft 1.8.9 on Linux
 * 6.18). iptables-legacy loads such a ruleset, so this is a warning and the lab still runs it.
 */
export const NFT_MAX_DEPTH = 15;

function checkDepth(table: TableRec, g: Graph): Diagnostic[] {
  const n = g.chains.length;
  // Longest path from any base chain, over the loop-free jump graph (Kahn's order).
  const indeg = new Int32Array(n);
  // An index loop: this runs once per table, unoptimized, where `for...of` over a typed array
  // allocated an iterator result per jump (4 MB for a 10,000-Service dump's 170k jumps).
  const to = g.to;
  for (let e = 0; e < to.length; e++) {
    const t = to[e] as number;
    indeg[t] = (indeg[t] as number) + 1;
  }
  const depth = new Int32Array(n).fill(-1);
  for (const hook of BUILTIN_CHAINS[table.name]) {
    const base = table.chains.get(hook);
    if (base) depth[table.chainId(base)] = 0;
  }
  const order: number[] = [];
  for (let c = 0; c < n; c++) if (indeg[c] === 0) order.push(c);
  const out: Diagnostic[] = [];
  let first: Rule | null = null;
  let extra = 0;
  let reached = 0;
  for (let k = 0; k < order.length; k++) {
    const c = order[k] as number;
    for (let e = g.start[c] as number; e < (g.start[c + 1] as number); e++) {
      const t = g.to[e] as number;
      const d = depth[c] as number;
      if (d >= 0 && d + 1 > (depth[t] as number)) depth[t] = d + 1;
      if (d >= NFT_MAX_DEPTH) {
        if (first === null) {
          first = g.rule(g.edgeRule[e] as number);
          reached = d + 1;
        } else extra++;
      }
      indeg[t] = (indeg[t] as number) - 1;
      if (indeg[t] === 0) order.push(t);
    }
  }
  if (first)
    out.push({
      severity: 'warning',
      line: first.line,
      column: first.targetColumn,
      message: `this ${first.via === '-g' ? 'goto' : 'jump'} reaches a chain ${reached} levels below a built-in chain${extra ? ` (and ${extra} more rule${extra > 1 ? 's' : ''} like it)` : ''}: iptables-nft refuses the ruleset with "RULE_APPEND failed (Too many links)", because nf_tables allows ${NFT_MAX_DEPTH} levels; iptables-legacy loads it`,
      hint: 'Flatten the chains (fewer nested jumps); the lab still runs the rules as written.',
    });
  return out;
}

/** Jump loops are rejected by the kernel (ELOOP); report the rule that closes the cycle. */
function checkLoops(g: Graph): Diagnostic[] {
  const out: Diagnostic[] = [];
  const n = g.chains.length;
  const color = new Uint8Array(n); // 0 new, 1 on the current path, 2 done
  const next = new Int32Array(n); // next edge to look at, per chain on the path
  const path: number[] = [];
  for (let root = 0; root < n; root++) {
    if (color[root]) continue;
    path.push(root);
    color[root] = 1;
    next[root] = g.start[root] as number;
    while (path.length) {
      const c = path[path.length - 1] as number;
      const e = next[c] as number;
      if (e >= (g.start[c + 1] as number)) {
        color[c] = 2;
        path.pop();
        continue;
      }
      next[c] = e + 1;
      const t = g.to[e] as number;
      if (color[t] === 1) {
        const names = [...path.slice(path.indexOf(t)), t].map((i) => (g.chains[i] as Chain).name);
        const rule = g.rule(g.edgeRule[e] as number);
        out.push(
          err(
            rule,
            rule.targetColumn,
            `jump loop: ${names.join(' -> ')}`,
            'Remove one of the jumps so the chains form no cycle.',
          ),
        );
      } else if (color[t] === 0) {
        color[t] = 1;
        next[t] = g.start[t] as number;
        path.push(t);
      }
    }
  }
  return out;
}

/** Targets restricted to some hooks must not be reachable from others (xt_check_target hook_mask). */
function checkHooks(table: TableRec, g: Graph): Diagnostic[] {
  // One bit per hook; a chain is visited again only when a new hook reaches it.
  const hooksOfTable = BUILTIN_CHAINS[table.name];
  const mask = new Uint8Array(g.chains.length);
  hooksOfTable.forEach((hook, bit) => {
    const base = table.chains.get(hook);
    if (!base) return;
    const stack = [table.chainId(base)];
    while (stack.length) {
      const c = stack.pop() as number;
      if ((mask[c] as number) & (1 << bit)) continue;
      mask[c] = (mask[c] as number) | (1 << bit);
      for (let e = g.start[c] as number; e < (g.start[c + 1] as number); e++)
        stack.push(g.to[e] as number);
    }
  });
  const out: Diagnostic[] = [];
  // Targets come in runs (a dump's DNAT rules): the last name's hooks are kept.
  let lastName: string | null = null;
  let lastHooks: readonly string[] | undefined;
  for (let k = 0; k < g.targeted.length; k++) {
    const chain = g.targetedChain[k] as number;
    const m = mask[chain] as number;
    if (!m) continue;
    const name = g.targetedName[k] as string;
    if (name !== lastName) {
      lastName = name;
      lastHooks = lookupTarget(name)?.place?.hooks;
    }
    const hooks = lastHooks;
    if (!hooks) continue;
    let bad: string[] | null = null;
    for (let bit = 0; bit < hooksOfTable.length; bit++) {
      const h = hooksOfTable[bit] as string;
      if (m & (1 << bit) && !hooks.includes(h)) (bad ??= []).push(h);
    }
    if (bad) {
      const rule = g.rule(g.targeted[k] as number);
      out.push(
        err(
          rule,
          rule.targetColumn,
          `${name} is only valid in ${hooks.join('/')}, but chain ${(g.chains[chain] as Chain).name} is reached from ${bad.join('/')}`,
          `Move the rule to a chain used only from ${hooks.join(' or ')}.`,
        ),
      );
    }
  }
  return out;
}
