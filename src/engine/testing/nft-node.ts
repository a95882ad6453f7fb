/**
 * A node with kube-proxy's nftables-mode table beside a host firewall, for the engine tests and
 * the kernel cross-checks (src/kernel/nft.kernel.test.ts) alike:
 *
 *   client 192.168.70.10 --lan-- node 192.168.70.2 | 10.244.0.1 --pods-- pod-a .11, pod-b .12
 *                                      172.31.0.2 --uplink-- (default router, not modelled)
 *
 * `ip kube-proxy` is written the way pkg/proxy/nftables/proxier.go writes it (v1.34: chains,
 * maps, sets and rules of KUBE-PROXY-RULES.md §2, shortened names): Service `web` (ClusterIP
 * 10.96.0.10:80, NodePort 30080, two endpoints chosen by numgen), Service `empty` without
 * endpoints (rejected in filter-input/forward), a LoadBalancer IP 192.168.70.100 with source
 * ranges (dropped before DNAT in filter-prerouting-pre-dnat), cluster-ips-check for invalid
 * ports and unallocated ClusterIPs, masquerade by mark. The host firewall is an iptables-nft
 * filter table plus an `inet hostfw` table at priority -5, so their verdicts interleave.
 */
import type { HostSpec, NetworkSpec } from '../index.ts';

export const CLIENT_IP = '192.168.70.10';
export const NODE_IP = '192.168.70.2';
export const NODE_POD_IP = '10.244.0.1';
export const POD_A = '10.244.0.11';
export const POD_B = '10.244.0.12';
export const CLUSTER_IP = '10.96.0.10';
export const EMPTY_IP = '10.96.0.20';
export const LB_IP = '192.168.70.100';
export const NODE_PORT = 30080;

/** kube-proxy's table (transaction form, as kube-proxy feeds `nft -f`). */
export const KUBE_PROXY_NFT = `add table ip kube-proxy { comment "rules for kube-proxy" ; }
add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority dstnat - 10 ; }
add chain ip kube-proxy filter-forward { type filter hook forward priority filter ; }
add chain ip kube-proxy filter-input { type filter hook input priority filter ; }
add chain ip kube-proxy filter-output { type filter hook output priority filter ; }
add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority dstnat ; }
add chain ip kube-proxy nat-output { type nat hook output priority -100 ; }
add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority srcnat ; }
add chain ip kube-proxy mark-for-masquerade
add chain ip kube-proxy masquerading
add chain ip kube-proxy services
add chain ip kube-proxy firewall-check
add chain ip kube-proxy service-endpoints-check
add chain ip kube-proxy nodeport-endpoints-check
add chain ip kube-proxy cluster-ips-check
add chain ip kube-proxy reject-chain
add chain ip kube-proxy service-web
add chain ip kube-proxy external-web
add chain ip kube-proxy endpoint-web-a
add chain ip kube-proxy endpoint-web-b
add chain ip kube-proxy firewall-lb
add set ip kube-proxy cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }
add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
add map ip kube-proxy service-nodeports { type inet_proto . inet_service : verdict ; }
add map ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }
add map ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; }
add map ip kube-proxy no-endpoint-nodeports { type inet_proto . inet_service : verdict ; }
add rule ip kube-proxy filter-prerouting-pre-dnat ct state new jump firewall-check
add rule ip kube-proxy filter-forward ct state new jump service-endpoints-check
add rule ip kube-proxy filter-forward ct state new jump cluster-ips-check
add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check
add rule ip kube-proxy filter-input ct state new jump service-endpoints-check
add rule ip kube-proxy filter-output ct state new jump service-endpoints-check
add rule ip kube-proxy filter-output ct state new jump cluster-ips-check
add rule ip kube-proxy nat-prerouting jump services
add rule ip kube-proxy nat-output jump services
add rule ip kube-proxy nat-postrouting jump masquerading
add rule ip kube-proxy mark-for-masquerade mark set mark or 0x4000
add rule ip kube-proxy masquerading mark and 0x4000 == 0 return
add rule ip kube-proxy masquerading mark set mark xor 0x4000
add rule ip kube-proxy masquerading masquerade fully-random
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
add rule ip kube-proxy services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports
add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips
add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services
add rule ip kube-proxy nodeport-endpoints-check fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports
add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"
add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"
add rule ip kube-proxy reject-chain reject
# web: ClusterIP 10.96.0.10:80, NodePort 30080, LoadBalancer 192.168.70.100 (source ranges)
add rule ip kube-proxy service-web ip daddr 10.96.0.10 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
add rule ip kube-proxy service-web numgen random mod 2 vmap { 0 : goto endpoint-web-a , 1 : goto endpoint-web-b }
add rule ip kube-proxy external-web jump mark-for-masquerade
add rule ip kube-proxy external-web goto service-web
add rule ip kube-proxy endpoint-web-a ip saddr 10.244.0.11 jump mark-for-masquerade
add rule ip kube-proxy endpoint-web-a meta l4proto tcp dnat to 10.244.0.11:8080
add rule ip kube-proxy endpoint-web-b ip saddr 10.244.0.12 jump mark-for-masquerade
add rule ip kube-proxy endpoint-web-b meta l4proto tcp dnat to 10.244.0.12:8080
add rule ip kube-proxy firewall-lb ip saddr != { 192.168.71.0/24 } drop
add element ip kube-proxy cluster-ips { 10.96.0.10 }
add element ip kube-proxy cluster-ips { 10.96.0.20 }
add element ip kube-proxy service-ips { 10.96.0.10 . tcp . 80 : goto service-web }
add element ip kube-proxy service-ips { 192.168.70.100 . tcp . 80 : goto external-web }
add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-web }
add element ip kube-proxy firewall-ips { 192.168.70.100 . tcp . 80 comment "default/web:http" : goto firewall-lb }
# empty: ClusterIP 10.96.0.20:80 without endpoints
add element ip kube-proxy no-endpoint-services { 10.96.0.20 . tcp . 80 comment "default/empty:http" : goto reject-chain }
`;

