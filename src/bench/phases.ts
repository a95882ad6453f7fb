/**
 * Where a cold lab run's time goes, phase by phase, in a fresh process (`npm run bench` prints
 * it beside the cold figure): the scenario file, the manifests (YAML, then the objects), the
 * cluster and its network, kube-proxy's rules for the nodes on the path, the engine's parse of
 * them, the walk, and the digest the page is sent. CPU times (this process, all its threads).
 *   node phases.js SERVICES REPLICAS
 */
import { readFileSync } from 'node:fs';
import { enumerateOutcomes, parseRuleset, valueOf } from '../engine/index.ts';
import { loadScenario, resolveVariant } from '../cluster/scenario.ts';
import { networkOf, probeFor, runLab } from '../cluster/lab.ts';
import { buildClusterFromModel, clusterSettings } from '../cluster/topology.ts';
import { readManifests } from '../kube/manifests/index.ts';
import { parseStream } from '../kube/manifests/yaml-source.ts';
import { DEFAULT_PROXIER_CONFIG } from '../kube/model.ts';
import { generateIptablesRules } from '../kube/proxier/index.ts';
import { labView } from '../app/worker/view.ts';
import { bigManifests } from './big-manifests.ts';

const services = Number(process.argv[2] ?? 5000);
const replicas = Number(process.argv[3] ?? 1);
const scenarioText = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');
const manifests = bigManifests(services, replicas);
const phases: Record<string, number> = {};
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const start = cpu();
function time<T>(name: string, f: () => T): T {
  const c0 = cpu();
  const v = f();
  phases[name] = Math.round(cpu() - c0);
  return v;
}

const loaded = time('scenario', () => valueOf(loadScenario(scenarioText, { validate: false })));
if (!loaded) throw new Error('the scenario does not load');
const resolved = resolveVariant(loaded.def);
if ('error' in resolved) throw new Error(resolved.error);
const spec = resolved.cluster;
const settings = clusterSettings(spec);
time('yaml', () => parseStream(manifests));
// The YAML pieces are cached by text now: this is the reading of the objects alone.
const model = time('objects', () => readManifests(manifests, settings));
const cluster = time('cluster', () => buildClusterFromModel(spec, settings, model));
const net = time('network', () => networkOf(cluster));
if ('problems' in net) throw new Error(net.problems);
const first = resolved.probes[0];
if (!first) throw new Error('the scenario has no probe');
const probe = probeFor(cluster, { from: first.from, to: first.to });
if ('error' in probe) throw new Error(probe.error);
// The walk generates and parses the rules of the nodes it reaches: measured apart below.
const walked = time('walk, cold', () => enumerateOutcomes(net, probe.probe));
const hosts = new Set(walked.runs.flatMap((r) => r.events.map((e) => e.host)));
const nodes = spec.nodes.filter((n) => hosts.has(n.name));
const texts = time('generate', () =>
  nodes.map((n) =>
    generateIptablesRules({
      services: model.services,
      endpointSlices: model.endpointSlices,
      config: { ...DEFAULT_PROXIER_CONFIG, nodeName: n.name, nodeIPs: [n.ip] },
    }),
  ),
);
time('parse', () => texts.forEach((t) => parseRuleset(t, { family: 4 })));
time('walk, warm', () => enumerateOutcomes(net, probe.probe));
const result = runLab({ scenario: scenarioText, manifests, validate: false });
const view = time('digest', () => labView(result));
time('clone', () => structuredClone({ type: 'result', id: 1, result: view, ms: 0 }));
process.stdout.write(
  `${JSON.stringify({ phases, cpuMs: Math.round(cpu() - start), nodes: nodes.length })}\n`,
);
