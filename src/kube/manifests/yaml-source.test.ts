/**
 * Parsing a stream piece by piece (cached per document) gives what parsing it whole gives: the
 * same values, document numbers and problem positions.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineCounter, parseAllDocuments } from 'yaml';
import { parseStream, spanOf, splitStream } from './yaml-source.ts';

/** The stream parsed whole, as parseStream did before it cached pieces. */
function whole(text: string) {
  const lc = new LineCounter();
  const all = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const docs = (Array.isArray(all) ? all : [all]).map((d, index) => ({ d, index }));
  return {
    problems: docs.flatMap(({ d }) =>
      d.errors.map((e) => spanOf(lc, e.pos ? [e.pos[0], e.pos[1]] : null)),
    ),
    docs: docs
      .filter(({ d }) => !d.errors.length)
      .map(({ d, index }) => ({ index, value: d.toJS({ maxAliasCount: 100 }) as unknown }))
      .filter((x) => x.value !== null && x.value !== undefined),
  };
}

function pieces(text: string) {
  const s = parseStream(text);
  return {
    problems: s.problems.map((p) => p.span),
    docs: s.docs.map((d) => ({ index: d.index, value: d.value })),
  };
}

const DOCS = [
  'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - { port: 80 }\n',
  'kind: Deployment\nspec:\n  replicas: 3\n  template:\n    metadata:\n      labels: { app: a }\n',
  '# only a comment\n',
  '',
  'key: |\n  block\n  text\n',
  'broken: [\n',
  'dup: 1\ndup: 2\n',
  '  bad indent: 1\n bad: 2\n',
  'list:\n- a\n- b\n',
  'anchor: &x { a: 1 }\nref: *x\n',
  'quoted: "--- not a marker"\n',
  "s: 'it''s'\n",
  'n: 0x1F\nf: 1e3\nb: True\nz: ~\n',
];

const stream = fc
  .array(
    fc.record({
      doc: fc.constantFrom(...DOCS),
      marker: fc.constantFrom('---\n', '--- \n', '---\n# c\n', '--- # c\n'),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.map((p, i) => (i === 0 ? p.doc : p.marker + p.doc)).join(''));

describe('parsing a stream piece by piece', () => {
  it('splits only at document markers and counts lines', () => {
    expect(splitStream('a: 1\n---\nb: 2\n--- \nc: 3')).toEqual([
      { text: 'a: 1\n', line: 1 },
      { text: '---\nb: 2\n', line: 2 },
      { text: '--- \nc: 3', line: 4 },
    ]);
    expect(splitStream('%YAML 1.2\n---\na: 1')).toBeNull();
    expect(splitStream('a: ----\n---x: 1\n')).toHaveLength(1);
  });

  it('gives the values, indices and problem positions of the whole parse (property)', () => {
    fc.assert(
      fc.property(stream, (text) => {
        expect(pieces(text)).toEqual(whole(text));
      }),
      { numRuns: 400 },
    );
  });

  it('re-reads an edited stream consistently with the cache warm', () => {
    const a = `${DOCS[0]}---\n${DOCS[1]}---\n${DOCS[5]}`;
    expect(pieces(a)).toEqual(whole(a));
    const b = a.replace('replicas: 3', 'replicas: 4');
    expect(pieces(b)).toEqual(whole(b));
    expect(Object.isFrozen(parseStream(b).docs[0]?.value)).toBe(true);
  });

  it('reports a repeated key where yaml does, in block and flow maps, the key compared by value', () => {
    // A tab after a colon: the fast reader leaves these to `yaml`.
    const text =
      'a:\t1\nb: { x: 1, y: 2, x: 3 }\n"a": 2\n1: one\n"1": string one\n.nan: 1\n.nan: 2\n';
    expect(pieces(text)).toEqual(whole(text));
    expect(parseStream(text).problems.map((p) => [p.span.line, p.span.column, p.message])).toEqual([
      [2, 18, 'Map keys must be unique'],
      [3, 1, 'Map keys must be unique'],
    ]);
  });

  it('checks the keys of a 50,000-key map in linear time', () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `k${i}:\tv`);
    // yaml's own check compared each key with all before it: 46 s here, past the test's limit.
    const s = parseStream(`${keys.join('\n')}\nk7:\tagain\n`);
    expect(s.problems.map((p) => [p.span.line, p.message])).toEqual([
      [50_001, 'Map keys must be unique'],
    ]);
  });

  it('reads a !!binary value (a Uint8Array, which cannot be frozen) without throwing', () => {
    const s = parseStream('kind: !!binary aGVsbG8=\nmetadata: { name: web }\n');
    expect(s.docs[0]?.value).toMatchObject({ metadata: { name: 'web' } });
    expect(ArrayBuffer.isView((s.docs[0]?.value as { kind: unknown }).kind)).toBe(true);
  });
});
