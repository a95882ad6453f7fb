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

/** Writes one service port's chains, map elements and rules into `tx`. */
export function writeNftServicePort(
  ctx: NftSyncContext,
  svc: ServicePortInfo,
  cat: Categorized,
  tx: NftTransaction,
): NftServicePortRules {
  const ipX = tx.family;
  const p = svc.proto;
  const name = svc.name;
  const clusterEndpoints = cat.cluster ?? [];
  const localEndpoints = cat.local ?? [];
  const hasEndpoints = cat.hasAny;
  const reachable = cat.reachable;
  const [ns, svcName, portName] = [svc.service.namespace, svc.service.name, svc.port.name];
  const namesOf = (ep: ProxyEndpoint): NftEndpointNames => {
    const base = endpointBase(ns, svcName, p, portName, ep.text);
    return { chain: NFT_PREFIX.endpoint + base, affinity: NFT_PREFIX.affinity + base };
  };
  const epChains = reachable.map(namesOf);
  for (const e of epChains) tx.addChain(e.chain);

  const clusterChain = svc.chains.cluster;
  const usesClusterChain = clusterEndpoints.length > 0 && svc.usesClusterEndpoints;
  if (usesClusterChain) tx.addChain(clusterChain);
  const localChain = svc.chains.local;
  const usesLocalChain = localEndpoints.length > 0 && svc.usesLocalEndpoints;
  if (usesLocalChain) tx.addChain(localChain);

  let internalChain = clusterChain;
  let hasInternalEndpoints = hasEndpoints;
  if (svc.internalPolicyLocal) {
    internalChain = localChain;
    if (localEndpoints.length === 0) hasInternalEndpoints = false;
  }
  let externalPolicyChain = clusterChain;
  let hasExternalEndpoints = hasEndpoints;
  if (svc.externalPolicyLocal) {
    externalPolicyChain = localChain;
    if (localEndpoints.length === 0) hasExternalEndpoints = false;
  }
  const extChain = svc.chains.external;
  // Needed even without external endpoints, for the local-traffic short-circuit rules.
  const usesExtChain = hasEndpoints && svc.externallyAccessible;
  if (usesExtChain) tx.addChain(extChain);

  // No endpoints at all: reject; a Local policy without local endpoints: drop.
  const reject = `goto ${CHAIN.reject}`;
  const internalVerdict = !hasEndpoints ? reject : 'drop';
  const externalVerdict = !hasEndpoints ? reject : 'drop';
  const port = svc.port.port;

  // Capture the clusterIP.
  tx.addElement(SET.clusterIPs, [svc.clusterIP]);
  if (hasInternalEndpoints)
    tx.addElement(MAP.serviceIPs, elementKey(svc.clusterIP, p, port), [`goto ${internalChain}`]);
  else
    tx.addElement(
      MAP.noEndpointServices,
      elementKey(svc.clusterIP, p, port),
      [internalVerdict],
      name,
    );
  // Capture externalIPs.
  for (const ip of svc.externalIPs) {
    if (hasEndpoints) tx.addElement(MAP.serviceIPs, elementKey(ip, p, port), [`goto ${extChain}`]);
    // Drops only what the external chain did not short-circuit (pods and the node itself).
    if (!hasExternalEndpoints)
      tx.addElement(MAP.noEndpointServices, elementKey(ip, p, port), [externalVerdict], name);
  }
  // Unlike iptables mode, the firewall chain does not depend on endpoints: the source check
  // runs in filter-prerouting-pre-dnat, before any no-endpoint verdict.
  const fwChain = svc.chains.firewall;
  const usesFwChain = svc.loadBalancerVIPs.length > 0 && svc.sourceRanges.length > 0;
  if (usesFwChain) tx.addChain(fwChain);
  // Capture load-balancer ingress.
  for (const ip of svc.loadBalancerVIPs) {
    if (hasEndpoints) tx.addElement(MAP.serviceIPs, elementKey(ip, p, port), [`goto ${extChain}`]);
    if (usesFwChain) tx.addElement(MAP.firewallIPs, elementKey(ip, p, port), [`goto ${fwChain}`]);
  }
  if (!hasExternalEndpoints)
    for (const ip of svc.loadBalancerVIPs)
      tx.addElement(MAP.noEndpointServices, elementKey(ip, p, port), [externalVerdict], name);
  // Capture nodeports (not subject to loadBalancerSourceRanges).
  if (svc.nodePort !== 0) {
    const key = [p, String(svc.nodePort)];
    if (hasEndpoints) tx.addElement(MAP.serviceNodePorts, key, [`goto ${extChain}`]);
    if (!hasExternalEndpoints) tx.addElement(MAP.noEndpointNodePorts, key, [externalVerdict], name);
  }

  // Internal traffic: masquerade off-cluster sources (or everything with masqueradeAll).
  if (hasInternalEndpoints) {
    const dst = `${ipX} daddr ${svc.clusterIP}`;
    if (ctx.masqueradeAll) tx.addRule(internalChain, `${dst} jump ${CHAIN.markMasq}`);
    else if (ctx.settings.podCIDR !== null)
      tx.addRule(
        internalChain,
        `${dst} ${ipX} saddr != ${ctx.settings.podCIDR} jump ${CHAIN.markMasq}`,
      );
  }

  if (usesExtChain) {
    if (!svc.externalPolicyLocal) tx.addRule(extChain, `jump ${CHAIN.markMasq}`);
    else {
      // Pods and the node itself reach every endpoint; only outside sources keep their IP.
      if (ctx.settings.podCIDR !== null)
        tx.addRule(
          extChain,
          `${ipX} saddr ${ctx.settings.podCIDR} goto ${clusterChain}`,
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
    if (hasExternalEndpoints) tx.addRule(extChain, `goto ${externalPolicyChain}`);
  }

  if (usesFwChain) {
    const sources = svc.sourceRanges.map((c) => c.text);
    const node = ctx.settings.primaryNodeIP;
    // Node-to-VIP traffic loops back with the VIP as its source address.
    if (node !== null && svc.sourceRanges.some((c) => cidrContains(c, node)))
      sources.push(...svc.loadBalancerVIPs);
    tx.addRule(fwChain, `${ipX} saddr != { ${sources.join(' , ')} } drop`);
  }

  const affinity = svc.affinitySeconds;
  if (affinity !== null)
    for (const e of epChains)
      tx.addSet(e.affinity, tx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr', {
        // "dynamic" is what the kernel turns such a set into anyway (RHEL8 note in proxier.go).
        flags: ['dynamic', 'timeout'],
        timeoutSeconds: affinity,
      });

  // The Cluster and Local lists hold the same endpoint objects as `reachable`.
  const byEndpoint = new Map(reachable.map((ep, i) => [ep, epChains[i] as NftEndpointNames]));
  const chainsOf = (list: readonly ProxyEndpoint[]) =>
    list.map((ep) => byEndpoint.get(ep) ?? namesOf(ep));
  if (usesClusterChain)
    writeServiceToEndpointRules(tx, clusterChain, chainsOf(clusterEndpoints), affinity !== null);
  if (usesLocalChain)
    writeServiceToEndpointRules(tx, localChain, chainsOf(localEndpoints), affinity !== null);

  const endpoints: NftEndpointRules[] = [];
  reachable.forEach((ep, i) => {
    const e = epChains[i] as NftEndpointNames;
    // Hairpin: an endpoint reaching itself through the service must be masqueraded.
    tx.addRule(e.chain, `${ipX} saddr ${ep.ip} jump ${CHAIN.markMasq}`);
    if (affinity !== null) tx.addRule(e.chain, `update @${e.affinity} { ${ipX} saddr }`);
    tx.addRule(e.chain, `meta l4proto ${p} dnat to ${ep.text}`);
    endpoints.push({
      endpoint: ep,
      chain: e.chain,
      affinitySet: affinity !== null ? e.affinity : null,
      inCluster: usesClusterChain && clusterEndpoints.includes(ep),
      inLocal: usesLocalChain && localEndpoints.includes(ep),
    });
  });

  return {
    info: svc,
    hasEndpoints,
    hasInternalEndpoints,
    hasExternalEndpoints,
    clusterChain: usesClusterChain ? clusterChain : null,
    localChain: usesLocalChain ? localChain : null,
    externalChain: usesExtChain ? extChain : null,
    firewallChain: usesFwChain ? fwChain : null,
    endpoints,
  };
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
