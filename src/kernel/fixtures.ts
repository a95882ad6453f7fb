/**
 * Networks for the real-kernel suite, as engine NetworkSpecs. Node rules are shaped as
 * kube-proxy (iptables mode, KUBE-PROXY-RULES.md §1) and kubelet write them; chain hashes are
 * replaced by readable names.
 */
import type { HostSpec, NetworkSpec } from '../engine/index.ts';
import { CLIENT_IP, NODE_IP, ROUTER_IP, VIP, vip22Network } from '../engine/testing/vip22.ts';

export const NODEPORT = 30080;
export const CLUSTER_IP = '10.96.0.10';
export const POD_CIDR = '10.244.0.0/16';

/** A pod on its own veth, Calico style: /32 address, gateway 169.254.1.1 answered by proxy ARP. */
export function pod(name: string, ip: string, port = 8080): HostSpec {
  return {
    name,
    role: 'pod',
    interfaces: [{ name: 'eth0', addresses: [`${ip}/32`], kind: 'veth', segment: `veth-${name}` }],
    routes: [
      { to: '169.254.1.1/32', dev: 'eth0' },
      { to: 'default', via: '169.254.1.1', dev: 'eth0' },
    ],
    listeners: [{ process: name, proto: 'tcp', address: '0.0.0.0', port, reply: name }],
  };
}

function podVeth(p: HostSpec): HostSpec['interfaces'][number] {
  return {
    name: `cali-${p.name}`.slice(0, 15),
    addresses: [],
    kind: 'veth',
    segment: `veth-${p.name}`,
    proxyArp: true,
  };
}

function podRoute(p: HostSpec) {
  return { to: p.interfaces[0]?.addresses[0] ?? '', dev: podVeth(p).name };
}

const KUBE_FILTER = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FIREWALL - [0:0]
:KUBE-FORWARD - [0:0]
-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES
-A INPUT -j KUBE-FIREWALL
-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD
-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES
-A OUTPUT -j KUBE-FIREWALL
-A KUBE-FIREWALL -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
`;

const KUBE_NAT_HEAD = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
`;

const NODEPORTS_LAST = `-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
`;

/** KUBE-SVC chain spreading over `eps` with kube-proxy's statistic probabilities 1/(n-i). */
function svcRules(
  svc: string,
  eps: readonly string[],
  port: number,
): { chains: string[]; rules: string[] } {
  const chains = [`KUBE-SVC-${svc}`];
  const rules = [
    `-A KUBE-SVC-${svc} -m comment --comment "default/${svc} cluster IP" -m tcp -p tcp -d ${CLUSTER_IP} --dport 80 ! -s ${POD_CIDR} -j KUBE-MARK-MASQ`,
  ];
  eps.forEach((ip, i) => {
    const sep = `KUBE-SEP-${svc}${i}`;
    chains.push(sep);
    const stat =
      i < eps.length - 1
        ? ` -m statistic --mode random --probability ${(1 / (eps.length - i)).toFixed(10)}`
        : '';
    rules.push(
      `-A KUBE-SVC-${svc} -m comment --comment "default/${svc} -> ${ip}:${port}"${stat} -j ${sep}`,
    );
  });
  eps.forEach((ip, i) => {
    const sep = `KUBE-SEP-${svc}${i}`;
    rules.push(`-A ${sep} -m comment --comment default/${svc} -s ${ip}/32 -j KUBE-MARK-MASQ`);
    rules.push(
      `-A ${sep} -m comment --comment default/${svc} -m tcp -p tcp -j DNAT --to-destination ${ip}:${port}`,
    );
  });
  return { chains, rules };
}

/** Service `web`: ClusterIP 10.96.0.10:80 and NodePort 30080, eTP Cluster, endpoints :8080. */
export function nodePortRules(endpoints: readonly string[]): string {
  const svc = svcRules('WEB', endpoints, 8080);
  const chains = ['KUBE-EXT-WEB', ...svc.chains].map((c) => `:${c} - [0:0]\n`).join('');
  const rules = [
    `-A KUBE-NODEPORTS -m comment --comment default/web -m tcp -p tcp --dport ${NODEPORT} -j KUBE-EXT-WEB`,
    `-A KUBE-SERVICES -m comment --comment "default/web cluster IP" -m tcp -p tcp -d ${CLUSTER_IP} --dport 80 -j KUBE-SVC-WEB`,
    '-A KUBE-EXT-WEB -m comment --comment "masquerade traffic for default/web external destinations" -j KUBE-MARK-MASQ',
    '-A KUBE-EXT-WEB -j KUBE-SVC-WEB',
    ...svc.rules,
  ];
  return `${KUBE_FILTER}COMMIT\n${KUBE_NAT_HEAD}${chains}${rules.join('\n')}\n${NODEPORTS_LAST}`;
}

