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

/** Parses a multi-document YAML stream; syntax errors become problems with positions. */
export function parseStream(text: string): ParsedStream {
  const lc = new LineCounter();
  const docs: SourceDoc[] = [];
  const problems: YamlProblem[] = [];
  let all: Document.Parsed[];
  try {
    all = parseAllDocuments(text, {
      lineCounter: lc,
      prettyErrors: false,
      uniqueKeys: true,
    }) as Document.Parsed[];
  } catch (e) {
    return {
      docs,
      problems: [{ span: NO_SPAN, message: `YAML could not be read: ${(e as Error).message}` }],
    };
  }
  if (!Array.isArray(all)) all = [all as unknown as Document.Parsed];
  all.forEach((doc, index) => {
    for (const err of doc.errors) {
      problems.push({
        span: spanOf(lc, err.pos ? [err.pos[0], err.pos[1]] : null),
        message: cleanMessage(err.message),
      });
    }
    if (doc.errors.length) return;
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    docs.push({
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
                if (k?.range) return spanOf(lc, k.range);
              }
            }
            return spanOf(lc, node.range);
          }
          p = p.slice(0, -1);
        }
        return spanOf(lc, doc.contents?.range ?? null);
      },
    });
  });
  return { docs, problems };
}

function cleanMessage(m: string): string {
  return m.split('\n')[0]?.replace(/ at line \d+, column \d+.*$/, '') ?? m;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { isMap, isSeq };
