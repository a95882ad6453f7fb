/** Splits one iptables-restore line into words the way iptables-restore does (double quotes, `\"`). */
import type { Interner } from './intern.ts';

/**
 * The words of the line being read, as parallel arrays that are reused from line to line: a
 * 100k-rule dump has millions of words, and per-word (or per-line) objects dominated parse time
 * through garbage collection. Only indexes below `count` belong to the current line.
 */
export class LineTokens {
  readonly words: string[] = [];
  /** 1-based column of each word's first character. */
  readonly cols: number[] = [];
  /** 1 when the word was (at least partly) quoted, so `!` or `-x` inside it are plain text. */
  readonly quoted: number[] = [];
  count = 0;
  /** The line the words come from. */
  line = '';
  /** An unterminated quote: its column and the message; null when the line read well. */
  error: { column: number; message: string } | null = null;
  /**
   * The line has no character that would make iptables-save quote a word (`'`, `\`, other
   * white space than a space or tab): its unquoted words need no per-word check.
   */
  private plain = false;

  constructor(private readonly interner: Interner | null = null) {}

  private push(word: string, col: number, quoted: number): void {
    const k = this.count++;
    this.words[k] = word;
    this.cols[k] = col;
    this.quoted[k] = quoted;
  }

  /**
   * Reads `line`; false (with `error`) on an unterminated quote. `plain`, when the caller knows
   * it, says the line has none of the characters that make iptables-save quote a word (see
   * `plainSpan`); unknown, the line is searched for them.
   */
  read(line: string, plain?: boolean): boolean {
    this.line = line;
    this.count = 0;
    this.error = null;
    this.plain = plain ?? !SPECIAL.test(line);
    // Words end at the next space, found natively with indexOf; only words with a quote (or
    // lines with a tab) take the character loop.
    if (line.indexOf('\t') >= 0) return this.readAll();
    const n = line.length;
    let quote = line.indexOf('"');
    let i = 0;
    while (i < n) {
      if (line.charCodeAt(i) === 32) {
        i++;
        continue;
      }
      let end = line.indexOf(' ', i);
      if (end < 0) end = n;
      if (quote >= 0 && quote < end) {
        // A word with a quote (kube-proxy's comments) is read character by character, and the
        // words after it the fast way again.
        i = this.readWord(i);
        if (i < 0) return false;
        quote = line.indexOf('"', i);
        continue;
      }
      this.push(this.interner?.find(line, i, end) ?? line.slice(i, end), i + 1, 0);
      i = end;
      if (quote >= 0 && quote < i) quote = line.indexOf('"', i);
    }
    return true;
  }

  /** The character loop over the whole line (a line with tabs). */
  private readAll(): boolean {
    const line = this.line;
    const n = line.length;
    let i = 0;
    while (i < n) {
      const c = line.charCodeAt(i);
      if (c === 32 || c === 9) {
        i++;
        continue;
      }
      i = this.readWord(i);
      if (i < 0) return false;
    }
    return true;
  }

  /**
   * Reads the word that starts at `start` (quotes, escapes; it ends at a blank outside quotes)
   * and returns where it ends; -1 (with `error`) on an unterminated quote.
   */
  private readWord(start: number): number {
    const line = this.line;
    const n = line.length;
    let i = start;
    let c = 0;
    // A word without quotes is a slice of the line (no per-character concatenation, which
    // would build deep cons-strings and dominate memory on 100k-rule dumps).
    while (i < n && (c = line.charCodeAt(i)) !== 32 && c !== 9 && c !== 34) i++;
    if (i >= n || c !== 34) {
      this.push(line.slice(start, i), start + 1, 0);
      return i;
    }
    let text = line.slice(start, i);
    while (i < n) {
      c = line.charCodeAt(i);
      if (c === 32 || c === 9) break;
      if (c !== 34) {
        const from = i;
        while (i < n && (c = line.charCodeAt(i)) !== 32 && c !== 9 && c !== 34) i++;
        text += line.slice(from, i);
        continue;
      }
      const quoteCol = i + 1;
      i++;
      // The quoted part up to the closing quote, escapes aside.
      let chunkStart = i;
      let closed = false;
      while (i < n) {
        c = line.charCodeAt(i);
        if (c === 92 && i + 1 < n) {
          text += line.slice(chunkStart, i) + line[i + 1];
          i += 2;
          chunkStart = i;
          continue;
        }
        if (c === 34 || c === 92) {
          text += line.slice(chunkStart, i);
          i++;
          closed = true;
          break;
        }
        i++;
      }
      if (!closed) {
        this.error = { column: quoteCol, message: 'unterminated quote' };
        return -1;
      }
    }
    this.push(text, start + 1, 1);
    return i;
  }

