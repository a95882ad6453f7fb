/**
 * kube-proxy's IPVS proxier, ported from `syncProxyRules` in pkg/proxy/ipvs/proxier.go
 * (danwinship/kubernetes 6c763fd5abda8a2e1b595e125a7810c9c0111b2f, kube-proxy v1.34/v1.35): from
 * the same ProxierInput as the iptables generator, what one node gets in IPVS mode: the
 * addresses bound to the dummy interface kube-ipvs0, the ipsets, the iptables rules and the IPVS
 * virtual and real servers. Service ports and endpoints come from the iptables generator's
 * model (src/kube/proxier: service.ts, endpoints.ts), which ports the code both proxiers share
 * (pkg/proxy/serviceport.go, endpointslicecache.go, topology.go).
 *
 * IPVS mode is deprecated since Kubernetes v1.35 (KEP-5495, kubernetes/kubernetes#134539): a
 * KubeProxyIPVS feature gate is planned to default to false in v1.40 and lock in v1.43.
 *
 * Differences from a real sync (one stateless full sync): services in input order (kube-proxy
 * iterates a Go map), set entries and kube-ipvs0 addresses sorted, no graceful termination of
 * removed real servers, no stale-service cleanup.
 */
import { cidrContains, ipvsadmList, type IpvsSpec } from '../../engine/index.ts';
import type { ProxierInput } from '../model.ts';
import { deriveSettings, formatMark } from '../proxier/config.ts';
import {
  buildEndpointsMap,
  categorizeEndpoints,
  servicePortKey,
  type ProxyEndpoint,
} from '../proxier/endpoints.ts';
import { servicePortInfos, type ServicePortInfo } from '../proxier/service.ts';
import { IPSET_INFO, IpsetList, ipPort, ipsetSave, type GeneratedSet } from './ipsets.ts';
import { nodeAddressSet, nodePortIPs } from './node-ips.ts';
import { dumpText, restoreText, writeIptablesRules, type NoNodeAccess } from './rules.ts';

/** The IPVS proxier's own settings (KubeProxyIPVSConfiguration). */
export interface IpvsConfig {
  /** `ipvs.scheduler`; empty means rr. */
  readonly scheduler?: string;
  /** `ipvs.strictARP`: arp_ignore=1 and arp_announce=2 on all interfaces. */
  readonly strictARP?: boolean;
}

export type VirtualServerKind = 'cluster-ip' | 'external-ip' | 'load-balancer' | 'node-port';

/** One IPVS virtual server with its real servers, and why kube-proxy created it. */
export interface VirtualServerInfo {
  readonly kind: VirtualServerKind;
  /** Service port name `ns/name:port`. */
  readonly servicePort: string;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  readonly address: string;
  readonly port: number;
  readonly scheduler: string;
  /** Persistence timeout (sessionAffinity ClientIP), or null. */
  readonly persistent: number | null;
  /** `ip:port` of each real server (weight 1), in endpoint order. */
  readonly realServers: readonly ProxyEndpoint[];
  /** Whether the real servers are the node-local endpoints only. */
  readonly localOnly: boolean;
}

export interface IpvsRules {
  readonly family: 4 | 6;
  /** Addresses on kube-ipvs0 after the sync (activeBindAddrs), sorted. */
  readonly dummyAddresses: readonly string[];
  readonly sets: readonly GeneratedSet[];
  /** `ipset save` text of every set. */
  readonly ipsetSave: string;
  /** What kube-proxy passes to `iptables-restore --noflush --counters` (nat, then filter). */
  readonly restoreInput: string;
  /** A self-contained dump: built-in chains, the jumps kube-proxy ensures, then its rules. */
  readonly dump: string;
  readonly virtualServers: readonly VirtualServerInfo[];
  /** The IPVS table as the engine takes it (HostSpec.ipvs). */
  readonly ipvs: IpvsSpec;
  /** `ipvsadm -Ln`. */
  readonly ipvsadm: string;
  /** The sysctls NewProxier sets (name -> value). */
  readonly sysctls: Readonly<Record<string, number>>;
}

