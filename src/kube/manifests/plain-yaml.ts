/**
 * A fast reader for the plain shape most manifests have: block maps and lists indented with
 * spaces, one-line flow collections (`{ app: web }`, `[a, b]`), plain and one-line quoted scalars,
 * literal block scalars (`|`, `|-`: a scenario's manifests, a node's rules).
 * It gives the values `yaml` gives (a property test compares them) about twenty times faster, so a
 * pasted 5,000-Service cluster is read in a fraction of a second. It declines (returns
 * `undefined`) at the first thing outside that shape or anything `yaml` would report: anchors,
 * tags, folded and multi-line scalars, escapes, tabs, duplicate keys, odd indentation. Then `yaml`
 * reads the document, and it always gives the positions of problems.
 *
 * Plain scalars are resolved by the `yaml` library's own YAML 1.2 core schema tags (null, bool,
 * int, float), the ones `parseAllDocuments` uses by default, so `0x1F`, `1e3` and `~` mean here
 * exactly what they mean there.
 */
import { Schema, isScalar, type ScalarTag } from 'yaml';

/** Thrown (and caught below) when the text leaves the plain shape. */
const DECLINE = Symbol('decline');

const plainTags = new Schema({}).tags.filter(
  (t): t is ScalarTag => t.default === true && !('collection' in t && t.collection) && !!t.test,
);
const resolveOptions = { intAsBigInt: false };

const cache = new Map<string, unknown>();

/** A character past U+00FF: a string holding one is kept in two bytes a character. */
const WIDE = /[\u0100-\uffff]/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `text`, copied into V8's one-byte form when no character needs two bytes. A slice of a string
 * that holds one wide character (a scenario with a Chinese description) is two bytes a character
 * whatever it holds, and so is everything it is joined into: the 2.6 MB manifests of a
 * 5,000-Service scenario, every name read from them, the rules generated with those names (5.8
 * and 8.8 MB of iptables and nft text instead of 2.9 and 4.4). The copy (a UTF-8 round trip:
 * V8 keeps decoded text in one byte when it can) took 20 ms for those manifests; `hookpath run` on
 * them needs 26 MB less memory (240 instead of 266 MB); with the veth names' hashing (topology.ts),
 * ~0.1 s less of its ~1.9 s.
 * A text that is already one byte a character is copied too (JavaScript cannot tell): 24 ms over
 * a 5,000-Service scenario's 10,000 pieces, paid only for pieces not read before.
 */
export function narrowed(text: string): string {
  return WIDE.test(text) ? text : oneByte(text);
}

/** A copy of `text`, which holds no wide character, in one byte a character. */
function oneByte(text: string): string {
  return decoder.decode(encoder.encode(text));
}

/**
 * Whether a plain scalar starting with `c` can only be a string: every non-string tag of the core
 * schema starts with `~`, `n`, `N`, `t`, `T`, `f`, `F`, a digit, a sign or `.` (see their tests).
 */
function onlyString(c: number): boolean {
  const lower = c | 32;
  return lower >= 97 && lower <= 122 && lower !== 110 && lower !== 116 && lower !== 102;
}

function resolvePlain(s: string): unknown {
  // Names (`app-4711`, `http`) are most scalars: no tag to test, nothing to remember.
  if (onlyString(s.charCodeAt(0))) return s;
  const hit = cache.get(s);
  if (hit !== undefined || cache.has(s)) return hit;
  let v: unknown = s;
  for (const tag of plainTags) {
    if (!tag.test?.test(s)) continue;
    const r: unknown = tag.resolve(
      s,
      () => {
        throw DECLINE;
      },
      resolveOptions as never,
    );
    v = isScalar(r) ? r.value : r;
    break;
  }
  // Words and numbers repeat across thousands of documents (`http`, `80`, `TCP`).
  if (cache.size < 50_000) cache.set(s, v);
  return v;
}

const SPACE = 32;
const HASH = 35;
const COLON = 58;
const DASH = 45;

/** What `yaml`'s toJS makes of a key for a plain object. */
function keyString(v: unknown): string {
  return v === null ? '' : String(v);
}

interface Line {
  /** Offset of the first character after the indentation (moved past `- ` of list items). */
  start: number;
  /** Offset after the last non-space character. */
  end: number;
  indent: number;
}

