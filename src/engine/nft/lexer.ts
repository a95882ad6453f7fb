/**
 * Splits nft input into tokens with their line and column, the way nft's scanner does for the
 * parts the lab reads (nftables src/scanner.l): words (names, numbers, addresses, operators),
 * quoted strings, and the punctuation `{ } ; , : . = ( ) |`. Newlines end statements as `;`
 * does; `\` at the end of a line continues it; `#` starts a comment to the end of the line,
 * except `# handle N` after a listed rule, which becomes a handle token.
 */

export type TokKind = 'word' | 'string' | 'punct' | 'nl' | 'handle';

export interface Token {
  readonly kind: TokKind;
  /** The word, the string without quotes, the punctuation character, or the handle digits. */
  readonly text: string;
  readonly offset: number;
  /** Offset just past the token in the source. */
  readonly end: number;
  readonly line: number;
  readonly column: number;
}

export interface LexError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Character classes by code: 1 space, 2 newline, 3 punctuation, 4 quote or `#` (ends a word). */
const CLASS = new Uint8Array(128);
for (const c of [32, 9, 13, 12, 11]) CLASS[c] = 1;
CLASS[10] = 2;
for (const ch of '{};,()|&^') CLASS[ch.charCodeAt(0)] = 3;
CLASS[34] = 4;
CLASS[35] = 4;

function cls(c: number): number {
  return c < 128 ? (CLASS[c] as number) : 0;
}

const IPV6ISH = /^\[?[0-9a-f:.]*::?[0-9a-f:.]*(\]|\/\d+)?$/i;

/**
 * The lexer's position in the source. `item` reads one top-level item (up to a newline or `;`
 * outside braces, included), so a large transaction file is never all tokens at once: each
 * command's tokens are garbage once it is compiled.
 */
export class Lexer {
  private i: number;
  private line: number;
  private lineStart: number;
  private depth = 0;
  /** Starts at `offset`, the start of line `line` (a deferred rule's line: defer.ts). */
  constructor(
    private readonly src: string,
    offset = 0,
    line = 1,
  ) {
    this.i = offset;
    this.lineStart = offset;
    this.line = line;
  }

  done(): boolean {
    return this.i >= this.src.length;
  }

  /** Where the next item starts, when it starts a line outside braces; else -1. */
  lineAhead(): number {
    return this.i === this.lineStart && this.depth === 0 ? this.i : -1;
  }

  get lineNumber(): number {
    return this.line;
  }

  /** Moves past the line that ends at `end` (its newline, or the end of the source). */
  skipLine(end: number): void {
    this.i = end < this.src.length ? end + 1 : end;
    this.line++;
    this.lineStart = this.i;
  }

  /** Appends the tokens of the next item to `tokens`. */
  // eslint-disable-next-line max-lines-per-function -- the lexer's one state machine over nft's item syntax
  item(tokens: Token[], errors: LexError[]): void {
    const src = this.src;
    const n = src.length;
    const push = (kind: TokKind, text: string, start: number, end: number): void => {
      tokens.push({
        kind,
        text,
        offset: start,
        end,
        line: this.line,
        column: start - this.lineStart + 1,
      });
    };
    const pushWord = (w: string, start: number): void => {
      const last = w.charCodeAt(w.length - 1);
      if (w.length === 1 && (last === 58 || last === 46 || last === 61)) {
        push('punct', w, start, start + 1);
      } else if (w.length > 1 && last === 58 && !IPV6ISH.test(w)) {
        // `0:` before a verdict: the colon is punctuation.
        push('word', w.slice(0, -1), start, start + w.length - 1);
        push('punct', ':', start + w.length - 1, start + w.length);
      } else push('word', w, start, start + w.length);
    };
    while (this.i < n) {
      const i = this.i;
      const c = src.charCodeAt(i);
      const k = cls(c);
      if (k === 1) {
        this.i++;
        continue;
      }
      if (c === 10) {
        push('nl', '\n', i, i + 1);
        this.i++;
        this.line++;
        this.lineStart = this.i;
        if (this.depth === 0) return;
        continue;
      }
      if (c === 92 /* \ */ && (src[i + 1] === '\n' || src.startsWith('\r\n', i + 1))) {
        this.i += src[i + 1] === '\n' ? 2 : 3;
        this.line++;
        this.lineStart = this.i;
        continue;
      }
      if (c === 35 /* # */) {
        let j = src.indexOf('\n', i);
        if (j < 0) j = n;
        const m = /^#\s*handle\s+(\d+)\s*$/.exec(src.slice(i, j));
        if (m) push('handle', m[1] as string, i, j);
        this.i = j;
        continue;
      }
      if (c === 34 /* " */) {
        let j = i + 1;
        while (j < n && src[j] !== '"' && src[j] !== '\n') j++;
        if (j >= n || src[j] === '\n') {
          errors.push({
            line: this.line,
            column: i - this.lineStart + 1,
            message: 'this string has no closing quote',
          });
          push('string', src.slice(i + 1, j), i, j);
          this.i = j;
          continue;
        }
        push('string', src.slice(i + 1, j), i, j + 1);
        this.i = j + 1;
        continue;
      }
      if (k === 3) {
        const ch = src[i] as string;
        push('punct', ch, i, i + 1);
        this.i++;
        if (ch === '{') this.depth++;
        else if (ch === '}') this.depth = Math.max(0, this.depth - 1);
        else if (ch === ';' && this.depth === 0) return;
        continue;
      }
      // A word: up to space, newline, punctuation, a quote or a comment.
      let j = i;
      while (j < n && cls(src.charCodeAt(j)) === 0) j++;
      this.i = j;
      pushWord(src.slice(i, j), i);
    }
  }
}

/** All tokens of `src` at once. */
export function lex(src: string): { tokens: Token[]; errors: LexError[] } {
  const tokens: Token[] = [];
  const errors: LexError[] = [];
  const lx = new Lexer(src);
  while (!lx.done()) lx.item(tokens, errors);
  return { tokens, errors };
}
