/**
 * The iptables rules of kube-proxy's IPVS proxier: `writeIptablesRules`, `acceptIPVSTraffic`,
 * `createAndLinkKubeChain` and the `iptablesJumpChain` / `iptablesChains` /
 * `ipsetWithIptablesChain` tables of pkg/proxy/ipvs/proxier.go (danwinship/kubernetes
 * 6c763fd5abda8a2e1b595e125a7810c9c0111b2f, kube-proxy v1.34/v1.35). IPVS does the load balancing;
 * iptables is left with masquerade marks, the hairpin, firewalls, and accepting service traffic.
 */
import type { IpsetList } from './ipsets.ts';

/** iptablesChains: the chains kube-proxy declares, nat then filter, in source order. */
export const NAT_CHAINS = [
  'KUBE-SERVICES',
  'KUBE-POSTROUTING',
  'KUBE-NODE-PORT',
  'KUBE-LOAD-BALANCER',
  'KUBE-MARK-MASQ',
] as const;
export const FILTER_CHAINS = [
  'KUBE-FORWARD',
  'KUBE-NODE-PORT',
  'KUBE-PROXY-FIREWALL',
  'KUBE-SOURCE-RANGES-FIREWALL',
  'KUBE-IPVS-FILTER',
  'KUBE-IPVS-OUT-FILTER',
] as const;

interface Jump {
  readonly table: 'nat' | 'filter';
  readonly from: string;
  readonly to: string;
  readonly comment: string;
}

/** iptablesJumpChain, in source order (each is ensured with `iptables -I`, i.e. prepended). */
export const JUMP_CHAINS: readonly Jump[] = [
  { table: 'nat', from: 'OUTPUT', to: 'KUBE-SERVICES', comment: 'kubernetes service portals' },
  { table: 'nat', from: 'PREROUTING', to: 'KUBE-SERVICES', comment: 'kubernetes service portals' },
  {
    table: 'nat',
    from: 'POSTROUTING',
    to: 'KUBE-POSTROUTING',
    comment: 'kubernetes postrouting rules',
  },
  { table: 'filter', from: 'FORWARD', to: 'KUBE-FORWARD', comment: 'kubernetes forwarding rules' },
  {
    table: 'filter',
    from: 'INPUT',
    to: 'KUBE-NODE-PORT',
    comment: 'kubernetes health check rules',
  },
  {
    table: 'filter',
    from: 'INPUT',
    to: 'KUBE-PROXY-FIREWALL',
    comment: 'kube-proxy firewall rules',
  },
  {
    table: 'filter',
    from: 'FORWARD',
    to: 'KUBE-PROXY-FIREWALL',
    comment: 'kube-proxy firewall rules',
  },
  {
    table: 'filter',
    from: 'INPUT',
    to: 'KUBE-IPVS-FILTER',
    comment: 'kubernetes ipvs access filter',
  },
  {
    table: 'filter',
    from: 'OUTPUT',
    to: 'KUBE-IPVS-OUT-FILTER',
    comment: 'kubernetes ipvs access filter',
  },
];

interface SetChain {
  readonly set: string;
  readonly table: 'nat' | 'filter';
  readonly from: string;
  readonly to: string;
  readonly match: string;
  readonly proto: string;
}

/**
 * ipsetWithIptablesChain: one rule per non-empty set. "kubeNodePortLocalSetTCP must be prior to
 * kubeNodePortSetTCP": a Local NodePort RETURNs before the masquerade mark.
 */
const SET_CHAINS: readonly SetChain[] = [
  sc('KUBE-LOOP-BACK', 'nat', 'KUBE-POSTROUTING', 'MASQUERADE', 'dst,dst,src', ''),
  sc('KUBE-LOAD-BALANCER', 'nat', 'KUBE-SERVICES', 'KUBE-LOAD-BALANCER', 'dst,dst', ''),
  sc('KUBE-LOAD-BALANCER-LOCAL', 'nat', 'KUBE-LOAD-BALANCER', 'RETURN', 'dst,dst', ''),
  sc('KUBE-NODE-PORT-LOCAL-TCP', 'nat', 'KUBE-NODE-PORT', 'RETURN', 'dst', 'tcp'),
  sc('KUBE-NODE-PORT-TCP', 'nat', 'KUBE-NODE-PORT', 'KUBE-MARK-MASQ', 'dst', 'tcp'),
  sc('KUBE-NODE-PORT-LOCAL-UDP', 'nat', 'KUBE-NODE-PORT', 'RETURN', 'dst', 'udp'),
  sc('KUBE-NODE-PORT-UDP', 'nat', 'KUBE-NODE-PORT', 'KUBE-MARK-MASQ', 'dst', 'udp'),
  sc('KUBE-NODE-PORT-LOCAL-SCTP-HASH', 'nat', 'KUBE-NODE-PORT', 'RETURN', 'dst,dst', 'sctp'),
  sc('KUBE-NODE-PORT-SCTP-HASH', 'nat', 'KUBE-NODE-PORT', 'KUBE-MARK-MASQ', 'dst,dst', 'sctp'),
  sc(
    'KUBE-LOAD-BALANCER-FW',
    'filter',
    'KUBE-PROXY-FIREWALL',
    'KUBE-SOURCE-RANGES-FIREWALL',
    'dst,dst',
    '',
  ),
  sc(
    'KUBE-LOAD-BALANCER-SOURCE-CIDR',
    'filter',
    'KUBE-SOURCE-RANGES-FIREWALL',
    'RETURN',
    'dst,dst,src',
    '',
  ),
  sc(
    'KUBE-LOAD-BALANCER-SOURCE-IP',
    'filter',
    'KUBE-SOURCE-RANGES-FIREWALL',
    'RETURN',
    'dst,dst,src',
    '',
  ),
];

