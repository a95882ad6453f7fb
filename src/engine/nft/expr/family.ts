/** The shape of an expression family module: the words it starts with and its parser. */
import type { Cursor, RuleCtx } from '../cursor.ts';
import type { KeyExpr, Stmt } from '../types.ts';

/** Left-hand expressions (payload, meta, ct, fib, numgen): read a value from the packet. */
export interface KeyFamily {
  readonly words: readonly string[];
  /** Called with the cursor on the first word; consumes the whole expression. */
  parse(c: Cursor, r: RuleCtx): KeyExpr;
}

/** Statements (verdicts, NAT, reject, counter, log, ...): do something. */
export interface StmtFamily {
  readonly words: readonly string[];
  parse(c: Cursor, r: RuleCtx): Stmt;
}

/** The text of tokens [from, cursor) as written. */
export function textFrom(c: Pick<Cursor, 'toks' | 'i' | 'end'>, from: number, src: string): string {
  const a = c.toks[from];
  const b = c.toks[Math.min(c.i, c.end) - 1];
  return a && b ? src.slice(a.offset, b.end) : '';
}
