/** The checks iptables-restore and the kernel make: targets, values, loops, hook validity. */
import { lookupTarget } from './extensions.ts';
import { compileRule, type CompiledRule } from './compile.ts';
import { TextRule } from './rule.ts';
import type { ParsedRuleBody } from './parse-rule.ts';
import {
  BUILTIN_CHAINS,
  type Chain,
  type Diagnostic,
  type Hook,
  type Rule,
  type Table,
} from './types.ts';

const userChainCache = new WeakMap<Table, ReadonlySet<string>>();

/** Names of the user-defined chains of a table (jump targets). */
export function userChainsOf(table: Table): ReadonlySet<string> {
  let s = userChainCache.get(table);
  if (!s) {
    s = new Set([...table.chains.values()].filter((c) => !c.builtin).map((c) => c.name));
    userChainCache.set(table, s);
  }
  return s;
}

/** Compiles a rule of a validated table (it cannot fail then). */
export function compileValidated(rule: Rule, table: Table, family: 4 | 6): CompiledRule {
  const res = compileRule(rule, family, userChainsOf(table));
  if ('diagnostic' in res) throw new Error(`line ${rule.line}: ${res.diagnostic.message}`);
  return res.compiled;
}

/** Where kernel targets may appear (xt_target .table and .hooks in net/netfilter and net/ipv4/netfilter). */
const TARGET_PLACES: Readonly<
  Record<string, { tables?: readonly string[]; hooks?: readonly Hook[] }>
> = {
  DNAT: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  REDIRECT: { tables: ['nat'], hooks: ['PREROUTING', 'OUTPUT'] },
  SNAT: { tables: ['nat'], hooks: ['POSTROUTING', 'INPUT'] },
  MASQUERADE: { tables: ['nat'], hooks: ['POSTROUTING'] },
  REJECT: { hooks: ['INPUT', 'FORWARD', 'OUTPUT'] },
  NOTRACK: { tables: ['raw'] },
  CT: { tables: ['raw'] },
  TRACE: { tables: ['raw'] },
};

const TARGET_PLACE_MAP = new Map(Object.entries(TARGET_PLACES));

function err(rule: Rule, column: number, message: string, hint?: string): Diagnostic {
  return hint === undefined
    ? { severity: 'error', line: rule.line, column, message }
    : { severity: 'error', line: rule.line, column, message, hint };
}

/**
 * Checks one rule when it is added, against the chains declared so far (iptables-restore resolves
 * a jump when it reads the rule, so the chain must be declared above it).
 */
export function validateRule(
  rule: Rule,
  body: ParsedRuleBody,
  table: Table,
  family: 4 | 6,
  userChains: ReadonlySet<string>,
): Diagnostic | null {
  const t = body.target;
  if (t && !userChains.has(t.name)) {
    if ((BUILTIN_CHAINS[table.name] as readonly string[]).includes(t.name)) {
      return err(
        rule,
        t.column,
        `cannot jump to built-in chain ${t.name}`,
        'Jump to a user-defined chain instead.',
      );
    }
    if (!lookupTarget(t.name)) {
      const looksLikeChain = /^[A-Z0-9-]+$/.test(t.name) && t.name.includes('-');
      return err(
        rule,
        t.column,
        `no chain or target named '${t.name}' in table ${table.name}`,
        looksLikeChain
          ? `Declare the chain with a line ':${t.name} - [0:0]' in *${table.name}, above this rule.`
          : 'Check the spelling of the target.',
      );
    }
    const place = TARGET_PLACES[t.name];
    if (place?.tables && !place.tables.includes(table.name)) {
      return err(
        rule,
        t.column,
        `${t.name} is only valid in the ${place.tables.join('/')} table, not ${table.name}`,
      );
    }
  }
  const probe = {
    items: body.items,
    target: body.target,
    table: rule.table,
    chain: rule.chain,
    index: rule.index,
    line: rule.line,
    text: rule.text,
    counters: rule.counters,
    targetName: rule.targetName,
    targetColumn: rule.targetColumn,
  };
  const res = compileRule(probe, family, userChains);
  return 'diagnostic' in res ? res.diagnostic : null;
}