function sc(
  set: string,
  table: 'nat' | 'filter',
  from: string,
  to: string,
  match: string,
  proto: string,
): SetChain {
  return { set, table, from, to, match, proto };
}

export interface RuleSettings {
  /** `%#08x` of the masquerade bit: `0x00004000`. */
  readonly mark: string;
  readonly family: 4 | 6;
  readonly masqueradeAll: boolean;
  /** The local traffic detector's CIDR (`--cluster-cidr`), or null for none. */
  readonly podCIDR: string | null;
  readonly randomFully: boolean;
  /** Comments of the sets, by base name (getComment quotes them). */
  readonly comments: ReadonlyMap<string, string>;
}

/** An LB IP:port whose source ranges leave the node out: blocked from the node (issue 119656). */
export interface NoNodeAccess {
  readonly ip: string;
  readonly proto: string;
  readonly port: number;
}

/** writeIptablesRules: nat and filter rules, each list ending with COMMIT like kube-proxy's buffers. */
export function writeIptablesRules(
  sets: IpsetList,
  st: RuleSettings,
  noNodeAccess: readonly NoNodeAccess[],
): { nat: string[]; filter: string[] } {
  const nat: string[] = [];
  const filter: string[] = [];
  const comment = (base: string) => `-m comment --comment "${st.comments.get(base) ?? ''}"`;
  const matchSet = (base: string, flags: string) =>
    `-m set --match-set ${sets.name(base)} ${flags}`;
  // Dismiss connections to localhost early in the service chain.
  nat.push(`-A KUBE-SERVICES -s ${st.family === 6 ? '::1/128' : '127.0.0.0/8'} -j RETURN`);
  for (const c of SET_CHAINS) {
    if (sets.isEmpty(c.set)) continue;
    const proto = c.proto ? ` -p ${c.proto}` : '';
    const rule = `-A ${c.from}${proto} ${comment(c.set)} ${matchSet(c.set, c.match)} -j ${c.to}`;
    (c.table === 'filter' ? filter : nat).push(rule);
  }
  if (!sets.isEmpty('KUBE-CLUSTER-IP')) {
    const head = `-A KUBE-SERVICES ${comment('KUBE-CLUSTER-IP')} -m set --match-set ${sets.name('KUBE-CLUSTER-IP')}`;
    if (st.masqueradeAll) nat.push(`${head} dst,dst -j KUBE-MARK-MASQ`);
    // Off-cluster traffic to a service VIP is masqueraded: it may bounce to another node.
    else if (st.podCIDR !== null) nat.push(`${head} dst,dst ! -s ${st.podCIDR} -j KUBE-MARK-MASQ`);
    // No detector: masquerade node-originated traffic whose source is a VIP (the kernel picks
    // the VIP on kube-ipvs0 as source for VIP:port), i.e. match the set on src,dst.
    else nat.push(`${head} src,dst -j KUBE-MARK-MASQ`);
  }
  const externalIPRules = (head: string) => {
    // "all traffic from off-machine": not from a bridge port, not from a local address.
    nat.push(`${head} -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT`);
    // External IPs that happen to be local addresses stay local.
    nat.push(`${head} -m addrtype --dst-type LOCAL -j ACCEPT`);
  };
  for (const base of ['KUBE-EXTERNAL-IP', 'KUBE-EXTERNAL-IP-LOCAL']) {
    if (sets.isEmpty(base)) continue;
    const head = `-A KUBE-SERVICES ${comment(base)} ${matchSet(base, 'dst,dst')}`;
    if (base === 'KUBE-EXTERNAL-IP') nat.push(`${head} -j KUBE-MARK-MASQ`);
    externalIPRules(head);
  }
  nat.push('-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT');
  nat.push('-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ');
  filter.push('-A KUBE-SOURCE-RANGES-FIREWALL -j DROP');
  // Node-to-LB traffic has the LB IP as source and destination in IPVS mode.
  for (const e of noNodeAccess)
    filter.push(
      `-A KUBE-IPVS-OUT-FILTER -s ${e.ip} -m ipvs --vaddr ${e.ip} --vproto ${e.proto} --vport ${e.port} -j DROP`,
    );
  // acceptIPVSTraffic: must stay at the end of KUBE-SERVICES.
  for (const base of ['KUBE-CLUSTER-IP', 'KUBE-LOAD-BALANCER'])
    if (!sets.isEmpty(base)) nat.push(`-A KUBE-SERVICES ${matchSet(base, 'dst,dst')} -j ACCEPT`);
  const m = `${st.mark}/${st.mark}`;
  filter.push(
    `-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark ${m} -j ACCEPT`,
  );
  filter.push(
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );
  filter.push(
    `-A KUBE-NODE-PORT ${comment('KUBE-HEALTH-CHECK-NODE-PORT')} ${matchSet('KUBE-HEALTH-CHECK-NODE-PORT', 'dst')} -j ACCEPT`,
  );
  // KUBE-IPVS-FILTER (kubernetes/kubernetes#72236, PR #108460): a kube-ipvs0 address accepts new
  // connections only on service ports; anything else (host ports, ICMP echo) is rejected.
  for (const [base, flags] of [
    ['KUBE-LOAD-BALANCER', 'dst,dst'],
    ['KUBE-CLUSTER-IP', 'dst,dst'],
    ['KUBE-EXTERNAL-IP', 'dst,dst'],
    ['KUBE-EXTERNAL-IP-LOCAL', 'dst,dst'],
    ['KUBE-HEALTH-CHECK-NODE-PORT', 'dst'],
  ] as const)
    filter.push(`-A KUBE-IPVS-FILTER ${matchSet(base, flags)} -j RETURN`);
  filter.push(
    `-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW ${matchSet('KUBE-IPVS-IPS', 'dst')} -j REJECT`,
  );
  nat.push(`-A KUBE-POSTROUTING -m mark ! --mark ${m} -j RETURN`);
  // Clear the mark so a packet that re-traverses the stack is not masqueraded twice.
  nat.push(`-A KUBE-POSTROUTING -j MARK --xor-mark ${st.mark}`);
  nat.push(
    `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${st.randomFully ? ' --random-fully' : ''}`,
  );
  nat.push(`-A KUBE-MARK-MASQ -j MARK --or-mark ${st.mark}`);
  filter.push('COMMIT');
  nat.push('COMMIT');
  return { nat, filter };
}

