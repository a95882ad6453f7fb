/**
 * Every scenario in scenarios/ is loaded, every variant built in every kube-proxy mode the
 * scenario runs in, and every probe's expectation (that mode's, see `byMode`) asserted through
 * the engine (one table-driven test, as nand2tetris does for its course files).
 */
import { valueOf } from '../engine/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProbe } from './expect.ts';
import { clusterOf } from './lab.ts';
import { loadScenario, scenarioModes } from './scenario.ts';

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
    const scenarioRead = loadScenario(text);
    const scenario = valueOf(scenarioRead);
    const { diagnostics } = scenarioRead;
    describe(file, () => {
      it('is a valid scenario', () => {
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(scenario).not.toBeNull();
      });
      if (!scenario) return;
      const variants = scenario.def.variants?.length
        ? scenario.def.variants.map((v) => v.id)
        : [undefined];
      const modes = scenarioModes(scenario.def);
      for (const mode of modes)
        for (const variant of variants) {
          const built = clusterOf(scenario, variant, undefined, mode);
          describe(`${variant ?? '(base)'}${modes.length > 1 ? ` [${mode}]` : ''}`, () => {
            it('manifests have no errors', () => {
              expect(
                built.diagnostics
                  .filter((d) => d.severity === 'error')
                  .map((d) => `${d.field}: ${d.message}`),
              ).toEqual([]);
            });
            for (const probe of built.probes) {
              it(`${probe.name ?? `${probe.from} -> ${probe.to}`}`, () => {
                if (!built.cluster) throw new Error('no cluster');
                const r = checkProbe(built.cluster, probe);
                expect({ got: r.got, diff: r.diff }).toEqual({ got: r.got, diff: [] });
              });
            }
            if (mode === 'nftables')
              it('gives every node kube-proxy’s nft table, and no KUBE- chain in its iptables rules', () => {
                const c = built.cluster;
                if (!c) throw new Error('no cluster');
                for (const n of c.spec.nodes) {
                  if (c.modeOf(n.name) !== 'nftables') continue;
                  expect(c.nftablesOf(n.name)).toContain('add table ip kube-proxy');
                  expect(c.rulesOf(n.name)).not.toContain('KUBE-');
                }
              });
          });
        }
    });
  }
});