/** The host firewall in nftables: an accept here does not spare a packet the iptables INPUT chain. */
export const HOSTFW_NFT = `table inet hostfw {
  chain input {
    type filter hook input priority filter - 5; policy accept;
    tcp dport 2222 accept comment "accepted here, rejected by iptables after"
    tcp dport 9001 drop comment "dropped here, before iptables would accept"
  }
}
`;

/** The host firewall in iptables-nft (kube-proxy's own table never touches it). */
export const HOSTFW_IPTABLES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 2222 -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 9000 -j DROP
-A INPUT -p tcp -m tcp --dport 9001 -j ACCEPT
COMMIT
`;

function pod(name: string, ip: string): HostSpec {
  return {
    name,
    role: 'pod',
    interfaces: [{ name: 'eth0', addresses: [`${ip}/24`], segment: 'pods' }],
    routes: [{ to: 'default', via: NODE_POD_IP }],
    listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 8080, reply: name }],
  };
}

export function nftNodeNetwork(
  nftables: string = `${KUBE_PROXY_NFT}${HOSTFW_NFT}`,
  rules: string = HOSTFW_IPTABLES,
): NetworkSpec {
  return {
    hosts: [
      {
        name: 'client',
        role: 'client',
        interfaces: [{ name: 'eth0', addresses: [`${CLIENT_IP}/24`], segment: 'lan' }],
        routes: [
          { to: '10.96.0.0/16', via: NODE_IP },
          { to: `${LB_IP}/32`, via: NODE_IP },
        ],
      },
      {
        name: 'node',
        role: 'node',
        interfaces: [
          { name: 'eth0', addresses: [`${NODE_IP}/24`], segment: 'lan' },
          { name: 'eth1', addresses: [`${NODE_POD_IP}/24`], segment: 'pods' },
          { name: 'eth2', addresses: ['172.31.0.2/24'], segment: 'uplink' },
        ],
        // A default route (to a router nobody plays), so a ClusterIP without a rule is forwarded,
        // not unroutable. Not back out of eth0: the kernel would send the client an ICMP
        // redirect, which uses up the per-host ICMP rate limit (OutRateLimitHost) and swallows
        // the reject's port-unreachable right after it (Linux 6.18); the lab models neither.
        routes: [{ to: 'default', via: '172.31.0.1' }],
        sysctls: { ipForward: true },
        listeners: [22, 2222, 9000, 9001].map((port) => ({
          process: `d${port}`,
          proto: 'tcp' as const,
          address: '0.0.0.0',
          port,
        })),
        nftables,
        rules,
      },
      pod('pod-a', POD_A),
      pod('pod-b', POD_B),
    ],
  };
}

/**
 * The NAT core (nf_nat_inet_fn): a filter chain at -120 and a nat chain at -150 in one table,
 * iptables' nat PREROUTING beside them. The nat chain runs inside the NAT hook (-100), so after
 * the filter chain; it binds port 7000 first, so iptables' DNAT for 7000 never runs; for 7001
 * it binds nothing and iptables' nat table decides. (A nat chain at -200 or below is refused.)
 */
export const NAT_CORE_NFT = `table ip natlab {
  chain early {
    type filter hook prerouting priority dstnat - 20; policy accept;
    tcp dport { 7000, 7001 } counter
  }
  chain dnat-first {
    type nat hook prerouting priority mangle; policy accept;
    tcp dport 7000 dnat to ${POD_A}:8080
  }
}
`;

export const NAT_CORE_IPTABLES = `*nat
:PREROUTING ACCEPT [0:0]
-A PREROUTING -p tcp -m tcp --dport 7000 -j DNAT --to-destination ${POD_B}:8080
-A PREROUTING -p tcp -m tcp --dport 7001 -j DNAT --to-destination ${POD_B}:8080
COMMIT
`;

/**
 * Two nat chains at the same hook and priority (dstnat, -100), each DNATing port 7002 to another
 * pod: one in an nft table written as kube-proxy writes its table, and iptables' nat PREROUTING.
 * The NAT core runs the later-registered first (nf_hook_entries_grow, net/netfilter/core.c) and
 * stops at the first that binds, so the pod that answers tells which was loaded last.
 */
export const EQUAL_PRIORITY_NFT = `add table ip tie
add chain ip tie nat-prerouting { type nat hook prerouting priority dstnat ; }
add rule ip tie nat-prerouting tcp dport 7002 dnat to ${POD_A}:8080
`;

export const EQUAL_PRIORITY_IPTABLES = `*nat
:PREROUTING ACCEPT [0:0]
-A PREROUTING -p tcp -m tcp --dport 7002 -j DNAT --to-destination ${POD_B}:8080
COMMIT
`;

/** Rulesets nf_tables refuses when a base chain reaches them (nft_chain_validate). */
export const REFUSED = {
  dnatInFilter: `table ip t {
  chain sub {
    dnat to 10.0.0.1
  }
  chain f {
    type filter hook prerouting priority 0;
    jump sub
  }
}
`,
  rejectAtPostrouting: `table ip t {
  chain p {
    type nat hook postrouting priority 100;
    reject
  }
}
`,
  dnatAtPostrouting: `table ip t {
  chain p {
    type nat hook postrouting priority 100;
    dnat to 10.0.0.1
  }
}
`,
};
