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

const PUNCT = new Set(['{', '}', ';', ',', '(', ')', '|', '&', '^']);

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
}

/** Characters that end a word (besides space and newline). */
function endsWord(ch: string): boolean {
  return PUNCT.has(ch) || ch === '"' || ch === '#';
}

const IPV6ISH = /^\[?[0-9a-f:.]*::?[0-9a-f:.]*(\]|\/\d+)?$/i;

export function lex(src: string): { tokens: Token[]; errors: LexError[] } {
  const tokens: Token[] = [];
  const errors: LexError[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const n = src.length;
  const push = (
    kind: TokKind,
    text: string,
    start: number,
    end: number,
    l = line,
    ls = lineStart,
  ) => tokens.push({ kind, text, offset: start, end, line: l, column: start - ls + 1 });
  while (i < n) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 10) {
      push('nl', '\n', i, i + 1);
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === 92 /* \ */ && (src[i + 1] === '\n' || src.startsWith('\r\n', i + 1))) {
      i += src[i + 1] === '\n' ? 2 : 3;
      line++;
      lineStart = i;
      continue;
    }
    if (c === 35 /* # */) {
      let j = src.indexOf('\n', i);
      if (j < 0) j = n;
      const m = /^#\s*handle\s+(\d+)\s*$/.exec(src.slice(i, j));
      if (m) push('handle', m[1] as string, i, j);
      i = j;
      continue;
    }
    if (c === 34 /* " */) {
      const start = i;
      let j = i + 1;
      while (j < n && src[j] !== '"' && src[j] !== '\n') j++;
      if (j >= n || src[j] === '\n') {
        errors.push({
          line,
          column: start - lineStart + 1,
          message: 'this string has no closing quote',
        });
        push('string', src.slice(start + 1, j), start, j);
        i = j;
        continue;
      }
      push('string', src.slice(start + 1, j), start, j + 1);
      i = j + 1;
      continue;
    }
    const ch = src[i] as string;
    if (PUNCT.has(ch)) {
      push('punct', ch, i, i + 1);
      i++;
      continue;
    }
    // A word: up to space, newline, punctuation, a quote or a comment.
    const start = i;
    while (i < n) {
      const d = src.charCodeAt(i);
      if (isSpace(d) || d === 10 || endsWord(src[i] as string)) break;
      i++;
    }
    pushWord(src.slice(start, i), start);
  }
  return { tokens, errors };

  /** `:`, `.` and `=` alone are punctuation; `0:` before a verdict splits off its colon. */
  function pushWord(w: string, start: number): void {
    if (w === ':' || w === '.' || w === '=') {
      push('punct', w, start, start + 1);
      return;
    }
    if (w.length > 1 && w.endsWith(':') && !IPV6ISH.test(w)) {
      push('word', w.slice(0, -1), start, start + w.length - 1);
      push('punct', ':', start + w.length - 1, start + w.length);
      return;
    }
    push('word', w, start, start + w.length);
  }
}
