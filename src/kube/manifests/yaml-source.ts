/**
 * Multi-document YAML with source positions: every value can be traced back to line and column,
 * so problems are reported where the user typed them.
 */
import { LineCounter, isMap, isSeq, parseAllDocuments, type Document, type Node } from 'yaml';

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

/** One piece of a stream, parsed on its own; positions are relative to the piece's first line. */
interface ParsedPiece {
  readonly docs: readonly {
    readonly value: unknown;
    readonly doc: Document.Parsed;
    readonly lc: LineCounter;
  }[];
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
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

function parsePiece(text: string): ParsedPiece {
  const lc = new LineCounter();
  let all: Document.Parsed[];
  try {
    all = parseAllDocuments(text, {
      lineCounter: lc,
      prettyErrors: false,
      uniqueKeys: true,
    }) as Document.Parsed[];
  } catch (e) {
    return {
      docs: [],
      count: 0,
      problems: [{ span: NO_SPAN, message: `YAML could not be read: ${(e as Error).message}` }],
    };
  }
  if (!Array.isArray(all)) all = [all as unknown as Document.Parsed];
  const problems: YamlProblem[] = [];
  const docs: { value: unknown; doc: Document.Parsed; lc: LineCounter }[] = [];
  for (const doc of all) {
    for (const err of doc.errors)
      problems.push({
        span: spanOf(lc, err.pos ? [err.pos[0], err.pos[1]] : null),
        message: cleanMessage(err.message),
      });
    if (doc.errors.length) {
      docs.push({ value: undefined, doc, lc });
      continue;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      problems.push({
        span: spanOf(lc, doc.contents?.range ?? null),
        message: cleanMessage((e as Error).message),
      });
      value = undefined;
    }
    // Cached values are shared by later runs: nobody may change them.
    deepFreeze(value);
    docs.push({ value, doc, lc });
  }
  return { docs, count: all.length, problems };
}

/**
 * Splits a stream where a line starts with `---` (a document marker is forbidden inside any
 * content, so the split never cuts a document), keeping each piece's first line number. Streams
 * with directives (`%`) or document-end markers (`...`) are parsed whole.
 */
export function splitStream(text: string): { text: string; line: number }[] | null {
  if (/^(%|\.\.\.(\s|$))/m.test(text)) return null;
  const pieces: { text: string; line: number }[] = [];
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  let start = 0;
  let startLine = 1;
  let line = 1;
  let scanned = 0;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    if (m.index === 0) continue;
    for (let i = text.indexOf('\n', scanned); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1))
      line++;
    scanned = m.index;
    pieces.push({ text: text.slice(start, m.index), line: startLine });
    start = m.index;
    startLine = line;
  }
  pieces.push({ text: text.slice(start), line: startLine });
  return pieces;
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

/** Parses a multi-document YAML stream; syntax errors become problems with positions. */
export function parseStream(text: string): ParsedStream {
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
      docs.push(sourceDoc(index + i, d.value, d.doc, d.lc, offset));
    });
    index += parsed.count;
  }
  trimCache(pieces.length);
  return { docs, problems };
}

function sourceDoc(
  index: number,
  value: unknown,
  doc: Document.Parsed,
  lc: LineCounter,
  offset: number,
): SourceDoc {
  const at = (range: readonly [number, number, number?] | null | undefined) =>
    shift(spanOf(lc, range), offset);
  return {
    index,
    value,
    doc,
    span(path, key = false) {
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
              if (k?.range) return at(k.range);
            }
          }
          return at(node.range);
        }
        p = p.slice(0, -1);
      }
      return at(doc.contents?.range ?? null);
    },
  };
}

function cleanMessage(m: string): string {
  return m.split('\n')[0]?.replace(/ at line \d+, column \d+.*$/, '') ?? m;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { isMap, isSeq };
