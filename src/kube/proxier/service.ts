/**
 * Service ports as kube-proxy's iptables proxier sees them (pkg/proxy/serviceport.go,
 * `newBaseServiceInfo`; pkg/api/v1/service/util.go; pkg/proxy/iptables/proxier.go,
 * `newServiceInfo`), for one IP family. Followed: kube-proxy v1.34/v1.35.
 */
import { parseCidr } from '../../engine/index.ts';
import { ipOfFamily } from './addr.ts';
import type { Protocol, ServiceModel, ServicePortModel } from '../model.ts';
import { CHAIN_PREFIX, portProtoHash } from './hash.ts';

/** The four per-service-port chain names of a proxier mode. */
export interface ServiceChainNames {
  readonly cluster: string;
  readonly local: string;
  readonly external: string;
  readonly firewall: string;
}

/** How a mode names a service port's chains, from its namespace, name, port name and protocol. */
export type ChainNaming = (
  svc: ServiceModel,
  port: ServicePortModel,
  servicePortName: string,
  proto: ServicePortInfo['proto'],
) => ServiceChainNames;

/** iptables mode: `KUBE-SVC-`/`KUBE-SVL-`/`KUBE-EXT-`/`KUBE-FW-` + H16(`<spn><protocol>`). */
export const IPTABLES_NAMING: ChainNaming = (_svc, _port, spn, proto) => {
  const hash = portProtoHash(spn, proto);
  return {
    cluster: CHAIN_PREFIX.cluster + hash,
    local: CHAIN_PREFIX.local + hash,
    external: CHAIN_PREFIX.external + hash,
    firewall: CHAIN_PREFIX.firewall + hash,
  };
};

type Cidr = NonNullable<ReturnType<typeof parseCidr>>;

export interface ServicePortInfo {
  readonly service: ServiceModel;
  readonly port: ServicePortModel;
  /** `ns/name:port` (or `ns/name` for an unnamed port): ServicePortName.String(). */
  readonly name: string;
  /** Lower-case protocol, as used in `-m tcp -p tcp` and in the chain-name hashes. */
  readonly proto: 'tcp' | 'udp' | 'sctp';
  readonly protocol: Protocol;
  readonly clusterIP: string;
  readonly externalIPs: readonly string[];
  readonly loadBalancerVIPs: readonly string[];
  readonly sourceRanges: readonly Cidr[];
  readonly nodePort: number;
  /** 0 unless a LoadBalancer with externalTrafficPolicy Local (NeedsHealthCheck). */
  readonly healthCheckNodePort: number;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  /** Seconds for ClientIP affinity, or null for no affinity. */
  readonly affinitySeconds: number | null;
  readonly chains: ServiceChainNames;
  readonly externallyAccessible: boolean;
  readonly usesClusterEndpoints: boolean;
  readonly usesLocalEndpoints: boolean;
}

/** ServicePortName.String(): the port name is appended only when the port is named. */
export function servicePortName(ns: string, name: string, port: string): string {
  return port === '' ? `${ns}/${name}` : `${ns}/${name}:${port}`;
}

/** IPs of `family`, parsed leniently and re-printed canonically (MapIPsByIPFamily). */
function ipsOfFamily(texts: readonly string[], family: 4 | 6): string[] {
  const out: string[] = [];
  for (const t of texts) {
    const ip = ipOfFamily(t.trim(), family);
    if (ip !== null) out.push(ip);
  }
  return out;
}

/** Source ranges of `family` (spaces trimmed); a zero-length prefix means "allow all" = none. */
function sourceRangesOfFamily(texts: readonly string[], family: 4 | 6): Cidr[] {
  const out: Cidr[] = [];
  for (const t of texts) {
    const s = t.trim();
    if (!s.includes('/')) continue;
    const c = parseCidr(s);
    if (c && c.family === family) out.push(c);
  }
  return out.some((c) => c.prefix === 0) ? [] : out;
}

/**
 * The service ports kube-proxy programs for `family`: headless and ExternalName Services and
 * Services without a ClusterIP of this family are skipped (ShouldSkipService,
 * GetClusterIPByFamily).
 */
export function servicePortInfos(
  services: readonly ServiceModel[],
  family: 4 | 6,
  naming: ChainNaming = IPTABLES_NAMING,
): ServicePortInfo[] {
  const out: ServicePortInfo[] = [];
  for (const svc of services) {
    if (svc.type === 'ExternalName' || svc.clusterIP === null) continue;
    const clusterIP = ipOfFamily(svc.clusterIP, family);
    if (clusterIP === null) continue;
    // ExternallyAccessible / ExternalPolicyLocal / NeedsHealthCheck of the API helpers.
    const apiExternal =
      svc.type === 'LoadBalancer' ||
      svc.type === 'NodePort' ||
      (svc.type === 'ClusterIP' && svc.externalIPs.length > 0);
    const externalPolicyLocal = apiExternal && svc.externalTrafficPolicy === 'Local';
    const internalPolicyLocal = svc.internalTrafficPolicy === 'Local';
    const needsHealthCheck = svc.type === 'LoadBalancer' && externalPolicyLocal;
    const externalIPs = ipsOfFamily(svc.externalIPs, family);
    // Ingress IPs with ipMode Proxy are left to the load balancer (IsVIPMode).
    const loadBalancerVIPs = ipsOfFamily(
      svc.loadBalancerIngress.filter((i) => (i.ipMode ?? 'VIP') === 'VIP').map((i) => i.ip),
      family,
    );
    const sourceRanges = sourceRangesOfFamily(svc.loadBalancerSourceRanges, family);
    for (const port of svc.ports) {
      const name = servicePortName(svc.namespace, svc.name, port.name);
      const proto = port.protocol.toLowerCase() as ServicePortInfo['proto'];
      const nodePort = port.nodePort ?? 0;
      const externallyAccessible =
        nodePort !== 0 || loadBalancerVIPs.length > 0 || externalIPs.length > 0;
      out.push({
        service: svc,
        port,
        name,
        proto,
        protocol: port.protocol,
        clusterIP,
        externalIPs,
        loadBalancerVIPs,
        sourceRanges,
        nodePort,
        healthCheckNodePort: needsHealthCheck ? (svc.healthCheckNodePort ?? 0) : 0,
        externalPolicyLocal,
        internalPolicyLocal,
        affinitySeconds:
          svc.sessionAffinity.type === 'ClientIP' ? svc.sessionAffinity.timeoutSeconds : null,
        chains: naming(svc, port, name, proto),
        externallyAccessible,
        // Cluster endpoints are needed for iTP Cluster, and for short-circuiting external traffic.
        usesClusterEndpoints: !internalPolicyLocal || externallyAccessible,
        usesLocalEndpoints: internalPolicyLocal || (externalPolicyLocal && externallyAccessible),
      });
    }
  }
  return out;
}