class PlainReader {
  private i = 0;
  /** Collections open around the one being read (block and flow alike). */
  private depth = 0;
  /**
   * Content lines, split as the reader reaches them: a block scalar's lines are text, never
   * split (a scenario's 2.6 MB `manifests: |` is 140,000 of them).
   */
  private readonly lines: Line[] = [];
  /** Where the next line to split starts. */
  private scan = 0;
  /** Where the flow item or collection just read ends. */
  private after = 0;

  constructor(
    private readonly s: string,
    /** Deeper than this is `yaml`'s to read, which reports it where it happens. */
    private readonly maxDepth: number,
    /** The text holds a wide character: each string read from it is narrowed on its own. */
    private readonly wide: boolean,
  ) {}

  /** The text between `a` and `b`, one byte a character when it can be (see `narrowed`). */
  private slice(a: number, b: number): string {
    const t = this.s.slice(a, b);
    return this.wide ? narrowed(t) : t;
  }

  /** Line `i`, split from the text if not yet; undefined past the last one. */
  private line(i: number): Line | undefined {
    while (this.lines.length <= i && this.scan < this.s.length)
      this.scan = nextLine(this.s, this.scan, this.lines);
    return this.lines[i];
  }

  /** Opens a collection (closed by `this.depth--`); no closure, as this runs per collection. */
  private enter(): void {
    if (++this.depth > this.maxDepth) throw DECLINE;
  }

  read(): unknown {
    const first = this.line(0);
    if (!first) throw DECLINE;
    const v = this.node();
    if (this.line(this.i)) throw DECLINE;
    return v;
  }

  private get cur(): Line | undefined {
    return this.line(this.i);
  }

  private isItem(l: Line): boolean {
    const s = this.s;
    return (
      s.charCodeAt(l.start) === DASH &&
      (l.start + 1 === l.end || s.charCodeAt(l.start + 1) === SPACE)
    );
  }

  /** The block node that starts at the current line, at that line's indentation. */
  private node(): unknown {
    const l = this.cur as Line;
    const item = this.isItem(l);
    if (item || this.keyEnd(l) >= 0) {
      this.enter();
      const v = item ? this.list(l.indent) : this.map(l.indent);
      this.depth--;
      return v;
    }
    const v = this.inline(l.start, l.end, l.indent);
    this.i++;
    return v;
  }

  private list(indent: number): unknown[] {
    const out: unknown[] = [];
    const s = this.s;
    for (let l = this.cur; l && l.indent === indent && this.isItem(l); l = this.cur) {
      let p = l.start + 1;
      while (p < l.end && s.charCodeAt(p) === SPACE) p++;
      if (p === l.end || s.charCodeAt(p) === HASH) {
        this.i++;
        const next = this.cur;
        out.push(next && next.indent > indent ? this.node() : null);
      } else {
        // `- key: value` opens a map whose keys line up with `key`: treat the dash as indentation.
        l.indent = p - l.start + l.indent;
        l.start = p;
        out.push(this.node());
      }
      const next = this.cur;
      if (next && next.indent > indent) throw DECLINE;
    }
    Object.freeze(out);
    return out;
  }

  private map(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const s = this.s;
    for (let l = this.cur; l && l.indent === indent; l = this.cur) {
      const colon = this.keyEnd(l);
      if (colon < 0) throw DECLINE;
      const key = keyString(this.scalarAt(l.start, colon));
      if (key === '__proto__' || Object.prototype.hasOwnProperty.call(out, key)) throw DECLINE;
      let p = colon + 1;
      while (p < l.end && s.charCodeAt(p) === SPACE) p++;
      let v: unknown;
      if (p === l.end || s.charCodeAt(p) === HASH) {
        this.i++;
        const next = this.cur;
        if (next && next.indent > indent) v = this.node();
        else if (next && next.indent === indent && this.isItem(next)) {
          this.enter();
          v = this.list(indent);
          this.depth--;
        } else v = null;
      } else {
        v = this.inline(p, l.end, indent);
        this.i++;
      }
      const next = this.cur;
      if (next && next.indent > indent) throw DECLINE;
      out[key] = v;
    }
    Object.freeze(out);
    return out;
  }

