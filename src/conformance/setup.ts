/**
 * Turns a conformance case's `setup` (the Services, EndpointSlices and proxier overrides of a
 * kube-proxy unit test, see the corpus README, conformance/README.md) into the generator's ProxierInput,
 * configured like kube-proxy's fake proxier: node `test-node`, pod CIDR 10.0.0.0/8 / fd00:10::/64,
 * masquerade bit 14. iptables mode (`NewFakeProxier` in pkg/proxy/iptables/proxier_test.go): both
 * nfacct counters present, no --random-fully (the fake iptables lacks it), NodePorts on every
 * local address. nftables mode (`NewFakeProxier` in pkg/proxy/nftables/proxier_test.go,
 * kubernetes/kubernetes@81810de6): NodePorts only on 192.168.0.2/32 and 2001:db8::1/128 (the
 * primary node IPs), Service CIDRs 172.30.0.0/16 and fd00:10:96::/112.
 */
import type {
  EndpointModel,
  EndpointSliceModel,
  ProxierInput,
  Protocol,
  ServiceModel,
} from '../kube/model.ts';

export interface SetupPort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
  readonly nodePort?: number;
  readonly targetPort?: number | string;
}

export interface SetupService {
  readonly namespace: string;
  readonly name: string;
  readonly type: ServiceModel['type'];
  readonly clusterIP: string;
  readonly ports: readonly SetupPort[];
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIngress?: readonly string[];
  readonly loadBalancerSourceRanges?: readonly string[];
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  readonly internalTrafficPolicy?: 'Cluster' | 'Local';
  readonly healthCheckNodePort?: number;
  readonly sessionAffinity?: {
    readonly type: 'ClientIP' | 'None';
    readonly timeoutSeconds?: number;
  };
  readonly selector?: Readonly<Record<string, string>>;
}

export interface SetupEndpoint {
  readonly addresses: readonly string[];
  readonly nodeName?: string;
  readonly zone?: string;
  readonly conditions?: {
    readonly ready?: boolean;
    readonly serving?: boolean;
    readonly terminating?: boolean;
  };
  readonly hints?: { readonly forZones?: readonly string[]; readonly forNodes?: readonly string[] };
}

export interface SetupSlice {
  readonly namespace: string;
  readonly service: string;
  readonly addressType: 'IPv4' | 'IPv6';
  readonly endpoints: readonly SetupEndpoint[];
  readonly ports: readonly {
    readonly name: string;
    readonly port: number;
    readonly protocol: Protocol;
  }[];
}

export interface ProxierOverrides {
  readonly ipFamily?: 'IPv4' | 'IPv6';
  readonly localhostNodePorts?: boolean;
  readonly nodePortAddresses?: readonly string[] | null;
  readonly masqueradeAll?: boolean;
  readonly localDetector?: 'none';
}

export interface Setup {
  readonly services: readonly SetupService[];
  readonly endpointSlices: readonly SetupSlice[];
  readonly proxierOverrides?: ProxierOverrides;
}

function service(s: SetupService): ServiceModel {
  const affinity = s.sessionAffinity;
  return {
    namespace: s.namespace,
    name: s.name,
    type: s.type,
    clusterIP: s.clusterIP,
    ports: s.ports.map((p) => ({
      name: p.name,
      port: p.port,
      protocol: p.protocol,
      targetPort: p.targetPort ?? p.port,
      nodePort: p.nodePort ?? null,
    })),
    externalIPs: s.externalIPs ?? [],
    loadBalancerIngress: (s.loadBalancerIngress ?? []).map((ip) => ({ ip })),
    loadBalancerSourceRanges: s.loadBalancerSourceRanges ?? [],
    externalTrafficPolicy: s.externalTrafficPolicy ?? 'Cluster',
    internalTrafficPolicy: s.internalTrafficPolicy ?? 'Cluster',
    healthCheckNodePort: s.healthCheckNodePort ?? null,
    sessionAffinity:
      affinity?.type === 'ClientIP'
        ? { type: 'ClientIP', timeoutSeconds: affinity.timeoutSeconds ?? 10800 }
        : { type: 'None' },
    topologyMode: null,
    selector: s.selector ?? null,
  };
}

/** EndpointSlice conditions: absent `ready` and `serving` mean true, absent `terminating` false. */
function endpoint(e: SetupEndpoint): EndpointModel {
  const hints = e.hints
    ? {
        forZones: e.hints.forZones ?? [],
        ...(e.hints.forNodes ? { forNodes: e.hints.forNodes } : {}),
      }
    : null;
  return {
    addresses: e.addresses,
    nodeName: e.nodeName ?? null,
    zone: e.zone ?? null,
    ready: e.conditions?.ready ?? true,
    serving: e.conditions?.serving ?? true,
    terminating: e.conditions?.terminating ?? false,
    hints,
    targetRef: null,
  };
}

function slice(s: SetupSlice): EndpointSliceModel {
  return {
    namespace: s.namespace,
    service: s.service,
    addressType: s.addressType,
    endpoints: s.endpoints.map(endpoint),
    ports: s.ports,
  };
}

/** What the nftables fake proxier sets where the iptables one leaves the defaults. */
export const NFT_FAKE = {
  nodePortAddresses: ['192.168.0.2/32', '2001:db8::1/128'],
  serviceCIDRs: ['172.30.0.0/16', 'fd00:10:96::/112'],
} as const;

export function setupToProxierInput(
  setup: Setup,
  nodeIPs: readonly string[],
  caseFamily: 'IPv4' | 'IPv6',
  mode: 'iptables' | 'nftables' = 'iptables',
): ProxierInput {
  const o = setup.proxierOverrides ?? {};
  const family = (o.ipFamily ?? caseFamily) === 'IPv6' ? 6 : 4;
  const nft = mode === 'nftables';
  return {
    services: setup.services.map(service),
    endpointSlices: setup.endpointSlices.map(slice),
    config: {
      nodeName: 'test-node',
      nodeIPs,
      ipFamily: family,
      clusterCIDR: o.localDetector === 'none' ? null : '10.0.0.0/8,fd00:10::/64',
      masqueradeAll: o.masqueradeAll ?? false,
      masqueradeBit: 14,
      localhostNodePorts: o.localhostNodePorts ?? true,
      nodePortAddresses: o.nodePortAddresses ?? (nft ? NFT_FAKE.nodePortAddresses : []),
      zone: null,
      nfacct: true,
      randomFully: false,
      conntrackTCPLiberal: false,
      ...(nft ? { serviceCIDRs: NFT_FAKE.serviceCIDRs } : {}),
    },
  };
}

/**
 * The documented normalisation for comparing with kube-proxy's test output: the tests set the
 * mark string to `0x4000` where the real proxier writes `%#08x`, i.e. `0x00004000`.
 */
export function normaliseMark(restoreInput: string): string {
  return restoreInput.replaceAll('0x00004000', '0x4000');
}