/**
 * A client and one node on the LAN, pods on the node (own veths). The node has a default route
 * to the LAN router, which is what lets its proxy ARP answer the pods' 169.254.1.1.
 */
export function nodeWithPods(opts: {
  pods: readonly HostSpec[];
  rules: string;
  routeLocalnet: boolean;
}): NetworkSpec {
  const client: HostSpec = {
    name: 'client',
    role: 'client',
    interfaces: [{ name: 'eth0', addresses: [`${CLIENT_IP}/24`], segment: 'lan' }],
  };
  const node: HostSpec = {
    name: 'node-1',
    role: 'node',
    interfaces: [
      { name: 'eth0', addresses: [`${NODE_IP}/24`], segment: 'lan' },
      ...opts.pods.map(podVeth),
    ],
    routes: [...opts.pods.map(podRoute), { to: 'default', via: ROUTER_IP }],
    sysctls: { ipForward: true, routeLocalnet: opts.routeLocalnet },
    listeners: [
      {
        process: 'sshd',
        proto: 'tcp',
        address: '0.0.0.0',
        port: 22,
        reply: 'SSH-2.0-OpenSSH_10.3',
      },
    ],
    rules: opts.rules,
  };
  return { hosts: [client, node, ...opts.pods] };
}

/**
 * DOMAIN §1 eTP Local: the VIP holder cp-1 runs the LB Service's Local chains. `pinned` puts
 * the backend pod on cp-1 itself (KUBE-SVL to it); otherwise the only pod is on worker-1.
 */
export function etpLocalNetwork(pinned: boolean): NetworkSpec {
  const podIp = pinned ? '10.244.0.5' : '10.244.1.5';
  const ext = [
    `-A KUBE-SERVICES -m comment --comment "default/lb-port22-test loadbalancer IP" -m tcp -p tcp -d ${VIP} --dport 22 -j KUBE-EXT-AAAA`,
    `-A KUBE-EXT-AAAA -m comment --comment "pod traffic for default/lb-port22-test external destinations" -s ${POD_CIDR} -j KUBE-SVC-AAAA`,
    '-A KUBE-EXT-AAAA -m comment --comment "masquerade LOCAL traffic for default/lb-port22-test external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ',
    '-A KUBE-EXT-AAAA -m comment --comment "route LOCAL traffic for default/lb-port22-test external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-AAAA',
    ...(pinned ? ['-A KUBE-EXT-AAAA -j KUBE-SVL-AAAA'] : []),
    `-A KUBE-SVC-AAAA -m comment --comment "default/lb-port22-test -> ${podIp}:80" -j KUBE-SEP-BBBB`,
    ...(pinned
      ? [
          `-A KUBE-SVL-AAAA -m comment --comment "default/lb-port22-test -> ${podIp}:80" -j KUBE-SEP-BBBB`,
        ]
      : []),
    `-A KUBE-SEP-BBBB -m comment --comment default/lb-port22-test -s ${podIp}/32 -j KUBE-MARK-MASQ`,
    `-A KUBE-SEP-BBBB -m comment --comment default/lb-port22-test -m tcp -p tcp -j DNAT --to-destination ${podIp}:80`,
  ];
  const chains = [
    'KUBE-EXT-AAAA',
    'KUBE-SVC-AAAA',
    ...(pinned ? ['KUBE-SVL-AAAA'] : []),
    'KUBE-SEP-BBBB',
  ];
  // No local endpoint: kube-proxy drops external traffic in filter KUBE-EXTERNAL-SERVICES.
  const drop = pinned
    ? ''
    : `-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/lb-port22-test has no local endpoints" -m tcp -p tcp -d ${VIP} --dport 22 -j DROP\n`;
  const rules = `${KUBE_FILTER}${drop}COMMIT\n${KUBE_NAT_HEAD}${chains.map((c) => `:${c} - [0:0]\n`).join('')}${ext.join('\n')}\n${NODEPORTS_LAST}`;
  const base = vip22Network(null);
  const pinnedPod = pod('nettest-cp', podIp, 80);
  const hosts = base.hosts.map((h): HostSpec => {
    if (h.name !== 'cp-1') return h;
    if (!pinned) return { ...h, rules };
    return {
      ...h,
      rules,
      interfaces: [...h.interfaces, podVeth(pinnedPod)],
      routes: [...(h.routes ?? []), podRoute(pinnedPod), { to: 'default', via: ROUTER_IP }],
    };
  });
  const withPod = pinned
    ? [
        ...hosts,
        {
          ...pinnedPod,
          listeners: [
            {
              process: 'nettest',
              proto: 'tcp' as const,
              address: '0.0.0.0',
              port: 80,
              reply: 'HTTP/1.0 200 OK',
            },
          ],
        },
      ]
    : hosts;
  return { hosts: withPod };
}