  /** The offset of the `:` ending a simple or quoted key at the line's start, or -1. */
  private keyEnd(l: Line): number {
    const s = this.s;
    let p = l.start;
    const c = s.charCodeAt(p);
    if (c === 34 || c === 39) {
      p = this.quotedEnd(p, l.end);
    } else {
      if (!isKeyStart(c)) return -1;
      while (p < l.end && isKeyChar(s.charCodeAt(p))) p++;
      // `yaml` limits implicit keys to 1024 characters.
      if (p - l.start > 1000) throw DECLINE;
    }
    if (s.charCodeAt(p) !== COLON) return -1;
    return p + 1 === l.end || s.charCodeAt(p + 1) === SPACE ? p : -1;
  }

  /** A key or flow scalar between `a` and `b` (already trimmed). */
  private scalarAt(a: number, b: number): unknown {
    const c = this.s.charCodeAt(a);
    if (c === 34 || c === 39) {
      if (this.quotedEnd(a, b) !== b) throw DECLINE;
      return this.quoted(a, b);
    }
    return resolvePlain(this.slice(a, b));
  }

  /** Offset after the closing quote of the quoted scalar at `a`. */
  private quotedEnd(a: number, end: number): number {
    const s = this.s;
    const q = s.charCodeAt(a);
    for (let p = a + 1; p < end; p++) {
      const c = s.charCodeAt(p);
      // Escapes are left to `yaml`.
      if (c === 92 && q === 34) throw DECLINE;
      if (c !== q) continue;
      if (q === 39 && s.charCodeAt(p + 1) === 39) {
        p++;
        continue;
      }
      return p + 1;
    }
    throw DECLINE;
  }

  private quoted(a: number, b: number): string {
    const body = this.slice(a + 1, b - 1);
    return this.s.charCodeAt(a) === 39 ? body.replaceAll("''", "'") : body;
  }

  /**
   * The value after `key: ` or `- `, up to the end of its line (a block scalar: of its last line).
   * `parent`: the indentation a block scalar's lines must go deeper than.
   */
  private inline(a: number, end: number, parent: number): unknown {
    const s = this.s;
    const c = s.charCodeAt(a);
    let v: unknown;
    let p: number;
    if (c === 124 || c === 62) return this.blockScalar(a, end, parent);
    if (c === 123 || c === 91) {
      this.enter();
      v = this.flow(a, end);
      this.depth--;
      p = this.after;
    } else if (c === 34 || c === 39) {
      p = this.quotedEnd(a, end);
      v = this.quoted(a, p);
    } else {
      if (!isPlainStart(s, a, end)) throw DECLINE;
      const e0 = commentStart(s, a, end);
      let e = e0 < 0 ? end : e0;
      while (e > a && s.charCodeAt(e - 1) === SPACE) e--;
      const text = this.slice(a, e);
      if (text.includes(': ') || text.endsWith(':')) throw DECLINE;
      return resolvePlain(text);
    }
    restIsComment(s, p, end);
    return v;
  }

  /**
   * A block scalar: literal (`|`) or folded (`>`), with one final line break or none (`-`), its
   * indentation that of its first non-empty line. Leaves the reader on its last content line.
   */
  private blockScalar(a: number, end: number, parent: number): string {
    const s = this.s;
    const folded = s.charCodeAt(a) === 62;
    const strip = s.charCodeAt(a + 1) === DASH;
    restIsComment(s, a + (strip ? 2 : 1), end);
    let p = s.indexOf('\n', a);
    if (p < 0) throw DECLINE;
    p++;
    const first = p;
    /** End of the last line with content: empty lines after it are not part of the text. */
    let last = -1;
    let n = -1;
    let leading = 0;
    while (p < s.length) {
      const e = s.indexOf('\n', p);
      // A block running to the end of the text without a line break: left to `yaml`.
      if (e < 0) throw DECLINE;
      let k = p;
      while (k < e && s.charCodeAt(k) === SPACE) k++;
      const spaces = k - p;
      if (k === e) {
        // An empty line: part of the text; spaces past the indentation would be content.
        if (n < 0) leading = Math.max(leading, spaces);
        else if (spaces > n) throw DECLINE;
      } else {
        if (n < 0) {
          n = spaces;
          if (n <= parent || leading > n) throw DECLINE;
        }
        if (spaces < n) break;
        // Folding keeps more-indented lines as they are: left to `yaml`.
        if (folded && spaces > n) throw DECLINE;
        last = e;
      }
      p = e + 1;
    }
    if (n < 0) throw DECLINE;
    // Tabs, carriage returns and control characters were declined before reading (readPlainYaml).
    // Narrowed before its lines are dedented: a one-byte subject makes a one-byte result.
    const raw = this.slice(first, last);
    // Every line with content is indented by at least n, every empty one by at most n.
    const lines = raw.replace(dedent(n), '');
    if (folded && lines.startsWith('\n')) throw DECLINE;
    // The lines inside the scalar are text, not structure: splitting goes on after them.
    this.lines.length = this.i + 1;
    this.scan = p;
    const body = folded ? fold(lines.split('\n')) : lines;
    return strip ? body : `${body}\n`;
  }