/** syncEndpoint: the real servers of one virtual server. */
function realServersOf(
  eps: readonly ProxyEndpoint[],
  info: ServicePortInfo,
  nodeName: string,
  zone: string,
  onlyNodeLocal: boolean,
): { servers: readonly ProxyEndpoint[]; localOnly: boolean } {
  const cat = categorizeEndpoints(eps, info, nodeName, zone);
  if (!onlyNodeLocal) return { servers: cat.cluster ?? [], localOnly: false };
  // kubernetes/kubernetes#97081: without a local endpoint the cluster-wide ones are used, so
  // local pods still reach the service; an outside client's reply then comes from the pod's
  // address and is discarded. (This is why every node lists every backend under Local.)
  if (cat.local && cat.local.length > 0) return { servers: cat.local, localOnly: true };
  return { servers: cat.cluster ?? [], localOnly: false };
}

/** What generating one node's IPVS proxier state accumulates, Service port by Service port. */
interface IpvsGen {
  readonly cfg: ProxierInput['config'];
  readonly settings: ReturnType<typeof deriveSettings>;
  readonly scheduler: string;
  readonly sets: IpsetList;
  readonly endpointsMap: ReturnType<typeof buildEndpointsMap>;
  readonly nodeAddresses: ReadonlySet<string>;
  /** NodePort addresses (empty when the cluster has no NodePort). */
  readonly npIPs: readonly string[];
  /** Addresses bound to kube-ipvs0. */
  readonly bound: Set<string>;
  readonly vss: VirtualServerInfo[];
  readonly noNodeAccess: NoNodeAccess[];
}

type PortInfo = ReturnType<typeof servicePortInfos>[number];

export function generateIpvsRules(input: ProxierInput, ipvsConfig: IpvsConfig = {}): IpvsRules {
  const cfg = input.config;
  const family = cfg.ipFamily;
  const settings = deriveSettings(cfg);
  const sets = new IpsetList(family);
  const ports = servicePortInfos(input.services, family);
  const hasNodePort = ports.some((p) => p.nodePort !== 0);
  const g: IpvsGen = {
    cfg,
    settings,
    scheduler: ipvsConfig.scheduler || 'rr',
    sets,
    endpointsMap: buildEndpointsMap(input.endpointSlices, family, cfg.nodeName),
    nodeAddresses: new Set(nodeAddressSet(cfg)),
    npIPs: hasNodePort ? nodePortIPs(cfg) : [],
    bound: new Set<string>(),
    vss: [],
    noNodeAccess: [],
  };
  for (const info of ports) capturePort(g, info);
  const { bound, vss, noNodeAccess } = g;
  for (const ip of bound) sets.insert('KUBE-IPVS-IPS', ip);

  const rules = writeIptablesRules(
    sets,
    {
      mark: formatMark(cfg.masqueradeBit),
      family,
      masqueradeAll: cfg.masqueradeAll,
      podCIDR: settings.podCIDR,
      randomFully: cfg.randomFully,
      comments: new Map(IPSET_INFO.map((i) => [i.name, i.comment])),
    },
    noNodeAccess,
  );
  const generated = sets.sets();
  const ipvs: IpvsSpec = {
    services: vss.map((v) => ({
      proto: v.proto,
      address: v.address,
      port: v.port,
      scheduler: v.scheduler,
      ...(v.persistent !== null ? { persistent: v.persistent } : {}),
      realServers: v.realServers.map((r) => ({ address: r.ip, port: r.port, weight: 1 })),
      owner: v.servicePort,
    })),
    conntrack: true,
  };
  const sysctls: Record<string, number> = {
    'net/ipv4/vs/conntrack': 1,
    'net/ipv4/vs/expire_nodest_conn': 1,
    'net/ipv4/vs/expire_quiescent_template': 1,
    'net/ipv4/ip_forward': 1,
    ...(ipvsConfig.strictARP
      ? { 'net/ipv4/conf/all/arp_ignore': 1, 'net/ipv4/conf/all/arp_announce': 2 }
      : {}),
  };
  return {
    family,
    dummyAddresses: [...bound].sort(),
    sets: generated,
    ipsetSave: ipsetSave(generated),
    restoreInput: restoreText(rules),
    dump: dumpText(rules, cfg.nodeName, family),
    virtualServers: vss,
    ipvs,
    ipvsadm: ipvsadmList(ipvs),
    sysctls,
  };
}

