/**
 * The fast reader either gives exactly what `yaml` gives (values, types, key order) or declines:
 * checked on every scenario's manifests, on tricky scalars, and on generated and mutated text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { narrowed, readPlainYaml } from './plain-yaml.ts';
import { parseStream, splitStream } from './yaml-source.ts';
import { bigManifests } from '../../bench/big-manifests.ts';

/** What `yaml` makes of one piece: its value, or `undefined` when it has problems or no document. */
function byYaml(text: string): { ok: boolean; value: unknown } {
  const docs = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.length !== 1 || list.some((d) => d.errors.length)) return { ok: false, value: null };
  return { ok: true, value: list[0]?.toJS() as unknown };
}

/** The fast reader agrees with `yaml` whenever it answers. */
function agrees(text: string): boolean {
  const fast = readPlainYaml(text);
  if (fast === undefined) return false;
  const y = byYaml(text);
  expect(y.ok, `yaml has problems with what the fast reader took:\n${text}`).toBe(true);
  expect(fast).toEqual(y.value);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(y.value));
  return true;
}

const SCALARS = [
  'web',
  'true',
  'True',
  'FALSE',
  'yes',
  'no',
  'on',
  '0x1F',
  '0o17',
  '012',
  '1e3',
  '-1.50',
  '.5',
  '1.',
  '.inf',
  '-.Inf',
  '.NaN',
  '~',
  'null',
  'Null',
  '',
  '+1',
  '-0',
  '1_000',
  'nginx:1.25',
  '10.0.0.1/24',
  'a#b',
  'a #b',
  "it's",
  'say "hi"',
  'a: b',
  '- x',
  '? x',
  ':x',
  'x,y',
  '[a]',
  '{a}',
  '@x',
  '&a',
  '*a',
  '!t',
  '|',
  'back\\slash',
  'ünïcødé',
  '80',
  'TCP',
  'line one\nline two\n',
  'x\n\ny\n',
  'no final break',
  '  indented first\nthen not\n',
  '# not a comment\n- not a list\nkey: not a map\n',
  'trailing\n\n\n',
  '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 22 -j DROP\nCOMMIT\n',
  'a long\nfolded text\n\nnew paragraph\n',
  '\nleading break\n',
];

const KEYS = ['name', 'app', 'a.b/c-d', 'k8s.io/x', '80', 'true', 'null', '1e3', 'x_y', 'dup'];

type Tree = string | Tree[] | [string, Tree][] | { map: [string, Tree][] };

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SCALARS),
    fc.array(tie('node'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.constantFrom(...KEYS), tie('node')), { maxLength: 4 })
      .map((map) => ({ map })),
  ),
})).node;

interface Style {
  readonly indent: number;
  readonly flow: boolean;
  readonly compact: boolean;
  readonly quote: 0 | 1 | 2;
  readonly comments: boolean;
  readonly folded: boolean;
}

function scalar(s: string, st: Style): string {
  if (st.quote === 1) return `'${s.replaceAll("'", "''")}'`;
  if (st.quote === 2) return `"${s}"`;
  return s;
}

function flow(t: Tree, st: Style): string {
  if (typeof t === 'string') return scalar(t, st);
  if (Array.isArray(t)) return `[${t.map((x) => flow(x as Tree, st)).join(', ')}]`;
  return `{ ${t.map.map(([k, v]) => `${k}: ${flow(v, st)}`).join(', ')} }`;
}

/** Renders a tree as block YAML at an indentation, in a given style (possibly invalid YAML). */
/** A multi-line string as a literal block scalar under `pad` (`|-` when it has no final break). */
function literal(s: string, st: Style, pad: string): string[] {
  const inner = pad + ' '.repeat(st.indent);
  const body = s.endsWith('\n') ? s.slice(0, -1) : s;
  return [
    `${st.folded ? '>' : '|'}${s.endsWith('\n') ? '' : '-'}${st.comments ? ' # c' : ''}`,
    ...body.split('\n').map((l) => (l ? inner + l : '')),
  ];
}