  /**
   * A one-line flow map or list at `a`; nested ones allowed. `after` is left past its end (as by
   * `flowItem`): no result object per item.
   */
  private flow(a: number, end: number): unknown {
    const s = this.s;
    const isMap = s.charCodeAt(a) === 123;
    const close = isMap ? 125 : 93;
    const obj: Record<string, unknown> | null = isMap ? {} : null;
    const arr: unknown[] | null = isMap ? null : [];
    let p = skipSpaces(s, a + 1, end);
    if (s.charCodeAt(p) === close) p++;
    else
      for (;;) {
        const k = this.flowItem(p, end);
        p = skipSpaces(s, this.after, end);
        if (obj) {
          if (s.charCodeAt(p) !== COLON) throw DECLINE;
          const key = keyString(k);
          if (key === '__proto__' || Object.prototype.hasOwnProperty.call(obj, key)) throw DECLINE;
          obj[key] = this.flowItem(skipSpaces(s, p + 1, end), end);
          p = skipSpaces(s, this.after, end);
        } else {
          if (s.charCodeAt(p) === COLON) throw DECLINE;
          (arr as unknown[]).push(k);
        }
        const c = s.charCodeAt(p);
        if (c === close) {
          p++;
          break;
        }
        if (c !== 44) throw DECLINE;
        p = skipSpaces(s, p + 1, end);
        // A trailing comma, an empty entry: left to `yaml`.
        if (s.charCodeAt(p) === close || s.charCodeAt(p) === 44) throw DECLINE;
      }
    this.after = p;
    return Object.freeze(obj ?? (arr as unknown[]));
  }

  /** A flow collection's key or value at `a`; leaves `after` past its end. */
  private flowItem(a: number, end: number): unknown {
    const s = this.s;
    const c = s.charCodeAt(a);
    if (c === 123 || c === 91) {
      this.enter();
      const v = this.flow(a, end);
      this.depth--;
      return v;
    }
    if (c === 34 || c === 39) {
      this.after = this.quotedEnd(a, end);
      return this.quoted(a, this.after);
    }
    if (!isPlainStart(s, a, end) || c === COLON) throw DECLINE;
    // In a flow, `-` must be followed by a character a plain scalar may hold there.
    if (c === DASH && ',[]{}'.includes(s[a + 1] as string)) throw DECLINE;
    let p = a;
    for (; p < end; p++) {
      const d = s.charCodeAt(p);
      if (d === 44 || d === 91 || d === 93 || d === 123 || d === 125) break;
      if (d === HASH && s.charCodeAt(p - 1) === SPACE) throw DECLINE;
      if (d === COLON) {
        const n = s.charCodeAt(p + 1);
        if (p + 1 === end || n === SPACE || n === 44 || n === 93 || n === 125) break;
      }
    }
    let e = p;
    while (e > a && s.charCodeAt(e - 1) === SPACE) e--;
    if (e === a) throw DECLINE;
    this.after = e;
    return resolvePlain(this.slice(a, e));
  }
}

/**
 * Folds the lines of a `>` scalar (none more indented, none empty at either end): a line break
 * between two lines becomes a space, each empty line between them a line break.
 */
