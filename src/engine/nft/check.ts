/**
 * Checks the kernel makes when a transaction commits (net/netfilter/nf_tables_api.c): every
 * `@set` and jump target exists in its table, set keys have the set's types, jumps go to
 * regular chains, no chain reaches itself (nf_tables_check_loops: ELOOP) and no path nests
 * deeper than NFT_JUMP_STACK_SIZE (16, EMLINK).
 */
import type { Diagnostic } from '../rules/types.ts';
import { compatible, type DataType } from './datatypes.ts';
import type { Token } from './lexer.ts';
import type { NftChain, NftRuleset, NftSet, NftTable, NftVerdict, SetRef } from './types.ts';

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
  for (const t of rs.tables) checkLoops(t, out, pending);
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
  for (const r of chain.rules) {
    for (const s of r.stmts) {
      if (s.kind === 'verdict') out.push({ v: s.verdict, rule: r.line });
      else if (s.kind === 'vmap')
        fromSet(s.set.set ?? chain.table.sets.get(s.set.name) ?? null, r.line);
    }
  }
  return out;
}

/** Depth-first from every chain: a back edge is a loop; a path past 16 levels is too deep. */
function checkLoops(table: NftTable, out: Diagnostic[], pending: readonly PendingRef[]): void {
  const edges = new Map<string, string[]>();
  for (const ch of table.chains.values()) {
    const to: string[] = [];
    for (const { v } of verdictsOf(ch))
      if ('chain' in v && table.chains.has(v.chain)) to.push(v.chain);
    edges.set(ch.name, to);
  }
  const state = new Map<string, number>(); // 1 visiting, 2 done
  const depth = new Map<string, number>();
  const tokOf = (name: string) =>
    pending.find((p) => p.kind === 'chain' && p.table === table && p.name === name)?.tok;
  let reported = false;
  const visit = (name: string, path: string[]): number => {
    const s = state.get(name);
    if (s === 2) return depth.get(name) ?? 0;
    if (s === 1) {
      if (!reported) {
        reported = true;
        const tok = tokOf(name);
        const loop = [...path.slice(path.indexOf(name)), name].join(' -> ');
        if (tok)
          err(
            out,
            tok,
            `jump loop: ${loop}`,
            'the kernel refuses rulesets where a chain reaches itself',
          );
      }
      return 0;
    }
    state.set(name, 1);
    path.push(name);
    let d = 0;
    for (const n of edges.get(name) ?? []) d = Math.max(d, 1 + visit(n, path));
    path.pop();
    state.set(name, 2);
    depth.set(name, d);
    return d;
  };
  for (const ch of table.chains.values()) {
    const d = visit(ch.name, []);
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
