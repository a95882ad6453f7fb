/**
 * Issue #3 figures: one node's ruleset in a 50-node cluster with 10,000 Services x 3 endpoints,
 * and one external probe simulated end to end (client -> LoadBalancer VIP -> pod on another node
 * and back), after the nodes on the path are warm.
 */
import { enumerateOutcomes } from '../engine/index.ts';
import { networkOf, probeFor } from '../cluster/lab.ts';
import { buildClusterFromModel, clusterSettings } from '../cluster/topology.ts';
import type { ClusterSpec } from '../cluster/scenario.ts';
import type { ManifestModel, PodModel } from '../kube/manifests/index.ts';
import type { EndpointSliceModel, ServiceModel } from '../kube/model.ts';
import { generateIptablesRules } from '../kube/proxier/index.ts';
import { DEFAULT_PROXIER_CONFIG } from '../kube/model.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export function bigCluster(
  nodes = 50,
  services = 10000,
  endpoints = 3,
): { spec: ClusterSpec; model: ManifestModel } {
  const spec: ClusterSpec = {
    lan: '192.168.0.0/16',
    nodes: Array.from({ length: nodes }, (_, i) => ({
      name: `node-${i + 1}`,
      ip: `192.168.${1 + Math.floor(i / 200)}.${10 + (i % 200)}`,
      roles: ['worker'] as const,
    })),
    clients: [{ name: 'client', ip: '192.168.100.10' }],
    vips: [{ ip: '192.168.200.1', mode: 'metallb-l2', holder: 'node-1' }],
  };
  const pods: PodModel[] = [];
  const svcs: ServiceModel[] = [];
  const slices: EndpointSliceModel[] = [];
  for (let s = 0; s < services; s++) {
    const last = s === services - 1;
    const name = `svc-${s}`;
    const eps = Array.from({ length: endpoints }, (_, e) => {
      const k = s * endpoints + e;
      const node = (k * 7 + 3) % nodes;
      const pod: PodModel = {
        namespace: `ns-${s % 40}`,
        name: `${name}-${e}`,
        workload: name,
        workloadKind: 'Deployment',
        node: `node-${node + 1}`,
        ip: `10.244.${node}.${10 + (Math.floor(k / nodes) % 240)}`,
        labels: { app: name },
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        ready: true,
        terminating: false,
        reply: `${name}-${e}`,
        pending: null,
      };
      pods.push(pod);
      return pod;
    });
    svcs.push({
      namespace: `ns-${s % 40}`,
      name,
      type: last ? 'LoadBalancer' : 'ClusterIP',
      clusterIP: `10.96.${Math.floor(s / 250)}.${(s % 250) + 2}`,
      ports: [
        {
          name: 'http',
          port: 80,
          protocol: 'TCP',
          targetPort: 8080,
          nodePort: last ? 31000 : null,
        },
      ],
      externalIPs: [],
      loadBalancerIngress: last ? [{ ip: '192.168.200.1' }] : [],
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: null,
      sessionAffinity: { type: 'None' },
      topologyMode: null,
      selector: { app: name },
    });
    slices.push({
      namespace: `ns-${s % 40}`,
      service: name,
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: eps.map((p) => ({
        addresses: [p.ip as string],
        nodeName: p.node,
        zone: null,
        ready: true,
        serving: true,
        terminating: false,
        hints: null,
        targetRef: `${p.namespace}/${p.name}`,
      })),
    });
  }
  const model: ManifestModel = {
    services: svcs,
    endpointSlices: slices,
    pods,
    diagnostics: [],
    hintNotes: new Map(),
  };
  return { spec, model };
}

export function benchCluster(): void {
  const { spec, model } = bigCluster();
  const gen: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    generateIptablesRules({
      services: model.services,
      endpointSlices: model.endpointSlices,
      config: { ...DEFAULT_PROXIER_CONFIG, nodeName: 'node-17', nodeIPs: ['192.168.1.26'] },
    });
    gen.push(performance.now() - t0);
  }
  console.log(
    `\none node's kube-proxy rules, 50-node cluster, 10,000 Services x 3 endpoints: median ${median(gen).toFixed(0)} ms (runs: ${gen.map((t) => t.toFixed(0)).join(', ')})   budget 1000 ms`,
  );
  const t0 = performance.now();
  const cluster = buildClusterFromModel(spec, clusterSettings(spec), model);
  const net = networkOf(cluster);
  if ('problems' in net) throw new Error(net.problems);
  const resolved = probeFor(cluster, { from: 'client/client', to: 'lb/svc-9999:80' });
  if ('error' in resolved) throw new Error(resolved.error);
  const first = enumerateOutcomes(net, resolved.probe);
  const warm = performance.now() - t0;
  const o = first.runs[0]?.outcome;
  const times: number[] = [];
  for (let i = 0; i < 25; i++) {
    const t = performance.now();
    enumerateOutcomes(net, resolved.probe);
    times.push(performance.now() - t);
  }
  const hosts = new Set(first.runs.flatMap((r) => r.events.map((e) => e.host)));
  console.log(
    `cluster of ${spec.nodes.length} nodes and ${model.pods.length} pods built, nodes on the path generated and parsed: ${warm.toFixed(0)} ms (one time)`,
  );
  console.log(
    `external probe end to end (client -> LB VIP -> pod, every branch, ${first.runs.length} runs over ${hosts.size} hosts; ${o?.kind}): median ${median(times).toFixed(1)} ms over 25 runs   budget 50 ms`,
  );
}