function block(t: Tree, st: Style, pad: string): string[] {
  const comment = st.comments ? ' # note' : '';
  if (typeof t === 'string' && t.includes('\n') && !st.flow) {
    const [head, ...rest] = literal(t, st, pad);
    return [`${pad}${head}`, ...rest];
  }
  if (typeof t === 'string') return [`${pad}${scalar(t, st)}${comment}`];
  const inner = pad + ' '.repeat(st.indent);
  if (Array.isArray(t)) {
    if (!t.length || st.flow) return [`${pad}${flow(t, st)}`];
    return t.flatMap((x) => {
      const lines = block(x as Tree, st, inner);
      const first = (lines[0] ?? '').slice(inner.length);
      return [`${pad}- ${first}`, ...lines.slice(1).map((l) => `${pad}  ${l.slice(inner.length)}`)];
    });
  }
  if (!t.map.length || st.flow) return [`${pad}${flow(t, st)}`];
  return t.map.flatMap(([k, v]) => {
    if (typeof v === 'string' && v.includes('\n') && !st.flow) {
      const [head, ...rest] = literal(v, st, pad);
      return [`${pad}${k}: ${head}`, ...rest];
    }
    if (typeof v === 'string' || st.flow) return [`${pad}${k}: ${flow(v, st)}${comment}`];
    const isList = Array.isArray(v);
    const sub = block(v, st, isList && st.compact ? pad : inner);
    return [`${pad}${k}:${st.comments ? ' # c' : ''}`, ...sub];
  });
}

const style: fc.Arbitrary<Style> = fc.record({
  indent: fc.integer({ min: 1, max: 4 }),
  flow: fc.boolean(),
  compact: fc.boolean(),
  quote: fc.constantFrom(0 as const, 1 as const, 2 as const),
  comments: fc.boolean(),
  folded: fc.boolean(),
});

const RUNS = Number(process.env.HOOKPATH_PROPERTY_RUNS ?? 3000);

const MUTATIONS = [
  ' ',
  '\t',
  ':',
  '-',
  '#',
  '\n',
  '{',
  '}',
  '[',
  ']',
  ',',
  '"',
  "'",
  '&',
  '|',
  'a',
];

describe('the fast YAML reader', () => {
  it('reads every scenario and exercise manifest piece as yaml does', () => {
    let read = 0;
    let total = 0;
    for (const dir of ['scenarios', 'exercises']) {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
        const file = parseYaml(readFileSync(`${dir}/${f}`, 'utf8')) as Record<string, unknown>;
        const texts = [file.manifests, file.answer, file.fixedManifests];
        for (const v of (file.variants as { manifests?: unknown }[] | undefined) ?? [])
          texts.push(v.manifests);
        for (const t of texts.filter((x): x is string => typeof x === 'string'))
          for (const piece of splitStream(t) ?? []) {
            total++;
            if (agrees(piece.text)) read++;
          }
      }
    }
    // Nearly every document of the lab's own files takes the fast path.
    expect(total).toBeGreaterThan(50);
    expect(read / total).toBeGreaterThan(0.9);
  });

  it('reads the scenario and exercise files themselves (block scalars) as yaml does', () => {
    let read = 0;
    let total = 0;
    for (const dir of ['scenarios', 'exercises'])
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
        total++;
        if (agrees(readFileSync(`${dir}/${f}`, 'utf8'))) read++;
      }
    expect(read / total).toBeGreaterThan(0.5);
  });

  it('reads the benchmark manifests', () => {
    const pieces = splitStream(bigManifests(20, 2)) ?? [];
    expect(pieces.every((p) => agrees(p.text))).toBe(true);
  });

  it('ends a plain scalar at a comment on its own line, whatever comes further down', () => {
    expect(agrees('a: x\nb: y # a note\nc: z#not a comment\nd: 1   # one\n')).toBe(true);
    expect(readPlainYaml('a: x\nb: y # a note\nc: z#not a comment\n')).toEqual({
      a: 'x',
      b: 'y',
      c: 'z#not a comment',
    });
  });

  it('reads one document of 10,000 list items, as a pasted list of Services is', () => {
    const items = Array.from(
      { length: 10_000 },
      (_, i) => `  - kind: Service\n    metadata: { name: svc-${i} }\n    spec:\n      port: ${i}`,
    );
    // No ` #` anywhere: the comment search of each plain scalar once ran on to the end of the
    // text, ~23 s for half these items (90 s for these, past the test's time limit); now ~0.1 s.
    const v = readPlainYaml(`items:\n${items.join('\n')}\n`) as {
      items: { metadata: { name: string }; spec: { port: number } }[];
    };
    expect(v.items).toHaveLength(10_000);
    expect(v.items[9999]).toEqual({
      kind: 'Service',
      metadata: { name: 'svc-9999' },
      spec: { port: 9999 },
    });
  });

  it('declines what it does not model, leaving it to yaml', () => {
    for (const text of [
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: |+\n  text\n',
      'a: |2\n  text\n',
      'a: |\n  text',
      'a: |\n\n     x\n   y\n',
      'a: >\n  x\n    more\n  y\n',
      'a: >+\n  text\n',
      'a: b\n  c\n',
      'a: "x\\ty"\n',
      'a:\tb\n',
      'a: 1\r\nb: 2\r\n',
      'dup: 1\ndup: 2\n',
      'a: [1,\n  2]\n',
      'a: [1, ]\n',
      '? a\n: b\n',
      '%YAML 1.2\n---\na: 1\n',
      'a: 1\n...\n',
      '# only a comment\n',
      '',
      '__proto__: 1\n',
      'a:\n    b: 1\n  c: 2\n',
      '---x: 1\n',
    ])
      expect(readPlainYaml(text), text).toBeUndefined();
  });

  it('declines nesting past the limit, so yaml reports it where it happens', () => {
    const flow = (n: number) => `a: ${'['.repeat(n)}1${']'.repeat(n)}\n`;
    const block = (n: number) =>
      Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    for (const deep of [flow, block]) {
      expect(agrees(deep(99))).toBe(true);
      expect(readPlainYaml(deep(101))).toBeUndefined();
      // 100,000 brackets: no stack overflow, and the lab's own limit answers with a position.
      const problems = parseStream(deep === flow ? flow(100_000) : block(300)).problems;
      expect(problems[0]?.message).toMatch(/^collections nest more than 100 levels deep here/);
      expect(problems[0]?.span.line).toBe(deep === flow ? 1 : 101);
    }
  });

  it('gives yaml values for tricky scalars', () => {
    for (const s of SCALARS)
      for (const q of ["'", '"', ''])
        agrees(`k: ${q}${q === "'" ? s.replaceAll("'", "''") : s}${q}\nl: [${q}${s}${q}]\n`);
  });

  it('agrees with yaml on generated documents (property)', () => {
    let taken = 0;
    fc.assert(
      fc.property(tree, style, (t, st) => {
        if (agrees(`${block(t, st, '').join('\n')}\n`)) taken++;
      }),
      { numRuns: RUNS },
    );
    // The property is not vacuous: most generated documents take the fast path.
    expect(taken).toBeGreaterThan(RUNS / 3);
  });

  it('agrees with yaml on mutated documents (property)', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        tree,
        style,
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...MUTATIONS), fc.boolean()), {
          minLength: 1,
          maxLength: 3,
        }),
        (t, st, edits) => {
          let text = `${block(t, st, '').join('\n')}\n`;
          for (const [at, ch, del] of edits) {
            const i = at % (text.length + 1);
            text = del
              ? text.slice(0, i) + text.slice(i + 1)
              : text.slice(0, i) + ch + text.slice(i);
          }
          if (agrees(text)) taken++;
        },
      ),
      { numRuns: RUNS },
    );
    expect(taken).toBeGreaterThan(RUNS / 10);
  });
});

