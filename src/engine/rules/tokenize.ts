/** Splits one iptables-restore line into words the way iptables-restore does (double quotes, `\"`). */

/**
 * The words of a line as parallel arrays (not one object per word: a 100k-rule dump has millions
 * of words, and per-word objects dominated parse time through garbage collection).
 */
export interface Tokens {
  readonly words: string[];
  /** 1-based column of each word's first character. */
  readonly cols: number[];
  /** 1 when the word was (at least partly) quoted, so `!` or `-x` inside it are plain text. */
  readonly quoted: number[];
  /** The line the words come from. */
  readonly line: string;
}

export type TokenizeResult =
  | ({ readonly ok: true } & Tokens)
  | { readonly ok: false; readonly column: number; readonly message: string };

export function tokenizeLine(line: string): TokenizeResult {
  const words: string[] = [];
  const cols: number[] = [];
  const quoted: number[] = [];
  const n = line.length;
  let i = 0;
  while (i < n) {
    let c = line.charCodeAt(i);
    if (c === 32 || c === 9) {
      i++;
      continue;
    }
    const start = i;
    // Fast path: a word without quotes is a slice of the line (no per-character concatenation,
    // which would build deep cons-strings and dominate memory on 100k-rule dumps).
    while (i < n && (c = line.charCodeAt(i)) !== 32 && c !== 9 && c !== 34) i++;
    if (i >= n || c !== 34) {
      words.push(line.slice(start, i));
      cols.push(start + 1);
      quoted.push(0);
      continue;
    }
    let text = line.slice(start, i);
    let quoteCol = 0;
    while (i < n) {
      c = line.charCodeAt(i);
      if (c === 32 || c === 9) break;
      if (c !== 34) {
        const from = i;
        while (i < n && (c = line.charCodeAt(i)) !== 32 && c !== 9 && c !== 34) i++;
        text += line.slice(from, i);
        continue;
      }
      quoteCol = i + 1;
      i++;
      let closed = false;
      let chunkStart = i;
      while (i < n) {
        c = line.charCodeAt(i);
        if (c === 92 && i + 1 < n) {
          text += line.slice(chunkStart, i) + line[i + 1];
          i += 2;
          chunkStart = i;
          continue;
        }
        if (c === 34) {
          text += line.slice(chunkStart, i);
          i++;
          closed = true;
          break;
        }
        i++;
      }
      if (!closed) return { ok: false, column: quoteCol, message: 'unterminated quote' };
    }
    words.push(text);
    cols.push(start + 1);
    quoted.push(1);
  }
  return { ok: true, words, cols, quoted, line };
}

/** Quotes a word for iptables-save output when it contains blanks or quote characters. */
export function quoteWord(w: string): string {
  if (w !== '' && !/[\s"'\\]/.test(w)) return w;
  return `"${w.replace(/[\\"]/g, (m) => `\\${m}`)}"`;
}
