/**
 * The manifests' two phases alone, in a fresh process: the YAML stream (`parseStream`), then the
 * objects (`readManifests`, its pieces already cached). CPU ms of this process.
 *   npx vite build --config vite.cli.config.ts --ssr src/bench/read-manifests.ts \
 *     --outDir node_modules/.cache/hookpath-bench-manifests
 *   node node_modules/.cache/hookpath-bench-manifests/read-manifests.js SERVICES REPLICAS
 * `mainThread` is the main thread's share (Linux): the rest is the collector's and compiler's.
 */
import { valueOf } from '../engine/index.ts';
import { readFileSync } from 'node:fs';
import { loadScenario, resolveVariant } from '../cluster/scenario.ts';
import { clusterSettings } from '../cluster/topology.ts';
import { readManifests } from '../kube/manifests/index.ts';
import { parseStream } from '../kube/manifests/yaml-source.ts';
import { bigManifests } from './big-manifests.ts';

const services = Number(process.argv[2] ?? 5000);
const replicas = Number(process.argv[3] ?? 1);
const scenarioText = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');
const loaded = valueOf(loadScenario(scenarioText, { validate: false }));
if (!loaded) throw new Error('the scenario does not load');
const resolved = resolveVariant(loaded.def);
if ('error' in resolved) throw new Error(resolved.error);
const settings = clusterSettings(resolved.cluster);
const manifests = bigManifests(services, replicas);
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** CPU ms of the main thread alone (Linux), without the collector's and compiler's helpers. */
const main = () => {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ');
    return ((Number(f?.[11]) + Number(f?.[12])) * 1000) / 100;
  } catch {
    return 0;
  }
};
const m0 = main();
const c0 = cpu();
parseStream(manifests);
const c1 = cpu();
const model = readManifests(manifests, settings);
const c2 = cpu();
const m2 = main();
process.stdout.write(
  `${JSON.stringify({ yaml: Math.round(c1 - c0), objects: Math.round(c2 - c1), mainThread: Math.round(m2 - m0), pods: model.pods.length, slices: model.endpointSlices.length, diagnostics: model.diagnostics.length })}\n`,
);