/** Whole-table checks once every rule is in: jump loops and hook restrictions. */
export function validateTable(table: Table): Diagnostic[] {
  const userChains = new Set(
    [...table.chains.values()].filter((c) => !c.builtin).map((c) => c.name),
  );
  userChainCache.set(table, userChains);
  // Edges between chain objects (identity-hashed keys are much cheaper than 100k name strings).
  const edges = new Map<Chain, Edge[]>();
  for (const chain of table.chains.values()) {
    const out: Edge[] = [];
    for (const r of chain.rules) {
      if (r.targetName === null) continue;
      // Rules read from text resolved their jump target already; others are looked up.
      const to = r instanceof TextRule && r.jumpTo ? r.jumpTo : table.chains.get(r.targetName);
      if (to && !to.builtin && table.chains.get(to.name) === to) out.push({ rule: r, to });
    }
    edges.set(chain, out);
  }
  return [...checkLoops(table, edges), ...checkHooks(table, edges)];
}

interface Edge {
  readonly rule: Rule;
  readonly to: Chain;
}

/** Jump loops are rejected by the kernel (ELOOP); report the rule that closes the cycle. */
function checkLoops(table: Table, edges: ReadonlyMap<Chain, Edge[]>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const color = new Map<Chain, 1 | 2>();
  const path: Chain[] = [];
  const visit = (chain: Chain): void => {
    color.set(chain, 1);
    path.push(chain);
    for (const { rule, to } of edges.get(chain) ?? []) {
      const c = color.get(to);
      if (c === 1) {
        const cycle = [...path.slice(path.indexOf(to)), to].map((x) => x.name).join(' -> ');
        out.push(
          err(
            rule,
            rule.targetColumn,
            `jump loop: ${cycle}`,
            'Remove one of the jumps so the chains form no cycle.',
          ),
        );
      } else if (c === undefined) visit(to);
    }
    path.pop();
    color.set(chain, 2);
  };
  for (const chain of table.chains.values()) if (!color.has(chain)) visit(chain);
  return out;
}

/** Targets restricted to some hooks must not be reachable from others (xt_check_target hook_mask). */
function checkHooks(table: Table, edges: ReadonlyMap<Chain, Edge[]>): Diagnostic[] {
  // One bit per hook; a chain is visited again only when a new hook reaches it.
  const hooksOfTable = BUILTIN_CHAINS[table.name];
  const reach = new Map<Chain, number>();
  hooksOfTable.forEach((hook, bit) => {
    const base = table.chains.get(hook);
    if (!base) return;
    const stack = [base];
    while (stack.length) {
      const chain = stack.pop() as Chain;
      const mask = reach.get(chain) ?? 0;
      if (mask & (1 << bit)) continue;
      reach.set(chain, mask | (1 << bit));
      for (const e of edges.get(chain) ?? []) stack.push(e.to);
    }
  });
  const out: Diagnostic[] = [];
  for (const [chain, mask] of reach) {
    for (const rule of chain.rules) {
      const place = rule.targetName === null ? undefined : TARGET_PLACE_MAP.get(rule.targetName);
      if (!place?.hooks) continue;
      const bad = hooksOfTable.filter((h, bit) => mask & (1 << bit) && !place.hooks?.includes(h));
      if (bad.length) {
        out.push(
          err(
            rule,
            rule.targetColumn,
            `${rule.targetName} is only valid in ${place.hooks.join('/')}, but chain ${chain.name} is reached from ${bad.join('/')}`,
            `Move the rule to a chain used only from ${place.hooks.join(' or ')}.`,
          ),
        );
      }
    }
  }
  return out;
}
