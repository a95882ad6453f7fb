/**
 * Property tests: scenario files and manifests, mutated at random, never make the lab throw, and
 * a bad value put on a line is reported on that line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCidr, parseIPv4 } from '../engine/ip.ts';
import { readManifests } from '../kube/manifests/index.ts';
import { clusterOf, runLab } from './lab.ts';
import { loadScenario, type LoadedScenario } from './scenario.ts';
import { MINI_SCENARIO } from './testing/mini-scenario.ts';
import { clusterSettings } from './topology.ts';
import { valueOf, type Diagnostic } from '../engine/index.ts';

const LINES = MINI_SCENARIO.split('\n');

/** Where a diagnostic is in the scenario file (manifest positions mapped), 0 when unplaced. */
function fileLine(d: Diagnostic, s: LoadedScenario | null): number {
  if (d.source === 'manifests' && s && d.line > 0)
    return s.manifestsBlock(undefined).line + d.line - 1;
  return d.line;
}

/** Everything the lab and `hookpath run` do with a scenario text. */
function diagnosticsOf(text: string): { lines: number[]; all: Diagnostic[] } {
  const scenarioRead = loadScenario(text);
  const scenario = valueOf(scenarioRead);
  const { diagnostics } = scenarioRead;
  const built = scenario ? clusterOf(scenario, undefined, undefined).diagnostics : [];
  const all = [...diagnostics, ...built];
  return { lines: all.map((d) => fileLine(d, scenario)), all };
}

const hostile = fc.oneof(
  fc.constantFrom(
    '',
    '🙂',
    'a\u200bb',
    '\u202eevil',
    '999.1.1.1',
    '10.0.0.0/33',
    '-1',
    '99999',
    'null',
    '*a',
    '&a',
    '"',
    "'",
    '[',
    '{',
    '#',
    ': x',
    '- x',
    '|',
    '\t',
    '!!binary x',
    'x'.repeat(5000),
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

describe('scenario fuzzing', () => {
  it('lines deleted, duplicated, cut or replaced never make the lab throw; positions stay in the file', () => {
    const mutation = fc.record({
      at: fc.nat(LINES.length - 1),
      kind: fc.constantFrom('drop', 'dup', 'cut', 'insert', 'append'),
      text: hostile,
      cut: fc.nat(60),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (muts) => {
        const lines = [...LINES];
        for (const m of muts) {
          const at = Math.min(m.at, lines.length - 1);
          const line = lines[at] ?? '';
          if (m.kind === 'drop') lines.splice(at, 1);
          else if (m.kind === 'dup') lines.splice(at, 0, line);
          else if (m.kind === 'cut') lines[at] = line.slice(0, m.cut);
          else if (m.kind === 'insert') lines.splice(at, 0, m.text);
          else lines[at] = `${line}${m.text}`;
        }
        const text = lines.join('\n');
        const { lines: at, all } = diagnosticsOf(text);
        const count = text.split('\n').length;
        for (const [i, l] of at.entries()) {
          expect(l, all[i]?.message).toBeGreaterThanOrEqual(0);
          expect(l, all[i]?.message).toBeLessThanOrEqual(count);
          expect(all[i]?.message.length).toBeGreaterThan(0);
          expect(all[i]?.message).not.toContain('undefined');
        }
        // The lab's own entry point answers, with or without errors.
        const r = runLab({ scenario: text });
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 150 },
    );
  });

  /** Lines of MINI_SCENARIO whose value has rules, and values that always break them. */
  const FIELDS: { line: number; key: string; bad: fc.Arbitrary<string> }[] = [
    { line: 4, key: 'lan', bad: hostile.filter((s) => !parseCidr(s.trim())) },
    { line: 5, key: 'serviceCIDR', bad: hostile.filter((s) => !parseCidr(s.trim())) },
    { line: 8, key: 'ip', bad: hostile.filter((s) => parseIPv4(s.trim()) === null) },
    { line: 17, key: 'ip', bad: hostile.filter((s) => parseIPv4(s.trim()) === null) },
    {
      line: 25,
      key: 'type',
      bad: hostile.filter(
        (s) => !['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'].includes(s.trim()),
      ),
    },
    {
      line: 33,
      key: 'replicas',
      bad: fc.oneof(fc.integer({ max: -1 }), fc.double({ noInteger: true })).map(String),
    },
  ];

  it('a bad value written on a line is reported on that line (quoted, or plain)', () => {
    for (const f of FIELDS)
      expect(LINES[f.line - 1], f.key).toMatch(new RegExp(`^\\s*(- )?${f.key}: `));
    const cases = fc
      .constantFrom(...FIELDS)
      .chain((f) => fc.tuple(fc.constant(f), f.bad, fc.boolean()));
    fc.assert(
      fc.property(cases, fc.context(), ([field, value, quoted], ctx) => {
        const lines = [...LINES];
        const line = lines[field.line - 1] as string;
        const head = line.slice(0, line.indexOf(`${field.key}: `) + field.key.length + 2);
        lines[field.line - 1] =
          `${head}${quoted || field.key !== 'replicas' ? JSON.stringify(value) : value}`;
        const { lines: at, all } = diagnosticsOf(lines.join('\n'));
        ctx.log(JSON.stringify(all.map((d) => `${d.line}:${d.column} ${d.message}`)));
        expect(at).toContain(field.line);
      }),
      { numRuns: 200 },
    );
  });
});

describe('manifest fuzzing', () => {
  const settings = clusterSettings(
    (valueOf(loadScenario(MINI_SCENARIO)) as LoadedScenario).def.cluster,
  );
  const MANIFESTS = (valueOf(loadScenario(MINI_SCENARIO)) as LoadedScenario).def.manifests;

  it('any text, and mutated manifests, never throw; positions stay inside the text', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 400 }),
      fc
        .array(fc.record({ at: fc.nat(400), insert: hostile }), { minLength: 1, maxLength: 5 })
        .map((ms) =>
          ms.reduce((t, m) => `${t.slice(0, m.at)}${m.insert}${t.slice(m.at)}`, MANIFESTS),
        ),
    );
    fc.assert(
      fc.property(text, (t) => {
        const m = readManifests(t, settings);
        const count = t.split('\n').length;
        for (const d of m.diagnostics) {
          expect(d.line).toBeGreaterThanOrEqual(0);
          expect(d.line).toBeLessThanOrEqual(count);
          expect(d.message).not.toContain('undefined');
        }
      }),
      { numRuns: 300 },
    );
  });
});
