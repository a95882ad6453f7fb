/**
 * What reading a piece of a ruleset did, kept by the piece's text so that reading the same text
 * again (the next generation of a node's kube-proxy rules, where an edit changed one Service's
 * lines) replays it instead of tokenizing, reading and compiling every rule anew.
 *
 * A piece is a run of whole lines inside a table, each a rule (`-…`), a chain (`:…`) or a comment
 * (`#…`); its ends are chosen by the lines' own text (see pieceEnds in parse.ts), never by where
 * they are, so an edit changes only the pieces holding the changed lines and the rest of the text
 * cuts into the same pieces as before. A replayed line does exactly what reading it would: a
 * chain line is declared with the same words (declareChain checks them again), a rule is placed
 * with the compiled parts its line compiled to, once what they were compiled against is checked
 * to be the same (the table, the chain it is appended to, whether its target is a user chain).
 * Every other line, and any line whose reading said something (a diagnostic) or made a rule with
 * state of its own (statistic, recent, limit: their matches know their rule), is read anew.
 */
import type { Matcher, Unsupported } from './extension.ts';
import type { HeaderRefs } from './header.ts';
import type { TargetOp } from './target-op.ts';
import type { TableName } from './types.ts';

export const COMMENT = 0;
export const CHAIN = 1;
export const RULE = 2;
/** Read anew every time. */
export const REDO = 3;

interface At {
  /** Line of the piece, 0-based. */
  readonly line: number;
  /** Where the line starts and ends (without its line break) from the start of the piece. */
  readonly start: number;
  readonly end: number;
}

export interface CommentItem extends At {
  readonly kind: typeof COMMENT;
  readonly text: string;
}

/** `:NAME POLICY [p:b]`, its words as tokenized. */
export interface ChainItem extends At {
  readonly kind: typeof CHAIN;
  readonly name: string;
  readonly policy: string;
  readonly counters: string;
  readonly column: number;
}

/** An `-A CHAIN …` rule that compiled without a diagnostic and without state of its own. */
export interface RuleItem extends At {
  readonly kind: typeof RULE;
  readonly chain: string;
  readonly targetName: string | null;
  /** Its target was a user chain declared before it: the jump is to the new table's chain. */
  readonly toUser: boolean;
  readonly via: '-j' | '-g' | null;
  readonly targetColumn: number;
  /** The rule's text when it is not its line as written; its counters, when it has some. */
  readonly text: string | null;
  readonly counters: string | null;
  /** Its header's integers start at `row` in the piece's `rows`. */
  readonly row: number;
  readonly refs: HeaderRefs | null;
  readonly matches: readonly (Matcher | Unsupported)[];
  /** The target's operation, unless it is a jump to a user chain. */
  readonly target: TargetOp;
  readonly probability: number | null;
}

export interface RedoItem extends At {
  readonly kind: typeof REDO;
}

export type PieceItem = CommentItem | ChainItem | RuleItem | RedoItem;

export interface PieceRecord {
  /** The table the piece was read in: it replays only in a table of that name. */
  readonly table: TableName;
  readonly lines: number;
  readonly items: readonly PieceItem[];
  readonly rows: Int32Array;
  /** The last parse that used it. */
  gen: number;
}

/**
 * Records by piece text, one cache per address family. Entries a parse did not use stay for a
 * few parses (the lab alternates between a few nodes' texts), and go once the cache is much
 * bigger than what one parse uses.
 */
class PieceCache {
  private readonly byText = new Map<string, PieceRecord>();
  private gen = 0;
  private used = 0;

  get(text: string): PieceRecord | undefined {
    const hit = this.byText.get(text);
    if (hit) {
      hit.gen = this.gen;
      this.used++;
    }
    return hit;
  }

  set(text: string, record: PieceRecord): void {
    record.gen = this.gen;
    this.byText.set(text, record);
    this.used++;
  }

  /** Starts a parse. */
  begin(): void {
    this.gen++;
    this.used = 0;
  }

  /** Ends a parse: drops what no parse of the last 8 used, once the cache outgrows them. */
  end(): void {
    if (this.byText.size <= 4 * this.used + 4096) return;
    for (const [text, r] of this.byText) if (r.gen < this.gen - 8) this.byText.delete(text);
  }

  clear(): void {
    this.byText.clear();
  }
}

export const pieceCaches = { 4: new PieceCache(), 6: new PieceCache() } as const;

/** Forgets every piece (tests: a parse that reads every line anew). */
export function forgetPieces(): void {
  pieceCaches[4].clear();
  pieceCaches[6].clear();
}
