/**
 * Real trace output for the lab's "Replay a real trace" panel: a few scenario probes sent on the
 * real kernel with `xtables-monitor --trace` or `nft -a monitor trace` running on one node, the
 * monitor's lines kept as printed. Each capture must align with the engine's trace of the same
 * probe without a disagreement (src/engine/replay): a check of the lab against the kernel, in
 * the very notation a user pastes. With HOOKPATH_WRITE_TRACE_FIXTURES=1 the captures are also
 * written to src/cluster/testing/trace-fixtures (see the README there), which the unit tests read.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { flushAllNeighbours, kernelProbeOf, kernelSpec, scenarioCases } from './scenario-lab.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';
import { TRACE_FIXTURES, type TraceFixture } from '../cluster/testing/trace-fixtures.ts';
import { replayFixture } from '../cluster/testing/trace-replay.ts';

const SCENARIOS = join(import.meta.dirname, '../../scenarios');
const OUT = join(import.meta.dirname, '../cluster/testing/trace-fixtures');
const WRITE = process.env.HOOKPATH_WRITE_TRACE_FIXTURES === '1';

async function capture(f: TraceFixture): Promise<string[]> {
  const sc = scenarioCases(SCENARIOS).find((s) => s.file === f.scenario);
  const v = sc?.variants.find((x) => x.id === f.variant && x.mode === f.mode);
  if (!v?.cluster) throw new Error(`${f.scenario} [${f.variant} ${f.mode}] does not build`);
  const def = v.probes.find((p) => p.name === f.probe);
  if (!def) throw new Error(`${f.scenario} [${f.variant}] has no probe "${f.probe}"`);
  const lab = await KernelLab.start(kernelSpec(v.cluster), {
    monitor: f.monitor,
    trace: [f.host],
  });
  try {
    await flushAllNeighbours(lab);
    const r = await lab.probe(kernelProbeOf(v.cluster, def));
    return [...(r.rawLines?.get(f.host) ?? [])];
  } finally {
    lab.close();
  }
}

describeKernel('real trace fixtures', () => {
  const written: string[] = [];
  afterAll(() => {
    if (written.length) process.stdout.write(`\ntrace fixtures written: ${written.join(', ')}\n`);
  });
  for (const f of TRACE_FIXTURES) {
    it(`${f.file}: the kernel's trace agrees with the engine's`, async () => {
      const lines = await capture(f);
      const text = `${lines.join('\n')}\n`;
      const r = replayFixture(f, text);
      expect(r.report, `${r.text}\n--- the capture ---\n${text}`).toEqual({
        agrees: true,
        errors: 0,
      });
      if (WRITE) {
        writeFileSync(join(OUT, f.file), text);
        written.push(f.file);
      }
    }, 60_000);
  }
});
