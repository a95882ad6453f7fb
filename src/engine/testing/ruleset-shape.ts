/**
 * Test helper: everything a parse produced, as plain data, so that two parses of one text can be
 * compared with toEqual: diagnostics, comments, tables, chains in order with their policies and
 * counters, every rule's fields (text, line, index, target, via, counters, probability, header
 * integers and what they name, matches by kind), and which rules the table keeps in file order.
 * A match is a closure: it is compared by its code (and its `unsupported` text).
 */
import { HEADER_ID_COLUMNS, HEADER_STRIDE, type HeaderStore } from '../rules/header.ts';
import type { ParseResult } from '../rules/parse.ts';
import type { Rule, Table } from '../rules/types.ts';
import type { NftParseResult } from '../nft/types.ts';

function plain(v: unknown): unknown {
  return JSON.parse(
    JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)) ?? 'null',
  );
}

function ruleShape(rule: Rule, headers: HeaderStore, offsets: boolean): unknown {
  const row = new Int32Array(HEADER_STRIDE);
  const refs = headers.exportRow(rule.header, row, 0);
  // Interned ids depend on the order rules were compiled in; what they name is in refs.
  if (!offsets && refs)
    for (const [k, col] of Object.entries(HEADER_ID_COLUMNS))
      if (refs[k as keyof typeof refs] !== null) row[col] = 0;
  const t = rule.target;
  return {
    table: rule.table,
    chain: rule.chain,
    index: rule.index,
    line: rule.line,
    text: rule.text,
    counters: rule.counters,
    targetName: rule.targetName,
    targetColumn: rule.targetColumn,
    via: rule.via,
    // Where the header row is: rules compiled in another order (deferred chains) have others.
    header: offsets ? rule.header : null,
    row: [...row],
    refs: plain(refs),
    probability: rule.probability,
    stateful: rule.stateful,
    target: t.kind === 'jump' || t.kind === 'goto' ? `${t.kind} ${t.chain.name}` : plain(t),
    matches: rule.matches.map((m) => (typeof m === 'function' ? m.toString() : plain(m))),
  };
}

function tableShape(table: Table, offsets: boolean): unknown {
  const order = new Map(table.ruleOrder.map((r, i) => [r, i]));
  return {
    name: table.name,
    line: table.line,
    chainOrder: [...table.chainOrder],
    chains: [...table.chains.values()].map((c) => ({
      name: c.name,
      builtin: c.builtin,
      declared: c.declared,
      policy: c.policy,
      policyText: c.policyText,
      counters: c.counters,
      line: c.line,
      // Each of the chain's rules by its place in the table's rule order (-1: not there).
      rules: c.rules.map((r) => order.get(r) ?? -1),
    })),
    ruleOrder: table.ruleOrder.map((r) => ruleShape(r, table.headers, offsets)),
  };
}

/** `headerOffsets: false` leaves out where each rule's header row is (its content stays). */
export function parseShape(result: ParseResult, { headerOffsets = true } = {}): unknown {
  const rs = result.ruleset;
  return {
    ok: result.ok,
    diagnostics: plain(result.diagnostics),
    family: rs.family,
    headerComments: [...rs.headerComments],
    trailingComments: [...rs.trailingComments],
    tables: [...rs.tables.values()].map((t) => tableShape(t, headerOffsets)),
  };
}

/** Maps, sets and closures as plain data (a closure by its code). */
function plainDeep(v: unknown): unknown {
  return JSON.parse(
    JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'function'
        ? x.toString()
        : typeof x === 'bigint'
          ? `${x}n`
          : x instanceof Map
            ? [...x]
            : x instanceof Set
              ? [...x]
              : x,
    ) ?? 'null',
  );
}

/**
 * An nft parse as plain data: diagnostics, then per table its handles, conntrack use and base
 * chains, its chains in order (handle, header, comment, every rule's fields and statements) and
 * its sets with their elements.
 */
export function nftParseShape(result: NftParseResult): unknown {
  return {
    ok: result.ok,
    diagnostics: plainDeep(result.diagnostics),
    tables: result.ruleset.tables.map((t) => ({
      family: t.family,
      name: t.name,
      line: t.line,
      comment: t.comment,
      nextHandle: t.nextHandle,
      conntrack: t.conntrack,
      bases: t.bases.map((c) => c.name),
      chains: [...t.chains.values()].map((c) => ({
        name: c.name,
        line: c.line,
        column: c.column,
        handle: c.handle,
        base: plainDeep(c.base),
        comment: c.comment,
        rules: c.rules.map((r) => plainDeep(r)),
      })),
      sets: [...t.sets.values()].map((s) => plainDeep(s)),
    })),
  };
}
