/**
 * Checks the kernel makes when a transaction commits (net/netfilter/nf_tables_api.c): every
 * `@set` and jump target exists in its table, set keys have the set's types, jumps go to
 * regular chains, no chain reaches itself (nf_tables_check_loops: ELOOP) and no path nests
 * deeper than NFT_JUMP_STACK_SIZE (16, EMLINK).
 */
import type { Diagnostic } from '../diagnostic.ts';
import { compatible, type DataType } from './datatypes.ts';
import { sketchOf, WHAT } from './defer.ts';
import type { Token } from './lexer.ts';
import type {
  NftChain,
  NftRule,
  NftRuleset,
  NftSet,
  NftTable,
  NftVerdict,
  SetRef,
} from './types.ts';

export type PendingRef =
  | {
      readonly kind: 'set';
      readonly table: NftTable;
      readonly name: string;
      readonly tok: Token;
      readonly ref: SetRef;
      readonly where: string;
      readonly fields: readonly DataType[];
      readonly use: 'lookup' | 'vmap' | 'update';
    }
  | {
      readonly kind: 'chain';
      readonly table: NftTable;
      readonly name: string;
      readonly tok: Token;
      readonly where: string;
    };

/** nf_tables.h: NFT_JUMP_STACK_SIZE. */
export const JUMP_STACK_SIZE = 16;

function err(out: Diagnostic[], tok: Token, message: string, hint?: string): void {
  out.push(
    hint === undefined
      ? { severity: 'error', line: tok.line, column: tok.column, message }
      : { severity: 'error', line: tok.line, column: tok.column, message, hint },
  );
}

export function checkRuleset(
  rs: NftRuleset,
  pending: readonly PendingRef[],
  out: Diagnostic[],
): void {
  const live = new Set(rs.tables);
  for (const p of pending) {
    if (!live.has(p.table)) continue;
    if (p.kind === 'chain') {
      const target = p.table.chains.get(p.name);
      if (!target)
        err(
          out,
          p.tok,
          `there is no chain ${p.name} in table ${p.table.family} ${p.table.name}`,
          `add it: add chain ${p.table.family} ${p.table.name} ${p.name}`,
        );
      else if (target.base)
        err(out, p.tok, `${p.name} is a base chain; rules cannot jump or go to it`);
      continue;
    }
    const set = p.table.sets.get(p.name);
    if (!set) {
      err(
        out,
        p.tok,
        `there is no set or map @${p.name} in table ${p.table.family} ${p.table.name}`,
      );
      continue;
    }
    p.ref.set = set;
    checkTypes(out, p, set);
  }
  for (const t of rs.tables) checkDeferredTargets(t, out);
  for (const t of rs.tables) checkLoops(t, out, pending);
}

/**
 * The jump and goto targets of rules not compiled yet (defer.ts), checked as their rules' would
 * be. A problem makes parseNftRuleset read the text again without deferring, for the exact
 * diagnostics: the message here is never shown.
 */
function checkDeferredTargets(table: NftTable, out: Diagnostic[]): void {
  for (const ch of table.chains.values()) {
    const s = sketchOf(ch);
    if (!s) continue;
    for (const name of s.targets) {
      const target = table.chains.get(name);
      if (!target || target.base) {
        err(
          out,
          { line: ch.line, column: ch.column } as Token,
          `a rule of ${ch.name} cannot go to ${name}`,
        );
        return;
      }
    }
  }
}

function checkTypes(out: Diagnostic[], p: Extract<PendingRef, { kind: 'set' }>, set: NftSet): void {
  if (p.use === 'vmap' && set.data !== 'verdict') {
    err(out, p.tok, `@${set.name} is not a verdict map`, `declare it as a map with ': verdict'`);
    return;
  }
  if (p.use === 'lookup' && set.kind === 'map') {
    err(out, p.tok, `@${set.name} is a map; look it up with vmap or map`);
    return;
  }
  const ok =
    set.fields.length === p.fields.length &&
    set.fields.every((f, i) => compatible(p.fields[i] as DataType, f));
  if (!ok)
    err(
      out,
      p.tok,
      `@${set.name} holds ${set.fields.map((f) => f.name).join(' . ')}, but this rule looks up ${p.fields.map((f) => f.name).join(' . ')}`,
    );
}

