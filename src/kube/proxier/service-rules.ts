/**
 * The rules of one service port, in the order kube-proxy's `syncProxyRules` writes them
 * (pkg/proxy/iptables/proxier.go, the body of `for svcName, svc := range proxier.svcPortMap`
 * and `writeServiceToEndpointRules`). Followed: kube-proxy v1.34/v1.35.
 */
import { cidrContains } from '../../engine/index.ts';
import type { Categorized, ProxyEndpoint } from './endpoints.ts';
import type { ProxierSettings } from './config.ts';
import { endpointChainName } from './hash.ts';
import type { LineBuffer } from './line-buffer.ts';
import type { ServicePortInfo } from './service.ts';

/** kube-proxy's four line buffers: chain declarations and rules of the filter and nat tables. */
export interface LineBuffers {
  readonly filterChains: LineBuffer;
  readonly filterRules: LineBuffer;
  readonly natChains: LineBuffer;
  readonly natRules: LineBuffer;
}

export interface SyncContext {
  readonly settings: ProxierSettings;
  readonly masqueradeAll: boolean;
  /** nfacct counter `localhost_nps_accepted_pkts` exists. */
  readonly nfacct: boolean;
  /** More than 1000 endpoints: endpoint comments are dropped (largeClusterEndpointsThreshold). */
  readonly largeClusterMode: boolean;
  probability(n: number): string;
}

/** What was decided for a service port, for callers that show the rules (the UI). */
export interface ServicePortRules {
  readonly info: ServicePortInfo;
  readonly hasEndpoints: boolean;
  readonly hasInternalEndpoints: boolean;
  readonly hasExternalEndpoints: boolean;
  /** Chains created for this port (null when not used). */
  readonly clusterChain: string | null;
  readonly localChain: string | null;
  readonly externalChain: string | null;
  readonly firewallChain: string | null;
  readonly endpoints: readonly EndpointRules[];
}

export interface EndpointRules {
  readonly endpoint: ProxyEndpoint;
  readonly chain: string;
  /** Listed in the cluster-policy (SVC) and/or local-policy (SVL) chain. */
  readonly inCluster: boolean;
  readonly inLocal: boolean;
}

export const chainLine = (name: string): string => `:${name} - [0:0]`;

