/**
 * The objects kube-proxy's nftables proxier creates whatever the Services
 * (pkg/proxy/nftables/proxier.go, `setupNFTables`, read at danwinship/kubernetes@07c76c3a), with
 * the base chains and jumps of kubernetes PR #132456 as kubernetes/kubernetes@81810de6's
 * TestOverallNFTablesRules expects them (`filter-prerouting-pre-dnat` and
 * `filter-output-pre-dnat` at -110 for the LoadBalancer source-range check, which must see the
 * destination before DNAT; the other filter chains at 0; `cluster-ips-check` jumped to from
 * `filter-forward` and `filter-output`). Followed: kube-proxy v1.34/v1.35.
 */
import type { ProxierSettings } from '../proxier/config.ts';
import type { BaseChainSpec, NftTransaction } from './transaction.ts';

export const CHAIN = {
  filterPreroutingPreDNAT: 'filter-prerouting-pre-dnat',
  filterOutputPreDNAT: 'filter-output-pre-dnat',
  filterInput: 'filter-input',
  filterForward: 'filter-forward',
  filterOutput: 'filter-output',
  natPrerouting: 'nat-prerouting',
  natOutput: 'nat-output',
  natPostrouting: 'nat-postrouting',
  services: 'services',
  serviceEndpointsCheck: 'service-endpoints-check',
  nodePortEndpointsCheck: 'nodeport-endpoints-check',
  clusterIPsCheck: 'cluster-ips-check',
  reject: 'reject-chain',
  firewallCheck: 'firewall-check',
  markMasq: 'mark-for-masquerade',
  masquerading: 'masquerading',
} as const;

export const SET = { clusterIPs: 'cluster-ips', nodePortIPs: 'nodeport-ips' } as const;

export const MAP = {
  serviceIPs: 'service-ips',
  serviceNodePorts: 'service-nodeports',
  firewallIPs: 'firewall-ips',
  noEndpointServices: 'no-endpoint-services',
  noEndpointNodePorts: 'no-endpoint-nodeports',
} as const;

/** nftablesBaseChains: name, type, hook, priority (DNATPriority = -100, SNATPriority = 100). */
export const BASE_CHAINS: readonly (BaseChainSpec & { readonly name: string })[] = [
  { name: CHAIN.filterPreroutingPreDNAT, type: 'filter', hook: 'prerouting', priority: -110 },
  { name: CHAIN.filterOutputPreDNAT, type: 'filter', hook: 'output', priority: -110 },
  { name: CHAIN.filterInput, type: 'filter', hook: 'input', priority: 0 },
  { name: CHAIN.filterForward, type: 'filter', hook: 'forward', priority: 0 },
  { name: CHAIN.filterOutput, type: 'filter', hook: 'output', priority: 0 },
  { name: CHAIN.natPrerouting, type: 'nat', hook: 'prerouting', priority: -100 },
  { name: CHAIN.natOutput, type: 'nat', hook: 'output', priority: -100 },
  { name: CHAIN.natPostrouting, type: 'nat', hook: 'postrouting', priority: 100 },
];

const NEW = 'ct state new';

/**
 * nftablesJumpChains: [destination, source, extra match]. The no-endpoint checks are not in the
 * prerouting chain because `reject` is only valid in input, forward and output hooks (kernels
 * before 5.9); `cluster-ips-check` runs after DNAT, so it only sees packets no Service claimed.
 */
export const JUMP_CHAINS: readonly (readonly [string, string, string])[] = [
  [CHAIN.nodePortEndpointsCheck, CHAIN.filterInput, NEW],
  [CHAIN.serviceEndpointsCheck, CHAIN.filterInput, NEW],
  [CHAIN.serviceEndpointsCheck, CHAIN.filterForward, NEW],
  [CHAIN.serviceEndpointsCheck, CHAIN.filterOutput, NEW],
  [CHAIN.firewallCheck, CHAIN.filterPreroutingPreDNAT, NEW],
  [CHAIN.firewallCheck, CHAIN.filterOutputPreDNAT, NEW],
  [CHAIN.services, CHAIN.natOutput, ''],
  [CHAIN.services, CHAIN.natPrerouting, ''],
  [CHAIN.masquerading, CHAIN.natPostrouting, ''],
  [CHAIN.clusterIPsCheck, CHAIN.filterForward, NEW],
  [CHAIN.clusterIPsCheck, CHAIN.filterOutput, NEW],
];

export interface SetupOptions {
  readonly settings: ProxierSettings;
  /** The family's Service CIDRs (ServiceCIDR objects), joined with ',' as kube-proxy does. */
  readonly serviceCIDRs: readonly string[];
}

const join = (...parts: string[]) => parts.filter((p) => p !== '').join(' ');

