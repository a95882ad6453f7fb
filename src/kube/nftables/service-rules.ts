/**
 * One service port in kube-proxy's nftables mode, in the order `syncProxyRules` writes it
 * (pkg/proxy/nftables/proxier.go, the body of `for svcName, svc := range proxier.svcPortMap` and
 * `writeServiceToEndpointRules`, read at danwinship/kubernetes@07c76c3a; the internal masquerade
 * rule without a port match as kubernetes/kubernetes@81810de6's tests expect it). Endpoint
 * selection is shared with iptables mode (../proxier/endpoints.ts). Followed: kube-proxy
 * v1.34/v1.35.
 */
import { cidrContains } from '../../engine/index.ts';
import type { ProxierSettings } from '../proxier/config.ts';
import type { Categorized, ProxyEndpoint } from '../proxier/endpoints.ts';
import type { ServicePortInfo } from '../proxier/service.ts';
import { endpointBase, NFT_PREFIX } from './names.ts';
import { CHAIN, MAP, SET } from './setup.ts';
import type { NftTransaction } from './transaction.ts';

export interface NftSyncContext {
  readonly settings: ProxierSettings;
  readonly masqueradeAll: boolean;
}

export interface NftEndpointRules {
  readonly endpoint: ProxyEndpoint;
  readonly chain: string;
  /** Set of client addresses for ClientIP affinity, or null. */
  readonly affinitySet: string | null;
  readonly inCluster: boolean;
  readonly inLocal: boolean;
}

/** What was decided for a service port, for callers that show the rules (the UI). */
export interface NftServicePortRules {
  readonly info: ServicePortInfo;
  readonly hasEndpoints: boolean;
  readonly hasInternalEndpoints: boolean;
  readonly hasExternalEndpoints: boolean;
  readonly clusterChain: string | null;
  readonly localChain: string | null;
  readonly externalChain: string | null;
  readonly firewallChain: string | null;
  readonly endpoints: readonly NftEndpointRules[];
}

interface NftEndpointNames {
  readonly chain: string;
  readonly affinity: string;
}

const elementKey = (ip: string, proto: string, port: number): string[] => [ip, proto, String(port)];

/** What kube-proxy decides for a service port before it writes anything. */
interface Plan {
  readonly hasEndpoints: boolean;
  readonly hasInternalEndpoints: boolean;
  readonly hasExternalEndpoints: boolean;
  readonly usesClusterChain: boolean;
  readonly usesLocalChain: boolean;
  readonly usesExtChain: boolean;
  readonly usesFwChain: boolean;
  /** Where ClusterIP traffic goes: the cluster- or the local-policy chain. */
  readonly internalChain: string;
  /** Where external traffic goes after the external chain's special cases. */
  readonly externalPolicyChain: string;
  /** No endpoints at all: reject; a Local policy without local endpoints: drop. */
  readonly noEndpointVerdict: string;
  readonly epChains: readonly NftEndpointNames[];
}

function plan(
  svc: ServicePortInfo,
  cat: Categorized,
  namesOf: (ep: ProxyEndpoint) => NftEndpointNames,
): Plan {
  const localEndpoints = cat.local ?? [];
  const hasEndpoints = cat.hasAny;
  const noLocal = localEndpoints.length === 0;
  return {
    hasEndpoints,
    hasInternalEndpoints: hasEndpoints && !(svc.internalPolicyLocal && noLocal),
    hasExternalEndpoints: hasEndpoints && !(svc.externalPolicyLocal && noLocal),
    usesClusterChain: (cat.cluster ?? []).length > 0 && svc.usesClusterEndpoints,
    usesLocalChain: !noLocal && svc.usesLocalEndpoints,
    // Needed even without external endpoints, for the local-traffic short-circuit rules.
    usesExtChain: hasEndpoints && svc.externallyAccessible,
    // Unlike iptables mode, the firewall chain does not depend on endpoints: the source check
    // runs in filter-prerouting-pre-dnat, before any no-endpoint verdict.
    usesFwChain: svc.loadBalancerVIPs.length > 0 && svc.sourceRanges.length > 0,
    internalChain: svc.internalPolicyLocal ? svc.chains.local : svc.chains.cluster,
    externalPolicyChain: svc.externalPolicyLocal ? svc.chains.local : svc.chains.cluster,
    noEndpointVerdict: hasEndpoints ? 'drop' : `goto ${CHAIN.reject}`,
    epChains: cat.reachable.map(namesOf),
  };
}

