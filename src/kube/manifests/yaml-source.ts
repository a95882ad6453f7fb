/**
 * Multi-document YAML with source positions: every value can be traced back to line and column,
 * so problems are reported where the user typed them.
 */
import {
  CST,
  Composer,
  Lexer,
  LineCounter,
  Parser,
  YAMLParseError,
  isMap,
  isScalar,
  isSeq,
  visit,
  type Document,
  type Node,
} from 'yaml';
import { narrowed, readPlainYaml } from './plain-yaml.ts';

export interface Span {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export const NO_SPAN: Span = { line: 0, column: 0, endLine: 0, endColumn: 0 };

export interface SourceDoc {
  /** 0-based index of the document in the stream. */
  readonly index: number;
  readonly value: unknown;
  /** The document with its positions; composed by `yaml` only when it is first read. */
  readonly doc: Document.Parsed;
  /** Position of a field path (keys and indices) or of the nearest existing parent. */
  span(path: readonly (string | number)[], key?: boolean): Span;
}

export interface YamlProblem {
  readonly span: Span;
  readonly message: string;
}

export interface ParsedStream {
  readonly docs: SourceDoc[];
  readonly problems: YamlProblem[];
}

export function spanOf(
  lc: LineCounter,
  range: readonly [number, number, number?] | null | undefined,
): Span {
  if (!range) return NO_SPAN;
  const a = lc.linePos(range[0]);
  const b = lc.linePos(range[1]);
  return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
}

/**
 * What any YAML a user gives (scenario files, manifests, host files) may hold. A few hundred
 * bytes of nested brackets or aliases can otherwise take minutes or all memory.
 */
export const YAML_LIMITS = {
  /** Characters of text: a 5,000-Service scenario is about 3 MB. */
  maxChars: 8 * 1024 * 1024,
  /** Collections inside collections (Kubernetes manifests need about 12). */
  maxDepth: 100,
  /** Alias expansions per document (yaml's `maxAliasCount`): stops "billion laughs". */
  maxAliasCount: 100,
};

function sizeText(chars: number): string {
  return chars >= 1024 * 1024
    ? `${(chars / 1024 / 1024).toFixed(1)} MB`
    : `${Math.ceil(chars / 1024)} KB`;
}

/**
 * The deepest collection nesting of a parsed (CST) document, and where it is; iterative, so a
 * document of 100,000 nested brackets is measured without recursion.
 */
function deepest(token: CST.Token): { depth: number; offset: number } {
  let best = { depth: 0, offset: token.offset };
  const stack: [CST.Token, number][] = [[token, 0]];
  while (stack.length) {
    const [t, d] = stack.pop() as [CST.Token, number];
    if (t.type === 'document') {
      if (t.value) stack.push([t.value, d]);
      continue;
    }
    if (t.type !== 'block-map' && t.type !== 'block-seq' && t.type !== 'flow-collection') continue;
    if (d + 1 > best.depth) best = { depth: d + 1, offset: t.offset };
    if (d + 1 > YAML_LIMITS.maxDepth) break;
    for (const it of t.items) {
      if (it.key) stack.push([it.key, d + 1]);
      if (it.value) stack.push([it.value, d + 1]);
    }
  }
  return best;
}

/**
 * Lexes, parses and composes step by step so nesting is checked before composing, whose
 * recursion a deep document exhausts (100,000 `[` crash yaml's parseAllDocuments); flow brackets
 * are counted as they are read, so they stop after the first hundred.
 */
function composeBounded(text: string, lc: LineCounter): Document.Parsed[] | { tooDeep: number } {
  const parser = new Parser(lc.addNewLine);
  const tokens: CST.Token[] = [];
  let flow = 0;
  lc.addNewLine(0); // as Parser.parse does before its first token
  for (const lexeme of new Lexer().lex(text)) {
    const type = CST.tokenType(lexeme);
    if (type === 'flow-map-start' || type === 'flow-seq-start') {
      if (++flow > YAML_LIMITS.maxDepth) return { tooDeep: parser.offset };
    } else if (type === 'flow-map-end' || type === 'flow-seq-end') flow = Math.max(0, flow - 1);
    else if (type === 'doc-start' || type === 'doc-end') flow = 0;
    for (const t of parser.next(lexeme)) tokens.push(t);
  }
  for (const t of parser.end()) tokens.push(t);
  for (const t of tokens) {
    const d = deepest(t);
    if (d.depth > YAML_LIMITS.maxDepth) return { tooDeep: d.offset };
  }
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  const docs = [...composer.compose(tokens)] as Document.Parsed[];
  for (const doc of docs) checkUniqueKeys(doc);
  return docs;
}

/**
 * `yaml`'s own check that a map's keys are unique (`uniqueKeys: true`) compares each key with
 * every key before it: a 10,000-key map the fast reader leaves to `yaml` (a tab after a colon is
 * enough) took 1.5 s, 50,000 keys 46 s. The same check by a set per map, in linear time, with the
 * same errors: DUPLICATE_KEY, "Map keys must be unique", at the key. Keys are equal as `yaml`
 * compares them (mapIncludes): scalars by value (`===`, so NaN never repeats), others by node.
 */
function checkUniqueKeys(doc: Document.Parsed): void {
  const repeated: YAMLParseError[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        const v: unknown = isScalar(key) ? key.value : key;
        if (typeof v === 'number' && Number.isNaN(v)) continue;
        if (!seen.has(v)) {
          seen.add(v);
          continue;
        }
        const at = (isScalar(key) || isMap(key) || isSeq(key) ? key.range?.[0] : undefined) ?? 0;
        repeated.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
      }
    },
  });
  if (!repeated.length) return;
  // In text order among yaml's own errors, as yaml reports them (a map is visited before the
  // maps inside it, which come first in the text). The sort is stable.
  doc.errors.push(...repeated);
  doc.errors.sort((a, b) => a.pos[0] - b.pos[0]);
}

