/**
 * A kube-proxy nftables-mode ruleset of N ClusterIP+NodePort Services with E endpoints each, in
 * the transaction form kube-proxy feeds `nft -f` (pkg/proxy/nftables/proxier.go; layout of
 * KUBE-PROXY-RULES.md §2: base chains, the services / masquerading chains, verdict maps, then
 * per Service its chains, rules and map elements), for benchmarks. Hashes are synthetic.
 */
export interface NftShaped {
  readonly text: string;
  readonly rules: number;
  readonly elements: number;
  readonly lastServiceIP: string;
  readonly lastServicePort: number;
}

const ip = (base: number, i: number) =>
  `${base >>> 24}.${(base >>> 16) & 255}.${((base >>> 8) & 255) + ((i >>> 8) & 255)}.${i & 255}`;

const HEAD = `add table ip kube-proxy { comment "rules for kube-proxy" ; }
add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority -110 ; }
add chain ip kube-proxy filter-output-pre-dnat { type filter hook output priority -110 ; }
add chain ip kube-proxy filter-forward { type filter hook forward priority 0 ; }
add chain ip kube-proxy filter-input { type filter hook input priority 0 ; }
add chain ip kube-proxy filter-output { type filter hook output priority 0 ; }
add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }
add chain ip kube-proxy nat-output { type nat hook output priority -100 ; }
add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100 ; }
add chain ip kube-proxy mark-for-masquerade
add chain ip kube-proxy masquerading
add chain ip kube-proxy services
add chain ip kube-proxy firewall-check
add chain ip kube-proxy service-endpoints-check
add chain ip kube-proxy nodeport-endpoints-check
add chain ip kube-proxy cluster-ips-check
add chain ip kube-proxy reject-chain
add set ip kube-proxy cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }
add set ip kube-proxy nodeport-ips { type ipv4_addr ; comment "IPs that accept NodePort traffic" ; }
add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }
add map ip kube-proxy service-nodeports { type inet_proto . inet_service : verdict ; comment "NodePort traffic" ; }
add map ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "destinations that are subject to LoadBalancerSourceRanges" ; }
add map ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints" ; }
add map ip kube-proxy no-endpoint-nodeports { type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ; }
add rule ip kube-proxy filter-prerouting-pre-dnat ct state new jump firewall-check
add rule ip kube-proxy filter-output-pre-dnat ct state new jump firewall-check
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
add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports
add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips
add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services
add rule ip kube-proxy nodeport-endpoints-check ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports
add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"
add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/12 } drop comment "Drop traffic to unallocated ClusterIPs"
add rule ip kube-proxy reject-chain reject
add element ip kube-proxy nodeport-ips { 192.168.1.10 }
`;

export function nftShapedRuleset(services: number, endpoints: number): NftShaped {
  const chains: string[] = [];
  const body: string[] = [];
  let rules = HEAD.split('\n').filter((l) => l.startsWith('add rule')).length;
  let elements = 1;
  let lastIP = '';
  for (let s = 0; s < services; s++) {
    const h = s.toString(36).toUpperCase().padStart(8, '0');
    const base = `ns${s % 50}/svc-${s}/tcp/http`;
    const svc = `service-${h}-${base}`;
    const ext = `external-${h}-${base}`;
    const cip = ip(0x0a600000, s + 10); // 10.96.x.y
    lastIP = cip;
    chains.push(`add chain ip kube-proxy ${svc}`, `add chain ip kube-proxy ${ext}`);
    body.push(`# ${base}`);
    body.push(
      `add rule ip kube-proxy ${svc} ip daddr ${cip} tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade`,
    );
    const vmap: string[] = [];
    for (let e = 0; e < endpoints; e++) {
      const eip = ip(0x0af40000, (s * endpoints + e) % 65000);
      const ep = `endpoint-${h}E${e}-${base}__${eip}/8080`;
      chains.push(`add chain ip kube-proxy ${ep}`);
      vmap.push(`${e} : goto ${ep}`);
      body.push(`add rule ip kube-proxy ${ep} ip saddr ${eip} jump mark-for-masquerade`);
      body.push(`add rule ip kube-proxy ${ep} meta l4proto tcp dnat to ${eip}:8080`);
      rules += 2;
    }
    body.push(
      `add rule ip kube-proxy ${svc} numgen random mod ${endpoints} vmap { ${vmap.join(' , ')} }`,
    );
    body.push(`add rule ip kube-proxy ${ext} jump mark-for-masquerade`);
    body.push(`add rule ip kube-proxy ${ext} goto ${svc}`);
    rules += 4;
    body.push(`add element ip kube-proxy cluster-ips { ${cip} }`);
    body.push(`add element ip kube-proxy service-ips { ${cip} . tcp . 80 : goto ${svc} }`);
    elements += 2;
    if (s < 2768) {
      body.push(`add element ip kube-proxy service-nodeports { tcp . ${30000 + s} : goto ${ext} }`);
      elements++;
    }
  }
  return {
    text: `${HEAD}${chains.join('\n')}\n${body.join('\n')}\n`,
    rules,
    elements,
    lastServiceIP: lastIP,
    lastServicePort: 80,
  };
}
