/**
 * Where `hookpath run`'s time goes on one scenario file, in a fresh process: the scenario read
 * (with its schema), then per kube-proxy mode the cluster, its network and the probes' walks.
 * CPU times (this process, all its threads: the garbage collector's helpers too) and wall times.   node run-phases.js FILE
 */
import { valueOf } from '../engine/index.ts';
import { readFileSync } from 'node:fs';
import { clusterOf, networkOf } from '../cluster/lab.ts';
import { checkProbe } from '../cluster/expect.ts';
import { loadScenario, scenarioModes } from '../cluster/scenario.ts';

const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const start = cpu();
const phases: Record<string, number> = {};
const wall: Record<string, number> = {};
function time<T>(name: string, f: () => T): T {
  const c0 = cpu();
  const w0 = performance.now();
  const v = f();
  phases[name] = Math.round(cpu() - c0);
  wall[name] = Math.round(performance.now() - w0);
  return v;
}
const text = readFileSync(process.argv[2] as string, 'utf8');
const loaded = time('load', () => valueOf(loadScenario(text)));
if (!loaded) throw new Error('the scenario does not load');
for (const mode of scenarioModes(loaded.def)) {
  const built = time(`${mode}: cluster`, () => clusterOf(loaded, undefined, undefined, mode));
  const c = built.cluster;
  if (!c) throw new Error('no cluster');
  time(`${mode}: network`, () => networkOf(c));
  time(`${mode}: probes`, () => built.probes.map((p) => checkProbe(c, p)));
}
process.stdout.write(`${JSON.stringify({ phases, wall, cpuMs: Math.round(cpu() - start) })}\n`);