function fold(lines: readonly string[]): string {
  let out = lines[0] ?? '';
  let empty = 0;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l === '') {
      empty++;
      continue;
    }
    out += empty ? '\n'.repeat(empty) : ' ';
    out += l;
    empty = 0;
  }
  return out;
}

function skipSpaces(s: string, p: number, end: number): number {
  while (p < end && s.charCodeAt(p) === SPACE) p++;
  return p;
}

/**
 * Where ` #` (a comment after a plain scalar) starts in `s[a, end)`, or -1. Searched within the
 * line: `indexOf` from `a` ran on to the next ` #` anywhere in the text, for every plain scalar,
 * so a scenario with a 2.6 MB `manifests: |` block below its other fields took ~80 ms to read.
 */
function commentStart(s: string, a: number, end: number): number {
  for (let p = a + 1; p < end; p++)
    if (s.charCodeAt(p) === HASH && s.charCodeAt(p - 1) === SPACE) return p - 1;
  return -1;
}

function restIsComment(s: string, p: number, end: number): void {
  if (p === end) return;
  if (s.charCodeAt(p) !== SPACE) throw DECLINE;
  p = skipSpaces(s, p, end);
  if (p < end && s.charCodeAt(p) !== HASH) throw DECLINE;
}

/** Letters, digits and `_` start a simple key; `-` `.` `/` may follow (label keys). */
function isKeyStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

function isKeyChar(c: number): boolean {
  return isKeyStart(c) || c === DASH || c === 46 || c === 47;
}

/** Characters that may not start a plain scalar (YAML 1.2, c-indicator), `-?:` before a space. */
function isPlainStart(s: string, a: number, end: number): boolean {
  const c = s.charCodeAt(a);
  if ('&*!|>\'"%@`,[]{}#'.includes(s[a] as string)) return false;
  // `-1` is a number; `?x` and `:x` are left to `yaml`.
  if (c === DASH) return a + 1 < end && s.charCodeAt(a + 1) !== SPACE;
  return c !== 63 && c !== COLON;
}

/** Characters the plain reader leaves to `yaml` (a line break aside), tested once per text. */
// Control characters are what this expression is for.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f\ufeff]/;

const dedents = new Map<number, RegExp>();
/** Removes up to `n` spaces at the start of every line. */
function dedent(n: number): RegExp {
  let r = dedents.get(n);
  if (!r) dedents.set(n, (r = new RegExp(`^ {0,${n}}`, 'gm')));
  return r;
}

/**
 * Splits the line at `p` into `into` when it has content; returns where the next line starts.
 * Declines for directives and document markers past the first line (control characters were
 * declined before reading).
 */
function nextLine(s: string, p: number, into: Line[]): number {
  let e = s.indexOf('\n', p);
  if (e < 0) e = s.length;
  let a = p;
  while (a < e && s.charCodeAt(a) === SPACE) a++;
  let b = e;
  while (b > a && s.charCodeAt(b - 1) === SPACE) b--;
  const c = s.charCodeAt(a);
  if (
    a === p &&
    (c === 37 || ((c === DASH || c === 46) && s.startsWith(c === DASH ? '---' : '...', a)))
  ) {
    // `---` opens the piece (splitStream puts it first); anything after it is left to `yaml`.
    if (p !== 0 || c !== DASH) throw DECLINE;
    const after = skipSpaces(s, a + 3, b);
    if (after < b && (after === a + 3 || s.charCodeAt(after) !== HASH)) throw DECLINE;
  } else if (a < b && c !== HASH) {
    into.push({ start: a, end: b, indent: a - p });
  }
  return e + 1;
}

/**
 * The value of a one-document piece in the plain shape, or `undefined` when `yaml` must read it
 * (including pieces with no content, whose document count `yaml` decides).
 */
export function readPlainYaml(text: string, maxDepth = 100): unknown {
  // Tabs, carriage returns, control characters, a byte-order mark: anywhere, left to `yaml`.
  if (CONTROL.test(text)) return undefined;
  const wide = WIDE.test(text);
  try {
    return new PlainReader(wide ? text : oneByte(text), maxDepth, wide).read();
  } catch (e) {
    if (e === DECLINE) return undefined;
    throw e;
  }
}