function verdictsOf(chain: NftChain): { v: NftVerdict; rule: number }[] {
  const out: { v: NftVerdict; rule: number }[] = [];
  const fromSet = (s: NftSet | null, rule: number) => {
    if (!s || s.data !== 'verdict') return;
    for (const e of s.exact.values()) if (e.data && 'code' in e.data) out.push({ v: e.data, rule });
    for (const e of s.ranges) if (e.data && 'code' in e.data) out.push({ v: e.data, rule });
  };
  // A chain with rules not compiled yet: the compiled ones, then the others' sketched targets.
  const sketch = sketchOf(chain);
  for (const t of sketch?.targets ?? []) out.push({ v: { code: 'jump', chain: t }, rule: 0 });
  for (const r of sketch ? sketch.compiled : chain.rules) {
    for (const s of r.stmts) {
      if (s.kind === 'verdict') out.push({ v: s.verdict, rule: r.line });
      else if (s.kind === 'vmap')
        fromSet(s.set.set ?? chain.table.sets.get(s.set.name) ?? null, r.line);
    }
  }
  return out;
}

/**
 * Every chain's jump and goto targets (rules and verdict maps), computed once per check: chains
 * by number (their order in the table), so that walking a 5,000-Service table from each base
 * chain is array work, not string hashing.
 */
interface ChainGraph {
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly to: readonly (readonly number[])[];
}

const graphCache = new WeakMap<NftTable, ChainGraph>();

function graphOf(table: NftTable): ChainGraph {
  const hit = graphCache.get(table);
  if (hit) return hit;
  const names = [...table.chains.keys()];
  const index = new Map<string, number>();
  names.forEach((n, i) => index.set(n, i));
  const to: number[][] = [];
  for (const ch of table.chains.values()) {
    const out: number[] = [];
    for (const { v } of verdictsOf(ch)) {
      const j = 'chain' in v ? index.get(v.chain) : undefined;
      if (j !== undefined) out.push(j);
    }
    to.push(out);
  }
  const graph = { names, index, to };
  graphCache.set(table, graph);
  return graph;
}

/** Some chain of `table` with rules not compiled yet jumps or goes to `name`. */
function sketched(table: NftTable, name: string): boolean {
  for (const ch of table.chains.values()) if (sketchOf(ch)?.targets.includes(name)) return true;
  return false;
}

function chainTok(table: NftTable, name: string): Token | undefined {
  const ch = table.chains.get(name);
  return ch ? ({ line: ch.line, column: ch.column } as Token) : undefined;
}

/** Depth-first from every chain: a back edge is a loop; a path past 16 levels is too deep. */
function checkLoops(table: NftTable, out: Diagnostic[], pending: readonly PendingRef[]): void {
  graphCache.delete(table);
  const { names, to } = graphOf(table);
  const state = new Uint8Array(names.length); // 1 visiting, 2 done
  const depth = new Int32Array(names.length);
  // A jump of a rule not compiled yet has no token: the loop is told at the chain it reaches
  // (parseNftRuleset then reads the text again, for the jump's own place).
  const tokOf = (name: string) =>
    pending.find((p) => p.kind === 'chain' && p.table === table && p.name === name)?.tok ??
    (sketched(table, name) ? chainTok(table, name) : undefined);
  let reported = false;
  const loopAt = (c: number, path: readonly number[]): void => {
    if (reported) return;
    reported = true;
    const tok = tokOf(names[c] as string);
    const loop = [...path.slice(path.indexOf(c)), c].map((i) => names[i]).join(' -> ');
    if (tok)
      err(
        out,
        tok,
        `jump loop: ${loop}`,
        'the kernel refuses rulesets where a chain reaches itself',
      );
  };
  // The chains being visited (the path), each with its next edge and the deepest path below it
  // so far: an explicit stack, as a ruleset may chain 20,000 jumps, past the call stack.
  const path: number[] = [];
  const edge: number[] = [];
  const below: number[] = [];
  const visit = (root: number): number => {
    if (state[root] === 2) return depth[root] as number;
    state[root] = 1;
    path.push(root);
    edge.push(0);
    below.push(0);
    while (path.length > 0) {
      const top = path.length - 1;
      const c = path[top] as number;
      const next = to[c] as readonly number[];
      const k = edge[top] as number;
      if (k < next.length) {
        edge[top] = k + 1;
        const n = next[k] as number;
        if (state[n] === 0) {
          state[n] = 1;
          path.push(n);
          edge.push(0);
          below.push(0);
          continue;
        }
        // Done: its depth; on the path: a back edge, a loop (reported once), depth 0 beyond it.
        if (state[n] === 1) loopAt(n, path);
        const d = state[n] === 2 ? (depth[n] as number) : 0;
        below[top] = Math.max(below[top] as number, 1 + d);
        continue;
      }
      path.pop();
      edge.pop();
      const d = below.pop() as number;
      state[c] = 2;
      depth[c] = d;
      if (path.length > 0) below[top - 1] = Math.max(below[top - 1] as number, 1 + d);
    }
    return depth[root] as number;
  };
  let c = 0;
  for (const ch of table.chains.values()) {
    const d = visit(c++);
    if (ch.base && d > JUMP_STACK_SIZE) {
      const tok = { line: ch.line, column: ch.column } as Token;
      err(
        out,
        tok,
        `chains reached from ${ch.name} nest ${d} levels deep; the kernel allows ${JUMP_STACK_SIZE}`,
      );
    }
  }
}

