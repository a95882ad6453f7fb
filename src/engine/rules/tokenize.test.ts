/**
 * PlainSpans: the parser learns whether a line needs iptables-save's quoting check from one
 * search of the whole text; it must say exactly what searching each line said.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWhiteSpace, LineTokens, PlainSpans, SPECIAL } from './tokenize.ts';

/** The per-line answer it replaces: none of these characters in the line. */
const perLine = (line: string) => !/[^\S \t]|['\\]/.test(line);

const char = fc.constantFrom('a', '-', ' ', ' ', '\t', '"', "'", '\\', '\r', '\u00a0', '\n', '\n');

/** Every line of `text` as [start, end) without its line break. */
function lines(text: string): [number, number][] {
  const out: [number, number][] = [];
  let p = 0;
  for (;;) {
    const nl = text.indexOf('\n', p);
    out.push([p, nl < 0 ? text.length : nl]);
    if (nl < 0) return out;
    p = nl + 1;
  }
}

describe('the written-out character classes', () => {
  it('isWhiteSpace is \\s, and SPECIAL is [^\\S \\t] or a quote or backslash, for every code unit', () => {
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (isWhiteSpace(c) !== /\s/.test(ch)) wrong.push(`isWhiteSpace U+${c.toString(16)}`);
      if (SPECIAL.test(ch) !== /[^\S \t]|['\\]/.test(ch)) wrong.push(`SPECIAL U+${c.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('canonicalQuoting', () => {
  // iptables-save quotes a word with white space or a quote character, and escapes " and \.
  const cases: [string, boolean][] = [
    ['-m comment --comment abc', true],
    ['-m comment --comment "abc"', false],
    ['-m comment --comment "a b"', true],
    ['-m comment --comment a\u2003b', false],
    ['-m comment --comment "a\u2003b"', true],
    ['-m comment --comment "it\'s"', true],
    ["-m comment --comment it's", false],
    ['-m comment --comment "a\\"b"', false],
    ['-m comment --comment ""', true],
  ];
  it.each(cases)('%s: %s', (line, canonical) => {
    const tk = new LineTokens();
    expect(tk.read(line)).toBe(true);
    expect(tk.canonicalQuoting(3)).toBe(canonical);
  });

  /** The definition: quoted exactly when needed, between plain quotes, nothing escaped. */
  function reference(tk: LineTokens, i: number): boolean {
    const w = tk.words[i] as string;
    const needs = w === '' || /[\s"'\\]/.test(w);
    if (tk.quoted[i] !== 1) return !needs;
    const col = (tk.cols[i] as number) - 1;
    return needs && !/["\\]/.test(w) && tk.line[col] === '"' && tk.line[col + w.length + 1] === '"';
  }

  it('agrees with its definition on random lines', () => {
    const unit = fc.constantFrom(
      'a',
      ' ',
      ' ',
      '"',
      '"',
      "'",
      '\\',
      '\t',
      '\u00a0',
      '\u3000',
      '\r',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (chars) => {
        const tk = new LineTokens();
        if (!tk.read(chars.join(''))) return;
        for (let i = 0; i < tk.count; i++) expect(tk.canonicalQuoting(i)).toBe(reference(tk, i));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('PlainSpans', () => {
  it('answers each line, read forward, as searching the line does', () => {
    fc.assert(
      fc.property(fc.array(char, { maxLength: 200 }), (chars) => {
        const text = chars.join('');
        const spans = new PlainSpans(text);
        for (const [s, e] of lines(text))
          expect(spans.plain(s, e), JSON.stringify(text.slice(s, e))).toBe(
            perLine(text.slice(s, e)),
          );
      }),
      { numRuns: 500 },
    );
  });

  it('answers parts of lines in any order (deferred chains are read again later)', () => {
    fc.assert(
      fc.property(
        fc.array(char, { minLength: 1, maxLength: 120 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 30 }),
        (chars, picks) => {
          const text = chars.join('');
          const all = lines(text);
          const spans = new PlainSpans(text);
          for (const [a, b] of picks) {
            const [s, e] = all[a % all.length] as [number, number];
            // A part of the line from some offset to its end, as chainLine's and -A's are.
            const from = s + (e > s ? b % (e - s + 1) : 0);
            expect(spans.plain(from, e)).toBe(perLine(text.slice(from, e)));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a line with a non-breaking space checks its words for quoting', () => {
    const text = '-A X -j ACCEPT\n-A X -m comment --comment a\u00a0b -j ACCEPT\n';
    const spans = new PlainSpans(text);
    const tk = new LineTokens();
    const second = text.indexOf('\n') + 1;
    const line2 = text.slice(second, text.length - 1);
    expect(spans.plain(0, second - 1)).toBe(true);
    tk.read(line2, spans.plain(second, text.length - 1));
    // iptables-save would have quoted "a\u00a0b": the unquoted word is not canonical.
    expect(tk.canonicalQuoting(tk.words.indexOf('a\u00a0b'))).toBe(false);
  });
});
