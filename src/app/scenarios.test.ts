/**
 * Every scenario file and variant through the real runLab and the app's models: the picker can
 * read it, the diagram can lay it out (finite coordinates, every host on the path drawn), and
 * every explanation key the trace uses has text in both languages.
 */
import { valueOf } from '../engine/index.ts';
import { labView } from './worker/view.ts';
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { runLab } from '../cluster/lab.ts';
import { loadScenario, scenarioModes } from '../cluster/scenario.ts';
import { readScenario } from './scenario/entry.ts';
import { buildTimeline } from './model/timeline.ts';
import { buildScene } from './model/scene.ts';
import { verdictOf } from './model/verdict.ts';
import { EXPLAIN_ZH } from './i18n/explain-zh.ts';
import { EXPLAIN_EN } from '../engine/explain.ts';
import { UI_EN } from './i18n/en.ts';

const dir = new URL('../../scenarios/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe.each(files)('scenario %s in the lab', (file) => {
  const text = readFileSync(new URL(file, dir), 'utf8');
  const entry = readScenario(file.replace(/\.yaml$/, ''), text);
  const variants = [null, ...entry.variants.map((v) => v.id)];
  // Every kube-proxy mode the scenario runs in (kubeProxyModes).
  const loaded = valueOf(loadScenario(text));
  const modes = loaded ? scenarioModes(loaded.def) : [];
  const cases = (modes.length ? modes : [undefined]).flatMap((mode) =>
    variants.map((variant) => [variant, mode] as const),
  );
  it.each(cases)('variant %s (%s mode) lays out and explains', (variant, mode) => {
    const r = labView(
      runLab({ scenario: text, ...(variant ? { variant } : {}), ...(mode ? { mode } : {}) }),
    );
    expect(r.ok, JSON.stringify(r.diagnostics)).toBe(true);
    for (const run of r.runs) {
      const steps = buildTimeline(run);
      const scene = buildScene(r, steps);
      expect(scene).not.toBeNull();
      const drawn = new Set(scene?.layout.hosts.map((h) => h.name));
      for (const s of scene?.steps ?? []) {
        expect(drawn.has(s.host), s.host).toBe(true);
        for (const p of s.path) expect(Number.isFinite(p.x + p.y)).toBe(true);
      }
      for (const s of steps) {
        expect(EXPLAIN_EN[s.event.explain.key], s.event.explain.key).toBeTypeOf('string');
        expect(EXPLAIN_ZH[s.event.explain.key], s.event.explain.key).toBeTypeOf('string');
      }
      expect(UI_EN).toHaveProperty(verdictOf(run, r.cluster).key);
    }
  });
});