/** Writes one service port's chains, map elements and rules into `tx`, in kube-proxy's order. */
export function writeNftServicePort(
  ctx: NftSyncContext,
  svc: ServicePortInfo,
  cat: Categorized,
  tx: NftTransaction,
): NftServicePortRules {
  const [ns, svcName, portName] = [svc.service.namespace, svc.service.name, svc.port.name];
  const namesOf = (ep: ProxyEndpoint): NftEndpointNames => {
    const base = endpointBase(ns, svcName, svc.proto, portName, ep.text);
    return { chain: NFT_PREFIX.endpoint + base, affinity: NFT_PREFIX.affinity + base };
  };
  const pl = plan(svc, cat, namesOf);
  for (const e of pl.epChains) tx.addChain(e.chain);
  if (pl.usesClusterChain) tx.addChain(svc.chains.cluster);
  if (pl.usesLocalChain) tx.addChain(svc.chains.local);
  if (pl.usesExtChain) tx.addChain(svc.chains.external);
  writeElements(tx, svc, pl);
  writePolicyRules(ctx, tx, svc, pl);

  const reachable = cat.reachable;
  const affinity = svc.affinitySeconds;
  if (affinity !== null)
    for (const e of pl.epChains)
      tx.addSet(e.affinity, tx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr', {
        // "dynamic" is what the kernel turns such a set into anyway (RHEL8 note in proxier.go).
        flags: ['dynamic', 'timeout'],
        timeoutSeconds: affinity,
      });
  // The Cluster and Local lists hold the same endpoint objects as `reachable`.
  const byEndpoint = new Map(reachable.map((ep, i) => [ep, pl.epChains[i] as NftEndpointNames]));
  const chainsOf = (list: readonly ProxyEndpoint[]) =>
    list.map((ep) => byEndpoint.get(ep) ?? namesOf(ep));
  const clusterEndpoints = cat.cluster ?? [];
  const localEndpoints = cat.local ?? [];
  if (pl.usesClusterChain)
    writeServiceToEndpointRules(
      tx,
      svc.chains.cluster,
      chainsOf(clusterEndpoints),
      affinity !== null,
    );
  if (pl.usesLocalChain)
    writeServiceToEndpointRules(tx, svc.chains.local, chainsOf(localEndpoints), affinity !== null);

  const ipX = tx.family;
  const endpoints: NftEndpointRules[] = reachable.map((ep, i) => {
    const e = pl.epChains[i] as NftEndpointNames;
    // Hairpin: an endpoint reaching itself through the service must be masqueraded.
    tx.addRule(e.chain, `${ipX} saddr ${ep.ip} jump ${CHAIN.markMasq}`);
    if (affinity !== null) tx.addRule(e.chain, `update @${e.affinity} { ${ipX} saddr }`);
    tx.addRule(e.chain, `meta l4proto ${svc.proto} dnat to ${ep.text}`);
    return {
      endpoint: ep,
      chain: e.chain,
      affinitySet: affinity !== null ? e.affinity : null,
      inCluster: pl.usesClusterChain && clusterEndpoints.includes(ep),
      inLocal: pl.usesLocalChain && localEndpoints.includes(ep),
    };
  });

  return {
    info: svc,
    hasEndpoints: pl.hasEndpoints,
    hasInternalEndpoints: pl.hasInternalEndpoints,
    hasExternalEndpoints: pl.hasExternalEndpoints,
    clusterChain: pl.usesClusterChain ? svc.chains.cluster : null,
    localChain: pl.usesLocalChain ? svc.chains.local : null,
    externalChain: pl.usesExtChain ? svc.chains.external : null,
    firewallChain: pl.usesFwChain ? svc.chains.firewall : null,
    endpoints,
  };
}