/** A statement some hooks refuse, and the rule it is in (or, not compiled yet, its chain's place). */
interface Picky {
  readonly r: Pick<NftRule, 'line' | 'column'>;
  readonly what: string;
  readonly text: string;
  readonly nat: boolean;
}

/** Hooks each statement may run at (nft_nat.c nft_nat_validate, nft_masq.c, nft_redir.c, nft_reject.c). */
const STMT_HOOKS: Readonly<Record<string, readonly string[]>> = {
  DNAT: ['prerouting', 'output'],
  REDIRECT: ['prerouting', 'output'],
  SNAT: ['postrouting', 'input'],
  MASQUERADE: ['postrouting'],
  REJECT: ['prerouting', 'input', 'forward', 'output'],
};

/**
 * nf_tables validates every rule a base chain reaches (nft_chain_validate): NAT statements only
 * in nat chains, each statement only at the hooks it works at. The kernel refuses the whole
 * transaction otherwise ("Operation not supported").
 */
export function checkHooks(rs: NftRuleset, out: Diagnostic[]): void {
  for (const table of rs.tables) {
    // The rules with a statement some hooks refuse, by chain: usually a handful.
    const picky = new Map<number, Picky[]>();
    let c = -1;
    for (const ch of table.chains.values()) {
      c++;
      const sketch = sketchOf(ch);
      const add = (p: Picky) => {
        let list = picky.get(c);
        if (!list) picky.set(c, (list = []));
        list.push(p);
      };
      for (const r of sketch ? sketch.compiled : ch.rules)
        for (const s of r.stmts) {
          const what = s.kind === 'nat' ? s.target : s.kind === 'reject' ? 'REJECT' : null;
          if (what) add({ r, what, text: s.text, nat: s.kind === 'nat' });
        }
      // Rules not compiled yet (defer.ts): the statements their words name, at the chain.
      for (const [what, bit] of Object.entries(WHAT))
        if (sketch && sketch.what & bit)
          add({
            r: { line: ch.line, column: ch.column },
            what,
            text: what.toLowerCase(),
            nat: what !== 'REJECT',
          });
    }
    if (picky.size === 0) continue;
    const { index, to } = graphOf(table);
    const reported = new Set<Picky['r']>();
    for (const base of table.bases) {
      const b = base.base;
      const start = index.get(base.name);
      if (!b || start === undefined) continue;
      const seen = new Uint8Array(to.length);
      seen[start] = 1;
      const queue = [start];
      while (queue.length > 0) {
        const at = queue.pop() as number;
        for (const p of picky.get(at) ?? []) {
          if (reported.has(p.r)) continue;
          const hooks = STMT_HOOKS[p.what] ?? [];
          const why =
            p.nat && b.type !== 'nat'
              ? `${p.text} works only in a nat chain, and ${base.name} (type ${b.type}) reaches it`
              : !hooks.includes(b.hook)
                ? `${p.text} works only at ${hooks.join(', ')}, and ${base.name} (hook ${b.hook}) reaches it`
                : null;
          if (!why) continue;
          reported.add(p.r);
          out.push({
            severity: 'error',
            line: p.r.line,
            column: p.r.column,
            message: `the kernel refuses this rule: ${why}`,
          });
        }
        for (const next of to[at] as readonly number[]) {
          if (seen[next]) continue;
          seen[next] = 1;
          queue.push(next);
        }
      }
    }
  }
}
