/** A cursor over the tokens of one rule (or one declaration), and what expression parsers share. */
import type { Diagnostic } from '../diagnostic.ts';
import type { DataType, Interval } from './datatypes.ts';
import type { Token } from './lexer.ts';
import type { NftFamily, NftSet, NftTable, NftVerdict, SetRef } from './types.ts';

export class Cursor {
  i: number;
  constructor(
    readonly toks: readonly Token[],
    start = 0,
    readonly end = toks.length,
  ) {
    this.i = start;
  }
  peek(k = 0): Token | undefined {
    const j = this.i + k;
    return j < this.end ? this.toks[j] : undefined;
  }
  /** The text of the token `k` ahead if it is a word, else undefined. */
  word(k = 0): string | undefined {
    const t = this.peek(k);
    return t && t.kind === 'word' ? t.text : undefined;
  }
  isPunct(ch: string, k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && t.kind === 'punct' && t.text === ch;
  }
  next(): Token | undefined {
    return this.i < this.end ? this.toks[this.i++] : undefined;
  }
  atEnd(): boolean {
    return this.i >= this.end;
  }
  /** The last token read, or the first one, for positions of errors at the end. */
  last(): Token | undefined {
    return this.toks[Math.max(0, Math.min(this.i, this.end) - 1)] ?? this.toks[0];
  }
  /** Where an error about "what comes next" points: the next token, or just past the last. */
  here(): Token | undefined {
    return this.peek() ?? this.last();
  }
}

/** Raised inside an expression parser; the rule parser turns it into a diagnostic. */
export class RuleError extends Error {
  constructor(
    readonly tok: Token | undefined,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export function fail(tok: Token | undefined, message: string, hint?: string): never {
  throw new RuleError(tok, message, hint);
}

/** What expression and statement parsers may ask of the rule being read. */
export interface RuleCtx {
  readonly table: NftTable;
  readonly family: NftFamily;
  readonly diagnostics: Diagnostic[];
  /**
   * A reference to a named set of the table, looked up with keys of `fields` (checked when the
   * whole input is read, as the kernel checks it at commit).
   */
  setRef(
    name: string,
    tok: Token,
    fields: readonly DataType[],
    use: 'lookup' | 'vmap' | 'update',
  ): SetRef;
  /** Parses `{ ... }` at the cursor as an anonymous set (or map) with these key types. */
  anonymous(c: Cursor, fields: readonly DataType[], map: 'verdict' | DataType | null): NftSet;
  /** Parses one value of `type` at the cursor. */
  value(c: Cursor, type: DataType): Interval;
  /** Parses a verdict (`goto X`, `drop`...) at the cursor. */
  verdict(c: Cursor): NftVerdict;
  /** Something in the rule needs the packet's conntrack entry (ct, nat). */
  usesConntrack(): void;
  /** Set when a `comment "..."` closes the rule. */
  comment: string | null;
}

/**
 * Raised for valid nft the lab cannot evaluate (`numgen inc`, `limit`, `ip dscp`...): the rule
 * loads, and a packet that reaches this point stops with an explicit "unsupported" step.
 */
export class UnsupportedError extends Error {
  constructor(
    readonly tok: Token | undefined,
    readonly what: string,
  ) {
    super(what);
  }
}

export function unsupported(tok: Token | undefined, what: string): never {
  throw new UnsupportedError(tok, what);
}
