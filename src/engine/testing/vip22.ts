/** A small fixture network used by engine tests: the VIP:22 homelab of DOMAIN §1. */
import type { HostSpec, NetworkSpec } from '../index.ts';

export const VIP = '192.168.50.100';
export const NODE_IP = '192.168.50.38';
export const WORKER_IP = '192.168.50.39';
export const CLIENT_IP = '192.168.50.10';
export const POD_IP = '10.244.1.5';
/** The LAN's router; no host plays it, only routes point at it. */
export const ROUTER_IP = '192.168.50.1';

/** kube-proxy-shaped rules for LoadBalancer Service lb-port22-test (VIP:22 -> pod:80), eTP Cluster. */
export const LB_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:KUBE-FORWARD - [0:0]
-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-EXT-AAAA - [0:0]
:KUBE-SVC-AAAA - [0:0]
:KUBE-SEP-BBBB - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-SERVICES -m comment --comment "default/lb-port22-test loadbalancer IP" -m tcp -p tcp -d 192.168.50.100 --dport 22 -j KUBE-EXT-AAAA
-A KUBE-EXT-AAAA -m comment --comment "masquerade traffic for default/lb-port22-test external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-AAAA -j KUBE-SVC-AAAA
-A KUBE-SVC-AAAA -m comment --comment "default/lb-port22-test -> 10.244.1.5:80" -j KUBE-SEP-BBBB
-A KUBE-SEP-BBBB -m comment --comment default/lb-port22-test -s 10.244.1.5/32 -j KUBE-MARK-MASQ
-A KUBE-SEP-BBBB -m comment --comment default/lb-port22-test -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:80
COMMIT
`;

export function vip22Network(rules: string | null): NetworkSpec {
  const client: HostSpec = {
    name: 'client',
    role: 'client',
    interfaces: [{ name: 'eth0', addresses: [`${CLIENT_IP}/24`], segment: 'lan' }],
  };
  const cp: HostSpec = {
    name: 'cp-1',
    role: 'node',
    interfaces: [{ name: 'eth0', addresses: [`${NODE_IP}/24`, `${VIP}/32`], segment: 'lan' }],
    routes: [{ to: '10.244.1.0/24', via: WORKER_IP }],
    sysctls: { ipForward: true },
    listeners: [
      {
        process: 'sshd',
        proto: 'tcp',
        address: '0.0.0.0',
        port: 22,
        reply: 'SSH-2.0-OpenSSH_10.3',
      },
    ],
    ...(rules ? { rules } : {}),
  };
  const worker: HostSpec = {
    name: 'worker-1',
    role: 'node',
    interfaces: [
      { name: 'eth0', addresses: [`${WORKER_IP}/24`], segment: 'lan' },
      {
        name: 'veth-nettest',
        addresses: [],
        kind: 'veth',
        segment: 'veth-nettest',
        proxyArp: true,
      },
    ],
    // The default route (to the homelab router) is what lets proxy_arp on veth-nettest answer
    // the pod's ARP for its 169.254.1.1 gateway: without it the pod cannot reply at all.
    routes: [
      { to: `${POD_IP}/32`, dev: 'veth-nettest' },
      { to: 'default', via: ROUTER_IP },
    ],
    sysctls: { ipForward: true },
  };
  const pod: HostSpec = {
    name: 'nettest',
    role: 'pod',
    interfaces: [
      { name: 'eth0', addresses: [`${POD_IP}/32`], kind: 'veth', segment: 'veth-nettest' },
    ],
    routes: [
      { to: '169.254.1.1/32', dev: 'eth0' },
      { to: 'default', via: '169.254.1.1', dev: 'eth0' },
    ],
    listeners: [
      { process: 'nettest', proto: 'tcp', address: '0.0.0.0', port: 80, reply: 'HTTP/1.0 200 OK' },
    ],
  };
  return { hosts: [client, cp, worker, pod] };
}
