/**
 * Source address selection (net/ipv4/devinet.c inet_select_addr, net/ipv4/route.c
 * ip_route_output_key_hash_rcu, net/netfilter/nf_nat_masquerade.c): which address the server
 * sees when a node's own process connects, with and without MASQUERADE. The kernel never picks a
 * host-scope address (127.0.0.1) for a packet MASQUERADEd out through lo, skips addresses whose
 * scope is narrower than the route's, and, when the outgoing device has no address, takes the
 * first global one of the host, looking at lo first.
 */
import { afterAll, beforeAll, it } from 'vitest';
import type { NetworkSpec } from '../engine/index.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement } from './expect.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

/**
 * node: eth0 192.168.10.11/24 (preceded by a link-scope 10.0.0.5/24), an address-less veth to a
 * pod (Calico-style), optionally a global 10.10.10.10/32 on lo (an anycast or DSR address). nat OUTPUT sends 10.96.0.10:80 (a "ClusterIP") to the node's own
 * 192.168.10.11:8080 (a host-network endpoint) and MASQUERADEs it, as kube-proxy's KUBE-MARK-MASQ
 * and KUBE-POSTROUTING do for a node calling a ClusterIP from outside the cluster CIDR.
 */
function spec(routeLocalnet: boolean, loAddress: boolean): NetworkSpec {
  return {
    hosts: [
      {
        name: 'node',
        interfaces: [
          {
            name: 'eth0',
            addresses: ['10.0.0.5/24 scope link', '192.168.10.11/24'],
            segment: 'lan',
          },
          { name: 'cali1', addresses: [], kind: 'veth', segment: 'veth:pod', proxyArp: true },
          ...(loAddress ? [{ name: 'lo', addresses: ['10.10.10.10/32'] }] : []),
        ],
        routes: [
          { to: '10.244.0.5/32', dev: 'cali1' },
          { to: '10.30.0.0/16', via: '10.0.0.1' },
          { to: 'default', via: '192.168.10.1' },
        ],
        sysctls: { ipForward: true, routeLocalnet },
        listeners: [{ process: 'hostnet', proto: 'tcp', address: '0.0.0.0', port: 8080 }],
        rules: `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A OUTPUT -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 192.168.10.11:8080
-A OUTPUT -d 10.96.0.11/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 10.244.0.5:80
-A POSTROUTING -d 192.168.10.11/32 -p tcp -m tcp --dport 8080 -j MASQUERADE
-A POSTROUTING -o cali1 -p tcp -m tcp --dport 81 -j MASQUERADE
COMMIT
`,
      },
      {
        name: 'peer',
        interfaces: [
          {
            name: 'eth0',
            addresses: ['192.168.10.1/24', '10.0.0.1/24', '10.30.0.7/16'],
            segment: 'lan',
          },
        ],
        listeners: [{ process: 'peer', proto: 'tcp', address: '0.0.0.0', port: 80 }],
      },
      {
        name: 'pod',
        interfaces: [
          { name: 'eth0', addresses: ['10.244.0.5/32'], kind: 'veth', segment: 'veth:pod' },
        ],
        routes: [
          { to: '169.254.1.1/32', dev: 'eth0' },
          { to: 'default', via: '169.254.1.1', dev: 'eth0' },
        ],
        listeners: [
          { process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80 },
          { process: 'web81', proto: 'tcp', address: '0.0.0.0', port: 81 },
        ],
      },
    ],
  };
}

const VARIANTS = [
  { routeLocalnet: false, loAddress: false, hostSrc: '192.168.10.11' },
  { routeLocalnet: true, loAddress: false, hostSrc: '192.168.10.11' },
  { routeLocalnet: true, loAddress: true, hostSrc: '10.10.10.10' },
];

for (const { routeLocalnet, loAddress, hostSrc } of VARIANTS) {
  const title = `route_localnet=${routeLocalnet ? 1 : 0}, ${loAddress ? '10.10.10.10/32 on lo' : 'only 127.0.0.1 on lo'}`;
  describeKernel(`source address selection (${title})`, () => {
    let lab: KernelLab | null = null;
    beforeAll(async () => {
      lab = await KernelLab.start(spec(routeLocalnet, loAddress), { timeoutMs: 1500 });
    });
    afterAll(() => lab?.close());
    const probe = (dst: string, dport: number) =>
      crossCheck(lab as KernelLab, { kind: 'connect', from: 'node', proto: 'tcp', dst, dport });

    it(`a node calling a ClusterIP whose endpoint is itself, MASQUERADEd out lo: src ${hostSrc}, never 127.0.0.1`, async () => {
      // inet_select_addr(lo, nh, RT_SCOPE_UNIVERSE) skips 127.0.0.1 (scope host; route_localnet
      // only widens it to link), then in_dev_select_addr walks the devices, lo first.
      expectAgreement(await probe('10.96.0.10', 80), `answered "hostnet@node" src=${hostSrc}`);
    });

    it('a route via a gateway picks a global address: the link-scope one in the gateway’s subnet is skipped', async () => {
      expectAgreement(await probe('10.30.0.7', 80), 'answered "peer@peer" src=192.168.10.11');
    });

    it('a connected route: its prefsrc, the primary address of eth0', async () => {
      expectAgreement(await probe('192.168.10.1', 80), 'answered "peer@peer" src=192.168.10.11');
    });

    it(`a route to an address-less veth, with and without MASQUERADE: the host's first global address (${hostSrc})`, async () => {
      expectAgreement(await probe('10.244.0.5', 80), `answered "web@pod" src=${hostSrc}`);
      expectAgreement(await probe('10.244.0.5', 81), `answered "web81@pod" src=${hostSrc}`);
    });

    it('a DNAT to a pod in OUTPUT: the source chosen for the ClusterIP’s route stays', async () => {
      expectAgreement(await probe('10.96.0.11', 80), 'answered "web@pod" src=192.168.10.11');
    });
  });
}