const chainLine = (c: string) => `:${c} - [0:0]`;

/** What kube-proxy passes to `iptables-restore --noflush --counters`: nat, then filter. */
export function restoreText(rules: { nat: string[]; filter: string[] }): string {
  return [
    '*nat',
    ...NAT_CHAINS.map(chainLine),
    ...rules.nat,
    '*filter',
    ...FILTER_CHAINS.map(chainLine),
    ...rules.filter,
    '',
  ].join('\n');
}

/** The jump rules as they stand after the first sync (each entry prepended in list order). */
function jumpsOf(table: 'nat' | 'filter'): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const j of JUMP_CHAINS) {
    if (j.table !== table) continue;
    const list = by.get(j.from) ?? [];
    list.unshift(`-A ${j.from} -m comment --comment "${j.comment}" -j ${j.to}`);
    by.set(j.from, list);
  }
  return by;
}

/**
 * A self-contained iptables-save dump for an empty network namespace (and the engine): built-in
 * chains with policy ACCEPT, kube-proxy's chains, the jumps it ensures, then its rules.
 */
export function dumpText(
  rules: { nat: string[]; filter: string[] },
  nodeName: string,
  family: 4 | 6,
): string {
  const block = (
    table: 'nat' | 'filter',
    builtins: readonly string[],
    chains: readonly string[],
    body: string[],
  ) => {
    const jumps = jumpsOf(table);
    return [
      `*${table}`,
      ...builtins.map((c) => `:${c} ACCEPT [0:0]`),
      ...chains.map(chainLine),
      ...builtins.flatMap((c) => jumps.get(c) ?? []),
      ...body,
    ];
  };
  const tool = family === 4 ? 'iptables' : 'ip6tables';
  return [
    `# kube-proxy IPVS-mode rules (${tool}) for node ${nodeName}, generated by Hookpath following kube-proxy v1.34/v1.35`,
    ...block('filter', ['INPUT', 'FORWARD', 'OUTPUT'], FILTER_CHAINS, rules.filter),
    ...block('nat', ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'], NAT_CHAINS, rules.nat),
    '',
  ].join('\n');
}
