/**
 * Speed of the generator on a big node: 10,000 Services x 3 endpoints (budget: 1 s per ruleset
 * on a 2-core machine). `npm run bench` (src/bench/main.ts) calls `benchGenerator`.
 * The cluster: every Service has one TCP port and 3 endpoints (one on this node); every 10th is
 * a NodePort, every 20th a LoadBalancer with externalTrafficPolicy Local. 30,000 endpoints put
 * kube-proxy in large-cluster mode (no endpoint comments), as it would be on such a cluster.
 */
import {
  DEFAULT_PROXIER_CONFIG,
  type EndpointSliceModel,
  type ProxierInput,
  type ServiceModel,
} from '../model.ts';
import { generateProxierRules } from './generate.ts';

export function benchInput(services = 10000, endpoints = 3): ProxierInput {
  const svcs: ServiceModel[] = [];
  const slices: EndpointSliceModel[] = [];
  for (let i = 0; i < services; i++) {
    const name = `svc-${i}`;
    const lb = i % 20 === 0;
    const np = lb || i % 10 === 0;
    svcs.push({
      namespace: 'bench',
      name,
      type: lb ? 'LoadBalancer' : np ? 'NodePort' : 'ClusterIP',
      clusterIP: `10.96.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      ports: [
        {
          name: 'http',
          port: 80,
          protocol: 'TCP',
          targetPort: 8080,
          nodePort: np ? 30000 + (i % 2768) : null,
        },
      ],
      externalIPs: [],
      loadBalancerIngress: lb ? [{ ip: `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}` }] : [],
      loadBalancerSourceRanges: [],
      externalTrafficPolicy: lb ? 'Local' : 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: lb ? 32000 + (i % 700) : null,
      sessionAffinity: { type: 'None' },
      topologyMode: null,
      selector: { app: name },
    });
    slices.push({
      namespace: 'bench',
      service: name,
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: Array.from({ length: endpoints }, (_, k) => {
        const n = i * endpoints + k;
        return {
          addresses: [`10.${64 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`],
          nodeName: k === 0 ? 'node-1' : `node-${k + 1}`,
          zone: null,
          ready: true,
          serving: true,
          terminating: false,
          hints: null,
          targetRef: null,
        };
      }),
    });
  }
  return {
    services: svcs,
    endpointSlices: slices,
    config: { ...DEFAULT_PROXIER_CONFIG, nodeName: 'node-1', nodeIPs: ['192.168.1.10'] },
  };
}

export interface GeneratorBench {
  /** Median wall time of one generation, ms. */
  readonly ms: number;
  /** The first (cold) generation, ms. */
  readonly firstMs: number;
  /** Rules in the self-contained dump (filter + nat, including the built-in jumps). */
  readonly rules: number;
  /** Size of the dump, bytes (characters). */
  readonly bytes: number;
}

export function benchGenerator(services = 10000, endpoints = 3, runs = 5): GeneratorBench {
  const input = benchInput(services, endpoints);
  const times: number[] = [];
  let dump = '';
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    dump = generateProxierRules(input).dump;
    times.push(performance.now() - t0);
  }
  const sorted = [...times].sort((a, b) => a - b);
  let rules = 0;
  for (let i = dump.indexOf('\n-A '); i >= 0; i = dump.indexOf('\n-A ', i + 1)) rules++;
  return {
    ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
    firstMs: times[0] ?? 0,
    rules,
    bytes: dump.length,
  };
}