// eslint-disable-next-line max-lines-per-function -- transcribes kube-proxy's nftables setupNFTables in upstream order, to check side by side
export function writeSetup(tx: NftTransaction, o: SetupOptions): void {
  const ipX = tx.family;
  const addr = tx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  // Localhost NodePorts do not exist in nftables mode (no route_localnet).
  const noLocalhost = tx.family === 'ip' ? 'ip daddr != 127.0.0.0/8' : 'ip6 daddr != ::1';
  const mark = o.settings.mark;
  const matchAll = o.settings.nodePortMatchAll;
  tx.addTable('rules for kube-proxy');
  for (const bc of BASE_CHAINS) tx.addChain(bc.name, { base: bc });
  const created = new Set<string>();
  const ensure = (chain: string) => {
    if (created.has(chain)) return;
    created.add(chain);
    tx.addChain(chain);
  };
  for (const [dst, src, extra] of JUMP_CHAINS) {
    ensure(dst);
    tx.addRule(src, join(extra, 'jump', dst));
  }
  for (const c of [CHAIN.services, CHAIN.clusterIPsCheck, CHAIN.masquerading, CHAIN.markMasq])
    ensure(c);
  tx.addRule(CHAIN.markMasq, `mark set mark or ${mark}`);
  tx.addRule(CHAIN.masquerading, `mark and ${mark} == 0 return`);
  // Clear the mark so a packet that re-traverses the stack is not masqueraded twice.
  tx.addRule(CHAIN.masquerading, `mark set mark xor ${mark}`);
  tx.addRule(CHAIN.masquerading, 'masquerade fully-random');

  tx.addSet(SET.clusterIPs, addr, { comment: 'Active ClusterIPs' });
  tx.addRule(
    CHAIN.clusterIPsCheck,
    `${ipX} daddr @${SET.clusterIPs} reject`,
    'Reject traffic to invalid ports of ClusterIPs',
  );
  if (o.serviceCIDRs.length)
    tx.addRule(
      CHAIN.clusterIPsCheck,
      `${ipX} daddr { ${o.serviceCIDRs.join(',')} } drop`,
      'Drop traffic to unallocated ClusterIPs',
    );

  if (!matchAll) {
    tx.addSet(SET.nodePortIPs, addr, { comment: 'IPs that accept NodePort traffic' });
    // "--nodeport-addresses includes localhost but localhost NodePorts are not supported".
    for (const ip of o.settings.nodePortIPs)
      if (ip !== '::1' && !ip.startsWith('127.')) tx.addElement(SET.nodePortIPs, [ip]);
  }

  tx.addMap(
    MAP.noEndpointServices,
    `${addr} . inet_proto . inet_service : verdict`,
    'vmap to drop or reject packets to services with no endpoints',
  );
  tx.addMap(
    MAP.noEndpointNodePorts,
    'inet_proto . inet_service : verdict',
    'vmap to drop or reject packets to service nodeports with no endpoints',
  );
  tx.addChain(CHAIN.reject, {
    comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports',
  });
  tx.addRule(CHAIN.reject, 'reject');
  tx.addRule(
    CHAIN.serviceEndpointsCheck,
    `${ipX} daddr . meta l4proto . th dport vmap @${MAP.noEndpointServices}`,
  );
  const nodeAddrs = matchAll ? noLocalhost : `${ipX} daddr @${SET.nodePortIPs}`;
  tx.addRule(
    CHAIN.nodePortEndpointsCheck,
    `${nodeAddrs} meta l4proto . th dport vmap @${MAP.noEndpointNodePorts}`,
  );

  tx.addMap(
    MAP.firewallIPs,
    `${addr} . inet_proto . inet_service : verdict`,
    'destinations that are subject to LoadBalancerSourceRanges',
  );
  ensure(CHAIN.firewallCheck);
  tx.addRule(
    CHAIN.firewallCheck,
    `${ipX} daddr . meta l4proto . th dport vmap @${MAP.firewallIPs}`,
  );

  tx.addMap(
    MAP.serviceIPs,
    `${addr} . inet_proto . inet_service : verdict`,
    'ClusterIP, ExternalIP and LoadBalancer IP traffic',
  );
  tx.addMap(MAP.serviceNodePorts, 'inet_proto . inet_service : verdict', 'NodePort traffic');
  tx.addRule(CHAIN.services, `${ipX} daddr . meta l4proto . th dport vmap @${MAP.serviceIPs}`);
  tx.addRule(
    CHAIN.services,
    `${matchAll ? `fib daddr type local ${noLocalhost}` : `${ipX} daddr @${SET.nodePortIPs}`} meta l4proto . th dport vmap @${MAP.serviceNodePorts}`,
  );
}