/** Whether V8 keeps `s` in one byte a character (its serializer tags one-byte strings `"`). */
const isOneByte = (s: string): boolean => serialize(s)[2] === 0x22;

/** Every string in a read value, keys included. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) stringsOf(x, out.concat(k));
  return out;
}

describe('strings read from a text with a wide character', () => {
  // One Chinese character makes a whole string two bytes a character, and every slice of it.
  const text =
    'description: 宿主机的 sshd\nname: cp-1\nlisten: "0.0.0.0:22"\nports: [{ name: http, port: 80 }]\nmanifests: |\n  kind: Service\n  metadata:\n    name: svc-0\nnote: café\n';

  it('are one byte a character unless they hold a wide character themselves', () => {
    expect(isOneByte(text)).toBe(false);
    const v = readPlainYaml(text) as Record<string, unknown>;
    expect(v).toEqual(parseYaml(text));
    for (const s of stringsOf(v)) expect(isOneByte(s), s).toBe(!/[\u0100-\uffff]/.test(s));
    expect(isOneByte(v.manifests as string)).toBe(true);
    expect(isOneByte(v.note as string)).toBe(true);
  });

  it('a text with no wide character is read from a one-byte copy', () => {
    // A two-byte slice of the text above that itself holds no wide character.
    const part = text.slice(text.indexOf('name: cp-1'), text.indexOf('note:'));
    expect(isOneByte(part)).toBe(false);
    for (const s of stringsOf(readPlainYaml(part))) expect(isOneByte(s), s).toBe(true);
    expect(narrowed(part)).toBe(part);
    expect(isOneByte(narrowed(part))).toBe(true);
    expect(narrowed('宿主机')).toBe('宿主机');
  });
});
