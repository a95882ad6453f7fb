/**
 * Every scenario in scenarios/ is loaded, every variant built, and every probe's expectation
 * asserted through the engine (one table-driven test, as nand2tetris does for its course files).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProbe } from './expect.ts';
import { clusterOf } from './lab.ts';
import { loadScenario } from './scenario.ts';

const dir = join(import.meta.dirname, '../../scenarios');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('scenarios/*.yaml', () => {
  it('there are scenarios', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const { scenario, diagnostics } = loadScenario(text);
    describe(file, () => {
      it('is a valid scenario', () => {
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(scenario).not.toBeNull();
      });
      if (!scenario) return;
      const variants = scenario.def.variants?.length
        ? scenario.def.variants.map((v) => v.id)
        : [undefined];
      for (const variant of variants) {
        const built = clusterOf(scenario, variant, undefined);
        describe(variant ?? '(base)', () => {
          it('manifests have no errors', () => {
            expect(
              built.diagnostics
                .filter((d) => d.severity === 'error')
                .map((d) => `${d.path}: ${d.message}`),
            ).toEqual([]);
          });
          for (const probe of built.probes) {
            it(`${probe.name ?? `${probe.from} -> ${probe.to}`}`, () => {
              if (!built.cluster) throw new Error('no cluster');
              const r = checkProbe(built.cluster, probe);
              expect({ got: r.got, diff: r.diff }).toEqual({ got: r.got, diff: [] });
            });
          }
        });
      }
    });
  }
});
