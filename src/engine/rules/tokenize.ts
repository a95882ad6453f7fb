/** Splits one iptables-restore line into words the way iptables-restore does (double quotes, `\"`). */

export interface Token {
  readonly text: string;
  /** 1-based column of the token's first character. */
  readonly column: number;
  /** The token was (at least partly) quoted, so `!` or `-x` inside it are plain text. */
  readonly quoted: boolean;
}

export type TokenizeResult =
  | { readonly ok: true; readonly tokens: Token[] }
  | { readonly ok: false; readonly column: number; readonly message: string };

export function tokenizeLine(line: string): TokenizeResult {
  const tokens: Token[] = [];
  let buf = '';
  let start = -1;
  let quoted = false;
  let inQuote = false;
  let quoteCol = 0;
  const flush = () => {
    if (start >= 0) tokens.push({ text: buf, column: start + 1, quoted });
    buf = '';
    start = -1;
    quoted = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (inQuote) {
      if (c === '\\' && i + 1 < line.length) {
        buf += line[++i];
      } else if (c === '"') {
        inQuote = false;
      } else {
        buf += c;
      }
      continue;
    }
    if (c === '"') {
      if (start < 0) start = i;
      inQuote = true;
      quoted = true;
      quoteCol = i + 1;
      continue;
    }
    if (c === ' ' || c === '\t') {
      flush();
      continue;
    }
    if (start < 0) start = i;
    buf += c;
  }
  if (inQuote) {
    return { ok: false, column: quoteCol, message: 'unterminated quote' };
  }
  flush();
  return { ok: true, tokens };
}

/** Quotes a word for iptables-save output when it contains blanks or quote characters. */
export function quoteWord(w: string): string {
  if (w !== '' && !/[\s"'\\]/.test(w)) return w;
  return `"${w.replace(/[\\"]/g, (m) => `\\${m}`)}"`;
}