/** One Service port: its ipsets entries and virtual servers (the proxier's syncProxyRules loop). */
function capturePort(g: IpvsGen, info: PortInfo): void {
  const { cfg, sets } = g;
  const proto = info.proto;
  const eps =
    g.endpointsMap.get(
      servicePortKey(info.service.namespace, info.service.name, info.port.name, info.protocol),
    ) ?? [];
  const vs = (kind: VirtualServerKind, address: string, port: number, onlyLocal: boolean) => {
    const rs = realServersOf(eps, info, cfg.nodeName, cfg.zone ?? '', onlyLocal);
    g.vss.push({
      kind,
      servicePort: info.name,
      proto,
      address,
      port,
      scheduler: g.scheduler,
      persistent: info.affinitySeconds,
      realServers: rs.servers,
      localOnly: rs.localOnly,
    });
  };
  // Handle traffic that loops back to the originator with SNAT: every local endpoint, ready or not.
  for (const ep of eps)
    if (ep.local) sets.insert('KUBE-LOOP-BACK', `${ep.ip},${proto}:${ep.port},${ep.ip}`);
  // Capture the clusterIP: always bound to kube-ipvs0.
  sets.insert('KUBE-CLUSTER-IP', ipPort(info.clusterIP, proto, info.port.port));
  vs('cluster-ip', info.clusterIP, info.port.port, info.internalPolicyLocal);
  g.bound.add(info.clusterIP);
  // Capture externalIPs; an address that is already on another interface is not bound.
  for (const ip of info.externalIPs) {
    const set = info.externalPolicyLocal ? 'KUBE-EXTERNAL-IP-LOCAL' : 'KUBE-EXTERNAL-IP';
    sets.insert(set, ipPort(ip, proto, info.port.port));
    vs('external-ip', ip, info.port.port, info.externalPolicyLocal);
    if (!g.nodeAddresses.has(ip)) g.bound.add(ip);
  }
  // Capture load-balancer ingress.
  for (const ip of info.loadBalancerVIPs) {
    captureLoadBalancer(g, info, ip);
    vs('load-balancer', ip, info.port.port, info.externalPolicyLocal);
    if (!g.nodeAddresses.has(ip)) g.bound.add(ip);
  }
  if (info.nodePort !== 0) {
    // Skip NodePorts (and the health check below) when no node address is usable.
    if (g.npIPs.length === 0) return;
    captureNodePort(g, info);
    // NodePort virtual servers on every node address; node IPs are never bound to kube-ipvs0.
    for (const ip of g.npIPs) vs('node-port', ip, info.nodePort, info.externalPolicyLocal);
  }
  if (info.healthCheckNodePort !== 0)
    sets.insert('KUBE-HEALTH-CHECK-NODE-PORT', String(info.healthCheckNodePort));
}

/** A load-balancer ingress address: its sets, with loadBalancerSourceRanges' firewall sets. */
function captureLoadBalancer(g: IpvsGen, info: PortInfo, ip: string): void {
  const { sets, settings } = g;
  const entry = ipPort(ip, info.proto, info.port.port);
  sets.insert('KUBE-LOAD-BALANCER', entry);
  if (info.externalPolicyLocal) sets.insert('KUBE-LOAD-BALANCER-LOCAL', entry);
  if (info.sourceRanges.length === 0) return;
  sets.insert('KUBE-LOAD-BALANCER-FW', entry);
  let allowFromNode = false;
  for (const cidr of info.sourceRanges) {
    sets.insert('KUBE-LOAD-BALANCER-SOURCE-CIDR', `${entry},${cidr.text}`);
    if (settings.primaryNodeIP !== null && cidrContains(cidr, settings.primaryNodeIP))
      allowFromNode = true;
  }
  // Node-to-LB traffic arrives with the LB IP as source (it is local on kube-ipvs0).
  if (allowFromNode) sets.insert('KUBE-LOAD-BALANCER-SOURCE-IP', `${entry},${ip}`);
  else g.noNodeAccess.push({ ip, proto: info.proto, port: info.port.port });
}

/** A NodePort's sets (by port; SCTP by address and port), with the Local policy's copies. */
function captureNodePort(g: IpvsGen, info: PortInfo): void {
  const proto = info.proto;
  const upper = proto.toUpperCase();
  const entries =
    proto === 'sctp'
      ? g.npIPs.map((ip) => ipPort(ip, proto, info.nodePort))
      : [String(info.nodePort)];
  const setName = proto === 'sctp' ? 'KUBE-NODE-PORT-SCTP-HASH' : `KUBE-NODE-PORT-${upper}`;
  for (const e of entries) g.sets.insert(setName, e);
  if (info.externalPolicyLocal) {
    const local =
      proto === 'sctp' ? 'KUBE-NODE-PORT-LOCAL-SCTP-HASH' : `KUBE-NODE-PORT-LOCAL-${upper}`;
    for (const e of entries) g.sets.insert(local, e);
  }
}