/** Where the first alias of a document is: an alias bomb is reported there. */
function firstAlias(lc: LineCounter, doc: Document.Parsed): Span {
  let at: Span = spanOf(lc, doc.contents?.range ?? null);
  visit(doc, {
    Alias(_, node) {
      at = spanOf(lc, node.range);
      return visit.BREAK;
    },
  });
  return at;
}

/** A document as `yaml` composed it, with the line counter of its piece. */
interface Composed {
  readonly doc: Document.Parsed;
  readonly lc: LineCounter;
}

interface PieceDoc {
  readonly value: unknown;
  /** The document with its positions; composed only when a position is asked for. */
  composed(): Composed;
}

/** One piece of a stream, parsed on its own; positions are relative to the piece's first line. */
interface ParsedPiece {
  readonly docs: readonly PieceDoc[];
  /** Documents the piece holds (errors and empty ones included), for stream-wide indices. */
  readonly count: number;
  readonly problems: readonly YamlProblem[];
}

/**
 * Pieces parsed by text: as the user types, only the document being edited is parsed again.
 * Entries not used by the last few streams are dropped once the cache outgrows them.
 */
const pieceCache = new Map<string, { piece: ParsedPiece; gen: number }>();
let generation = 0;

function deepFreeze(v: unknown): void {
  // `!!binary` values are Uint8Arrays, which cannot be frozen; nothing reads their bytes anyway.
  if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/** A plain piece's document: `yaml` composes it, once, only when a position is asked for. */
class PlainDoc {
  private done: Composed | null = null;
  constructor(
    readonly value: unknown,
    private readonly text: string,
  ) {}

  composed(): Composed {
    if (!this.done) {
      const lc = new LineCounter();
      // The plain reader declined anything nested past the limit: this stays within the limits.
      const all = composeBounded(this.text, lc);
      this.done = { doc: (Array.isArray(all) ? all[0] : undefined) as Document.Parsed, lc };
    }
    return this.done;
  }
}

const NO_PROBLEMS: readonly YamlProblem[] = Object.freeze([]);

function parsePiece(text: string): ParsedPiece {
  const plain = readPlainYaml(text, YAML_LIMITS.maxDepth);
  if (plain !== undefined) {
    // Cached values are shared by later runs: nobody may change them.
    deepFreeze(plain);
    return { docs: [new PlainDoc(plain, text)], count: 1, problems: NO_PROBLEMS };
  }
  const lc = new LineCounter();
  let all: Document.Parsed[];
  try {
    // One byte a character when it can be, as the fast reader reads (plain-yaml.ts, `narrowed`).
    const composed = composeBounded(narrowed(text), lc);
    if (!Array.isArray(composed)) {
      const at = composed.tooDeep;
      return {
        docs: [],
        count: 0,
        problems: [
          {
            span: spanOf(lc, [at, at]),
            message: `collections nest more than ${YAML_LIMITS.maxDepth} levels deep here; the lab reads at most ${YAML_LIMITS.maxDepth}`,
          },
        ],
      };
    }
    all = composed;
  } catch (e) {
    return {
      docs: [],
      count: 0,
      problems: [{ span: NO_SPAN, message: `YAML could not be read: ${(e as Error).message}` }],
    };
  }
  if (!Array.isArray(all)) all = [all as unknown as Document.Parsed];
  const problems: YamlProblem[] = [];
  const docs: PieceDoc[] = [];
  for (const doc of all) {
    for (const err of doc.errors)
      problems.push({
        span: spanOf(lc, err.pos ? [err.pos[0], err.pos[1]] : null),
        message: cleanMessage(err.message),
      });
    if (doc.errors.length) {
      docs.push({ value: undefined, composed: () => ({ doc, lc }) });
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
    } catch (e) {
      // yaml throws a ReferenceError when aliases expand past maxAliasCount.
      problems.push({
        span: firstAlias(lc, doc),
        message:
          e instanceof ReferenceError
            ? `aliases (*name) here expand to too many values (more than ${YAML_LIMITS.maxAliasCount} per document); write the values out instead of nesting aliases`
            : cleanMessage((e as Error).message),
      });
      value = undefined;
    }
    // Cached values are shared by later runs: nobody may change them.
    deepFreeze(value);
    docs.push({ value, composed: () => ({ doc, lc }) });
  }
  return { docs, count: all.length, problems };
}

/**
 * Splits a stream where a line starts with `---` (a document marker is forbidden inside any
 * content, so the split never cuts a document), keeping each piece's first line number. Streams
 * with directives (`%`) or document-end markers (`...`) are parsed whole.
 */
export function splitStream(text: string): { text: string; line: number }[] | null {
  if (hasDirectiveOrEnd(text)) return null;
  const pieces: { text: string; line: number }[] = [];
  let start = 0;
  let startLine = 1;
  let line = 1;
  let scanned = 0;
  // indexOf, not a multi-line regular expression: a 2.4 MB stream of 10,000 documents.
  for (let nl = text.indexOf('\n---'); nl >= 0; nl = text.indexOf('\n---', nl + 1)) {
    const at = nl + 1;
    if (!markerEnds(text, at + 3)) continue;
    for (let i = text.indexOf('\n', scanned); i >= 0 && i < at; i = text.indexOf('\n', i + 1))
      line++;
    scanned = at;
    pieces.push({ text: text.slice(start, at), line: startLine });
    start = at;
    startLine = line;
  }
  pieces.push({ text: text.slice(start), line: startLine });
  return pieces;
}

/** After `---` (or `...`): a space, tab, line break or the end, as a document marker needs. */
function markerEnds(text: string, p: number): boolean {
  const c = text.charCodeAt(p);
  return Number.isNaN(c) || c === 32 || c === 9 || c === 10 || c === 13;
}

/** A line starting with `%` (a directive) or `...` (a document end marker). */
function hasDirectiveOrEnd(text: string): boolean {
  if (text.startsWith('%') || (text.startsWith('...') && markerEnds(text, 3))) return true;
  if (text.includes('\n%')) return true;
  for (let p = text.indexOf('\n...'); p >= 0; p = text.indexOf('\n...', p + 1))
    if (markerEnds(text, p + 4)) return true;
  return false;
}

const shift = (s: Span, lines: number): Span =>
  s.line === 0 ? s : { ...s, line: s.line + lines, endLine: s.endLine + lines };

function cachedPiece(text: string): ParsedPiece {
  const hit = pieceCache.get(text);
  if (hit) {
    hit.gen = generation;
    return hit.piece;
  }
  const piece = parsePiece(text);
  pieceCache.set(text, { piece, gen: generation });
  return piece;
}

function trimCache(used: number): void {
  if (pieceCache.size <= 4 * used + 256) return;
  for (const [k, v] of pieceCache) if (v.gen < generation - 2) pieceCache.delete(k);
}

/**
 * The last stream read, whole: one text is often read twice in a row (the manifests for their
 * NodeConfigs, then for their objects), and 10,000 documents take a while even from the cache.
 */
let lastStream: { readonly text: string; readonly stream: ParsedStream } | null = null;

/** Parses a multi-document YAML stream; syntax errors become problems with positions. */
export function parseStream(text: string): ParsedStream {
  if (lastStream?.text === text) return lastStream.stream;
  const stream = parseStreamAnew(text);
  // Shared by whoever reads the same text next: nobody may change it.
  Object.freeze(stream.docs);
  Object.freeze(stream.problems);
  lastStream = { text, stream };
  return stream;
}

function parseStreamAnew(text: string): ParsedStream {
  if (text.length > YAML_LIMITS.maxChars)
    return {
      docs: [],
      problems: [
        {
          span: NO_SPAN,
          message: `the text is ${sizeText(text.length)}; the lab reads at most ${sizeText(YAML_LIMITS.maxChars)} of YAML`,
        },
      ],
    };
  generation++;
  const pieces = splitStream(text) ?? [{ text, line: 1 }];
  const docs: SourceDoc[] = [];
  const problems: YamlProblem[] = [];
  let index = 0;
  for (const piece of pieces) {
    const parsed = cachedPiece(piece.text);
    const offset = piece.line - 1;
    for (const p of parsed.problems)
      problems.push({ span: shift(p.span, offset), message: p.message });
    parsed.docs.forEach((d, i) => {
      if (d.value === null || d.value === undefined) return;
      docs.push(new StreamDoc(index + i, d.value, d, offset));
    });
    index += parsed.count;
  }
  trimCache(pieces.length);
  return { docs, problems };
}

/** A document of the stream: its value, and positions from its piece, shifted to the stream's. */
class StreamDoc implements SourceDoc {
  constructor(
    readonly index: number,
    readonly value: unknown,
    private readonly piece: PieceDoc,
    private readonly offset: number,
  ) {}

  get doc(): Document.Parsed {
    return this.piece.composed().doc;
  }

  private at(range: readonly [number, number, number?] | null | undefined): Span {
    return shift(spanOf(this.piece.composed().lc, range), this.offset);
  }

  span(path: readonly (string | number)[], key = false): Span {
    const { doc } = this.piece.composed();
    let p = [...path];
    while (p.length) {
      const node = doc.getIn(p, true) as Node | undefined;
      if (node && 'range' in node && node.range) {
        if (key) {
          const parent = doc.getIn(p.slice(0, -1), true);
          if (isMap(parent)) {
            const pair = parent.items.find(
              (it) => (it.key as { value?: unknown } | null)?.value === p[p.length - 1],
            );
            const k = pair?.key as Node | undefined;
            if (k?.range) return this.at(k.range);
          }
        }
        return this.at(node.range);
      }
      p = p.slice(0, -1);
    }
    return this.at(doc.contents?.range ?? null);
  }
}

function cleanMessage(m: string): string {
  return m.split('\n')[0]?.replace(/ at line \d+, column \d+.*$/, '') ?? m;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { isMap, isSeq };