/** Writes every rule of one service port into `buf`; returns what was decided. */
// eslint-disable-next-line max-lines-per-function -- transcribes syncProxyRules' per-service-port body in upstream order, to check side by side
export function writeServicePort(
  ctx: SyncContext,
  svc: ServicePortInfo,
  cat: Categorized,
  buf: LineBuffers,
): ServicePortRules {
  const { filterRules, natChains, natRules } = buf;
  const name = svc.name;
  const p = svc.proto;
  const proto = `-m ${p} -p ${p}`;
  const clusterEndpoints = cat.cluster ?? [];
  const localEndpoints = cat.local ?? [];
  const hasEndpoints = cat.hasAny;
  const clusterChain = svc.chains.cluster;
  const localChain = svc.chains.local;
  const usesClusterChain = clusterEndpoints.length > 0 && svc.usesClusterEndpoints;
  const usesLocalChain = localEndpoints.length > 0 && svc.usesLocalEndpoints;

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
  // The EXT chain is needed even without external endpoints, for the short-circuit rules.
  const usesExtChain = hasEndpoints && svc.externallyAccessible;
  const fwChain = svc.chains.firewall;
  const usesFwChain =
    hasEndpoints && svc.loadBalancerVIPs.length > 0 && svc.sourceRanges.length > 0;
  const lbChain = usesFwChain ? fwChain : extChain;

  let internalTarget = '';
  let internalComment = '';
  let externalTarget = '';
  let externalComment = '';
  if (!hasEndpoints) {
    internalTarget = externalTarget = 'REJECT';
    internalComment = externalComment = `"${name} has no endpoints"`;
  } else {
    if (!hasInternalEndpoints) {
      internalTarget = 'DROP';
      internalComment = `"${name} has no local endpoints"`;
    }
    if (!hasExternalEndpoints) {
      externalTarget = 'DROP';
      externalComment = `"${name} has no local endpoints"`;
    }
  }

  const cipMatch = `${proto} -d ${svc.clusterIP} --dport ${svc.port.port}`;
  // Capture the clusterIP.
  if (hasInternalEndpoints) {
    natRules.push(
      `-A KUBE-SERVICES -m comment --comment "${name} cluster IP" ${cipMatch} -j ${internalChain}`,
    );
  } else {
    filterRules.push(
      `-A KUBE-SERVICES -m comment --comment ${internalComment} ${cipMatch} -j ${internalTarget}`,
    );
  }
  // Capture externalIPs.
  for (const ip of svc.externalIPs) {
    const match = `${proto} -d ${ip} --dport ${svc.port.port}`;
    if (hasEndpoints) {
      natRules.push(
        `-A KUBE-SERVICES -m comment --comment "${name} external IP" ${match} -j ${extChain}`,
      );
    }
    if (!hasExternalEndpoints) {
      filterRules.push(
        `-A KUBE-EXTERNAL-SERVICES -m comment --comment ${externalComment} ${match} -j ${externalTarget}`,
      );
    }
  }
  // Capture load-balancer ingress.
  for (const ip of svc.loadBalancerVIPs) {
    const match = `${proto} -d ${ip} --dport ${svc.port.port}`;
    if (hasEndpoints) {
      natRules.push(
        `-A KUBE-SERVICES -m comment --comment "${name} loadbalancer IP" ${match} -j ${lbChain}`,
      );
    }
    if (usesFwChain) {
      filterRules.push(
        `-A KUBE-PROXY-FIREWALL -m comment --comment "${name} traffic not accepted by ${fwChain}" ${match} -j DROP`,
      );
    }
  }
  if (!hasExternalEndpoints) {
    for (const ip of svc.loadBalancerVIPs) {
      filterRules.push(
        `-A KUBE-EXTERNAL-SERVICES -m comment --comment ${externalComment} ${proto} -d ${ip} --dport ${svc.port.port} -j ${externalTarget}`,
      );
    }
  }
  // Capture nodeports (not subject to loadBalancerSourceRanges).
  if (svc.nodePort !== 0) {
    if (hasEndpoints) {
      if (ctx.settings.localhostNodePorts && ctx.nfacct) {
        natRules.push(
          `-A KUBE-NODEPORTS -m comment --comment ${name} ${proto} -d 127.0.0.0/8 --dport ${svc.nodePort} -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ${extChain}`,
        );
      }
      natRules.push(
        `-A KUBE-NODEPORTS -m comment --comment ${name} ${proto} --dport ${svc.nodePort} -j ${extChain}`,
      );
    }
    if (!hasExternalEndpoints) {
      filterRules.push(
        `-A KUBE-EXTERNAL-SERVICES -m comment --comment ${externalComment} -m addrtype --dst-type LOCAL ${proto} --dport ${svc.nodePort} -j ${externalTarget}`,
      );
    }
  }
  // Capture healthCheckNodePorts, whether or not the node has local endpoints.
  if (svc.healthCheckNodePort !== 0) {
    filterRules.push(
      `-A KUBE-NODEPORTS -m comment --comment "${name} health check node port" -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
    );
  }

  // Internal traffic: masquerade off-cluster sources (or everything with masqueradeAll).
  if (hasInternalEndpoints) {
    const head = `-A ${internalChain} -m comment --comment "${name} cluster IP" ${cipMatch}`;
    if (ctx.masqueradeAll) natRules.push(`${head} -j KUBE-MARK-MASQ`);
    else if (ctx.settings.podCIDR !== null) {
      natRules.push(`${head} ! -s ${ctx.settings.podCIDR} -j KUBE-MARK-MASQ`);
    }
  }

  if (usesExtChain) {
    natChains.push(chainLine(extChain));
    if (!svc.externalPolicyLocal) {
      natRules.push(
        `-A ${extChain} -m comment --comment "masquerade traffic for ${name} external destinations" -j KUBE-MARK-MASQ`,
      );
    } else {
      // Pods and the node itself reach every endpoint; only outside sources keep their IP.
      if (ctx.settings.podCIDR !== null) {
        natRules.push(
          `-A ${extChain} -m comment --comment "pod traffic for ${name} external destinations" -s ${ctx.settings.podCIDR} -j ${clusterChain}`,
        );
      }
      natRules.push(
        `-A ${extChain} -m comment --comment "masquerade LOCAL traffic for ${name} external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      );
      natRules.push(
        `-A ${extChain} -m comment --comment "route LOCAL traffic for ${name} external destinations" -m addrtype --src-type LOCAL -j ${clusterChain}`,
      );
    }
    if (hasExternalEndpoints) natRules.push(`-A ${extChain} -j ${externalPolicyChain}`);
  }

  if (usesFwChain) {
    natChains.push(chainLine(fwChain));
    const head = `-A ${fwChain} -m comment --comment "${name} loadbalancer IP"`;
    const node = ctx.settings.primaryNodeIP;
    let allowFromNode = false;
    for (const cidr of svc.sourceRanges) {
      natRules.push(`${head} -s ${cidr.text} -j ${extChain}`);
      if (node !== null && cidrContains(cidr, node)) allowFromNode = true;
    }
    // Node-to-VIP traffic loops back with the VIP as source address.
    if (allowFromNode) {
      for (const ip of svc.loadBalancerVIPs) natRules.push(`${head} -s ${ip} -j ${extChain}`);
    }
    natRules.push(
      `-A ${fwChain} -m comment --comment "other traffic to ${name} will be dropped by KUBE-PROXY-FIREWALL"`,
    );
  }

  // One KUBE-SEP chain per reachable endpoint; the SVC/SVL lists hold the same objects.
  const reachable = cat.reachable;
  const sepChains = reachable.map((ep) => endpointChainName(name, p, ep.text));
  const chainsOf = (list: readonly ProxyEndpoint[]): readonly string[] =>
    list === reachable
      ? sepChains
      : list.map((ep) => sepChains[reachable.indexOf(ep)] ?? endpointChainName(name, p, ep.text));
  if (usesClusterChain) {
    natChains.push(chainLine(clusterChain));
    const names = chainsOf(clusterEndpoints);
    writeServiceToEndpointRules(ctx, svc, clusterChain, clusterEndpoints, names, natRules);
  }
  if (usesLocalChain) {
    natChains.push(chainLine(localChain));
    const names = chainsOf(localEndpoints);
    writeServiceToEndpointRules(ctx, svc, localChain, localEndpoints, names, natRules);
  }

  const endpoints: EndpointRules[] = [];
  const inList = (used: boolean, list: readonly ProxyEndpoint[], ep: ProxyEndpoint) =>
    used && (list === reachable || list.includes(ep));
  reachable.forEach((ep, i) => {
    const chain = sepChains[i] as string;
    natChains.push(chainLine(chain));
    const head = ctx.largeClusterMode ? `-A ${chain}` : `-A ${chain} -m comment --comment ${name}`;
    // Hairpin: an endpoint reaching itself through the service must be masqueraded.
    natRules.push(`${head} -s ${ep.ip} -j KUBE-MARK-MASQ`);
    const affinity = svc.affinitySeconds !== null ? ` -m recent --name ${chain} --set` : '';
    natRules.push(`${head}${affinity} ${proto} -j DNAT --to-destination ${ep.text}`);
    endpoints.push({
      endpoint: ep,
      chain,
      inCluster: inList(usesClusterChain, clusterEndpoints, ep),
      inLocal: inList(usesLocalChain, localEndpoints, ep),
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

/** Affinity lookups first, then one rule per endpoint with probability 1/(n-i), the last without. */
function writeServiceToEndpointRules(
  ctx: SyncContext,
  svc: ServicePortInfo,
  chain: string,
  endpoints: readonly ProxyEndpoint[],
  names: readonly string[],
  natRules: LineBuffer,
): void {
  const comment = (ep: ProxyEndpoint) =>
    ctx.largeClusterMode ? '' : ` -m comment --comment "${svc.name} -> ${ep.text}"`;
  if (svc.affinitySeconds !== null) {
    endpoints.forEach((ep, i) => {
      const sep = names[i] as string;
      natRules.push(
        `-A ${chain}${comment(ep)} -m recent --name ${sep} --rcheck --seconds ${svc.affinitySeconds} --reap -j ${sep}`,
      );
    });
  }
  const n = endpoints.length;
  endpoints.forEach((ep, i) => {
    const stat =
      i < n - 1 ? ` -m statistic --mode random --probability ${ctx.probability(n - i)}` : '';
    natRules.push(`-A ${chain}${comment(ep)}${stat} -j ${names[i]}`);
  });
}