/** The port's entries in the sets and verdict maps (and its firewall chain, declared on the way). */
function writeElements(tx: NftTransaction, svc: ServicePortInfo, pl: Plan): void {
  const p = svc.proto;
  const port = svc.port.port;
  const name = svc.name;
  const toExt = [`goto ${svc.chains.external}`];
  const none = [pl.noEndpointVerdict];
  // Capture the clusterIP.
  tx.addElement(SET.clusterIPs, [svc.clusterIP]);
  const cip = elementKey(svc.clusterIP, p, port);
  if (pl.hasInternalEndpoints) tx.addElement(MAP.serviceIPs, cip, [`goto ${pl.internalChain}`]);
  else tx.addElement(MAP.noEndpointServices, cip, none, name);
  // Capture externalIPs.
  for (const ip of svc.externalIPs) {
    if (pl.hasEndpoints) tx.addElement(MAP.serviceIPs, elementKey(ip, p, port), toExt);
    // Drops only what the external chain did not short-circuit (pods and the node itself).
    if (!pl.hasExternalEndpoints)
      tx.addElement(MAP.noEndpointServices, elementKey(ip, p, port), none, name);
  }
  const fwChain = svc.chains.firewall;
  if (pl.usesFwChain) tx.addChain(fwChain);
  // Capture load-balancer ingress.
  for (const ip of svc.loadBalancerVIPs) {
    if (pl.hasEndpoints) tx.addElement(MAP.serviceIPs, elementKey(ip, p, port), toExt);
    if (pl.usesFwChain)
      tx.addElement(MAP.firewallIPs, elementKey(ip, p, port), [`goto ${fwChain}`]);
  }
  if (!pl.hasExternalEndpoints)
    for (const ip of svc.loadBalancerVIPs)
      tx.addElement(MAP.noEndpointServices, elementKey(ip, p, port), none, name);
  // Capture nodeports (not subject to loadBalancerSourceRanges).
  if (svc.nodePort !== 0) {
    const key = [p, String(svc.nodePort)];
    if (pl.hasEndpoints) tx.addElement(MAP.serviceNodePorts, key, toExt);
    if (!pl.hasExternalEndpoints) tx.addElement(MAP.noEndpointNodePorts, key, none, name);
  }
}

/** Masquerading of ClusterIP traffic, the external chain, the LoadBalancer source-range check. */
function writePolicyRules(
  ctx: NftSyncContext,
  tx: NftTransaction,
  svc: ServicePortInfo,
  pl: Plan,
): void {
  const ipX = tx.family;
  const podCIDR = ctx.settings.podCIDR;
  // Internal traffic: masquerade off-cluster sources (or everything with masqueradeAll).
  if (pl.hasInternalEndpoints) {
    const dst = `${ipX} daddr ${svc.clusterIP}`;
    if (ctx.masqueradeAll) tx.addRule(pl.internalChain, `${dst} jump ${CHAIN.markMasq}`);
    else if (podCIDR !== null)
      tx.addRule(pl.internalChain, `${dst} ${ipX} saddr != ${podCIDR} jump ${CHAIN.markMasq}`);
  }
  const extChain = svc.chains.external;
  const clusterChain = svc.chains.cluster;
  if (pl.usesExtChain) {
    if (!svc.externalPolicyLocal) tx.addRule(extChain, `jump ${CHAIN.markMasq}`);
    else {
      // Pods and the node itself reach every endpoint; only outside sources keep their IP.
      if (podCIDR !== null)
        tx.addRule(
          extChain,
          `${ipX} saddr ${podCIDR} goto ${clusterChain}`,
          'short-circuit pod traffic',
        );
      tx.addRule(
        extChain,
        `fib saddr type local jump ${CHAIN.markMasq}`,
        'masquerade local traffic',
      );
      tx.addRule(
        extChain,
        `fib saddr type local goto ${clusterChain}`,
        'short-circuit local traffic',
      );
    }
    if (pl.hasExternalEndpoints) tx.addRule(extChain, `goto ${pl.externalPolicyChain}`);
  }
  if (pl.usesFwChain) {
    const sources = svc.sourceRanges.map((c) => c.text);
    const node = ctx.settings.primaryNodeIP;
    // Node-to-VIP traffic loops back with the VIP as its source address.
    if (node !== null && svc.sourceRanges.some((c) => cidrContains(c, node)))
      sources.push(...svc.loadBalancerVIPs);
    tx.addRule(svc.chains.firewall, `${ipX} saddr != { ${sources.join(' , ')} } drop`);
  }
}

/**
 * Affinity lookups first (a client seen before goes back to its endpoint), then one uniform
 * choice: `numgen random mod N vmap { 0 : goto ..., 1 : goto ... }` (no probability chain).
 */
function writeServiceToEndpointRules(
  tx: NftTransaction,
  chain: string,
  endpoints: readonly NftEndpointNames[],
  affinity: boolean,
): void {
  if (affinity)
    for (const e of endpoints)
      tx.addRule(chain, `${tx.family} saddr @${e.affinity} goto ${e.chain}`);
  const elements = endpoints.map((e, i) => `${i} : goto ${e.chain}`).join(' , ');
  tx.addRule(chain, `numgen random mod ${endpoints.length} vmap { ${elements} }`);
}
