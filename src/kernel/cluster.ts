/**
 * A small Kubernetes cluster as a NetworkSpec: nodes on one LAN, Calico-style pods on veths,
 * routes to the other nodes' pod CIDRs (no tunnel), and each node's rules written by the
 * kube-proxy generator (src/kube/proxier). Meant for kernel cross-checks of whole scenarios.
 */
import type { HostSpec, NetworkSpec } from '../engine/index.ts';
import { ROUTER_IP } from '../engine/testing/vip22.ts';
import {
  DEFAULT_PROXIER_CONFIG,
  type EndpointModel,
  type EndpointSliceModel,
  type ServiceModel,
} from '../kube/model.ts';
import { generateProxierRules } from '../kube/proxier/index.ts';
import { pod } from './fixtures.ts';

export interface ClusterNode {
  readonly name: string;
  /** Address on the LAN (a /24). */
  readonly ip: string;
  /** This node's pod CIDR, e.g. 10.244.1.0/24. */
  readonly podCidr: string;
  readonly pods: readonly { readonly name: string; readonly ip: string; readonly port?: number }[];
}

export interface ClusterSpec {
  readonly nodes: readonly ClusterNode[];
  readonly services: readonly ServiceModel[];
  readonly endpointSlices: readonly EndpointSliceModel[];
  /** Hosts outside the cluster on the LAN, e.g. a client. */
  readonly extraHosts?: readonly HostSpec[];
}

/** One NetworkSpec host per node and per pod; rules generated per node. */
export function clusterNetwork(c: ClusterSpec): NetworkSpec {
  const hosts: HostSpec[] = [...(c.extraHosts ?? [])];
  for (const n of c.nodes) {
    const pods = n.pods.map((p) => pod(p.name, p.ip, p.port ?? 8080));
    const rules = generateProxierRules({
      services: c.services,
      endpointSlices: c.endpointSlices,
      config: { ...DEFAULT_PROXIER_CONFIG, nodeName: n.name, nodeIPs: [n.ip] },
    }).dump;
    hosts.push({
      name: n.name,
      role: 'node',
      interfaces: [
        { name: 'eth0', addresses: [`${n.ip}/24`], segment: 'lan' },
        ...pods.map((p) => ({
          name: `cali-${p.name}`.slice(0, 15),
          addresses: [],
          kind: 'veth' as const,
          segment: `veth-${p.name}`,
          proxyArp: true,
        })),
      ],
      routes: [
        ...pods.map((p) => ({
          to: p.interfaces[0]?.addresses[0] ?? '',
          dev: `cali-${p.name}`.slice(0, 15),
        })),
        ...c.nodes.filter((o) => o !== n).map((o) => ({ to: o.podCidr, via: o.ip })),
        { to: 'default', via: ROUTER_IP },
      ],
      // kube-proxy sets route_localnet for localhost NodePorts.
      sysctls: { ipForward: true, routeLocalnet: true },
      listeners: [{ process: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22 }],
      rules,
    });
    hosts.push(...pods);
  }
  return { hosts };
}

/** A ready endpoint on `node`. */
export function endpoint(ip: string, node: string): EndpointModel {
  return {
    addresses: [ip],
    nodeName: node,
    zone: null,
    ready: true,
    serving: true,
    terminating: false,
    hints: null,
    targetRef: null,
  };
}

/** A one-port TCP Service (port 80 -> 8080) with the API server's defaults. */
export function service(
  name: string,
  clusterIP: string,
  opts: Partial<
    Pick<
      ServiceModel,
      'type' | 'externalTrafficPolicy' | 'internalTrafficPolicy' | 'sessionAffinity'
    >
  > & {
    nodePort?: number;
  } = {},
): ServiceModel {
  return {
    namespace: 'default',
    name,
    type: opts.type ?? (opts.nodePort ? 'NodePort' : 'ClusterIP'),
    clusterIP,
    ports: [
      { name: '', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: opts.nodePort ?? null },
    ],
    externalIPs: [],
    loadBalancerIngress: [],
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: opts.externalTrafficPolicy ?? 'Cluster',
    internalTrafficPolicy: opts.internalTrafficPolicy ?? 'Cluster',
    healthCheckNodePort: null,
    sessionAffinity: opts.sessionAffinity ?? { type: 'None' },
    topologyMode: null,
    selector: null,
  };
}

/** The EndpointSlice of a one-port Service. */
export function slice(svc: string, endpoints: readonly EndpointModel[]): EndpointSliceModel {
  return {
    namespace: 'default',
    service: svc,
    addressType: 'IPv4',
    ports: [{ name: '', port: 8080, protocol: 'TCP' }],
    endpoints,
  };
}