  /** Whether word `i` is an option: starts with `-`, is not quoted, is not a negative number. */
  isOption(i: number): boolean {
    if (i >= this.count || this.quoted[i] === 1) return false;
    const w = this.words[i] as string;
    if (w.length < 2 || w.charCodeAt(0) !== 45) return false;
    const c = w.charCodeAt(1);
    return c < 48 || c > 57;
  }

  /** Whether word `i` is an unquoted `!`. */
  isBang(i: number): boolean {
    return i < this.count && this.words[i] === '!' && this.quoted[i] !== 1;
  }

  /** Word `i` is quoted exactly when iptables-save would quote it (and then without escapes). */
  canonicalQuoting(i: number): boolean {
    const w = this.words[i] as string;
    const quoted = this.quoted[i] === 1;
    if (!quoted && this.plain) return true;
    // Whether iptables-save quotes it (blanks, quote characters), and whether it would escape a
    // character in it; a character loop, as a regular expression with \s cost several times more.
    let needs = w === '';
    let escapes = false;
    for (let k = 0; k < w.length; k++) {
      const c = w.charCodeAt(k);
      if (c === 34 || c === 92) {
        needs = escapes = true;
        break;
      }
      if (c === 39 || isWhiteSpace(c)) needs = true;
    }
    if (!quoted) return !needs;
    const col = (this.cols[i] as number) - 1;
    return (
      needs &&
      !escapes &&
      this.line.charCodeAt(col) === 34 &&
      this.line.charCodeAt(col + w.length + 1) === 34
    );
  }

  /** Every word one space after the previous, nothing before the first or after the last. */
  evenlySpaced(): boolean {
    const n = this.count;
    if (n === 0 || this.cols[0] !== 1) return n === 0;
    let end = 0;
    for (let i = 0; i < n; i++) {
      const col = this.cols[i] as number;
      if (i > 0 && col !== end + 2) return false;
      end = col - 1 + (this.words[i] as string).length + (this.quoted[i] === 1 ? 2 : 0);
    }
    return end === this.line.length;
  }
}

/**
 * Characters other than space, tab and `"` that make iptables-save quote a word: `'`, `\` and
 * white space (`\s`) but space and tab, the class written out. With `\S` in the class, as
 * `[^\S \t]`, a search of an 18 MB dump took five times longer (145 ms against 30).
 */
export const SPECIAL = /[\n\v\f\r'\\\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
/** The same characters but the line break, searched for across a whole text. */
const SPECIAL_IN_TEXT = /[\v\f\r'\\\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/g;

/** Whether UTF-16 code unit `c` is white space as `\s` means it. */
export function isWhiteSpace(c: number): boolean {
  if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Which lines of one text are plain (LineTokens.read's `plain`), for a reader that goes through
 * the text forward: the text is searched once for the next special character, not each line
 * (searching each line of a dump took 6 % of its parse). A span behind the search is searched
 * on its own.
 */
export class PlainSpans {
  /** No special character in [from, next); `next` is one, or the text's length. */
  private from = 0;
  private next = -1;

  constructor(private readonly text: string) {}

  /** Whether `text[start, end)` has no special character. */
  plain(start: number, end: number): boolean {
    if (start < this.from) return !SPECIAL.test(this.text.slice(start, end));
    if (start > this.next) {
      SPECIAL_IN_TEXT.lastIndex = start;
      const m = SPECIAL_IN_TEXT.exec(this.text);
      this.from = start;
      this.next = m ? m.index : this.text.length;
    }
    return end <= this.next;
  }
}

/** Quotes a word for iptables-save output when it contains blanks or quote characters. */
export function quoteWord(w: string): string {
  if (w !== '' && !/[\s"'\\]/.test(w)) return w;
  return `"${w.replace(/[\\"]/g, (m) => `\\${m}`)}"`;
}
