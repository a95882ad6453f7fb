/**
 * Pods on a Linux bridge: L2 forwarding between ports, br_netfilter's IPv4 hooks for bridged
 * frames, bridged DNAT, hairpin mode, and bridge-nf-call-iptables=0 (scenario
 * bridge-pod-network.yaml checks the same on the real kernel).
 */
import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate, type HostSpec, type Network } from './index.ts';
import { notation } from './testing/single-host.ts';

const VIP = '10.96.0.1';
const RULES = `*nat
:PREROUTING ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -d ${VIP}/32 -p tcp --dport 80 -j DNAT --to-destination 10.244.0.10:8080
-A POSTROUTING -s 10.244.0.10/32 -d 10.244.0.10/32 -j MASQUERADE
COMMIT
*filter
:FORWARD ACCEPT [0:0]
-A FORWARD -m physdev --physdev-is-bridged -j ACCEPT
COMMIT
`;

function pod(name: string, ip: string, listen: boolean): HostSpec {
  return {
    name,
    role: 'pod',
    interfaces: [{ name: 'eth0', addresses: [`${ip}/24`], kind: 'veth', segment: `veth:${name}` }],
    routes: [{ to: 'default', via: '10.244.0.1' }],
    listeners: listen ? [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 8080 }] : [],
  };
}

function bridgeNet(opts: { nf: boolean; hairpin: boolean }): Network {
  const port = (name: string, peer: string) => ({
    name,
    addresses: [],
    kind: 'veth' as const,
    segment: `veth:${peer}`,
    master: 'cni0',
    hairpin: opts.hairpin,
  });
  const { network, problems } = buildNetwork({
    hosts: [
      {
        name: 'node',
        role: 'node',
        interfaces: [
          { name: 'cni0', kind: 'bridge', addresses: ['10.244.0.1/24'] },
          port('vetha', 'web'),
          port('vethb', 'client'),
        ],
        sysctls: { ipForward: true, bridgeNfCallIptables: opts.nf },
        rules: RULES,
      },
      pod('web', '10.244.0.10', true),
      pod('client', '10.244.0.11', false),
    ],
  });
  if (!network) throw new Error(JSON.stringify(problems));
  return network;
}

const connect = (net: Network, from: string, dst: string, dport: number) =>
  simulate(net, { kind: 'connect', from, proto: 'tcp', dst, dport });

function bridgeSteps(sim: ReturnType<typeof connect>, packetId: number): string[] {
  return sim.events.flatMap((e) =>
    e.type === 'bridge' && e.packetId === packetId
      ? [`${e.action} ${e.inPort ?? '-'}>${e.outPort ?? '-'}`]
      : [],
  );
}

describe('pods on a bridge (cni0)', () => {
  it('bridges pod to pod at L2, through FORWARD with physdev ports when br_netfilter is on', () => {
    const sim = connect(bridgeNet({ nf: true, hairpin: true }), 'client', '10.244.0.10', 8080);
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '10.244.0.11' });
    expect(bridgeSteps(sim, 1)).toEqual([
      'nf-prerouting vethb>-',
      'forward vethb>vetha',
      'nf-forward vethb>vetha',
      'nf-postrouting vethb>vetha',
    ]);
    expect(notation(sim, 'node')).toEqual([
      'nat:PREROUTING:policy:ACCEPT',
      'filter:FORWARD:rule:1:ACCEPT',
      'nat:POSTROUTING:policy:ACCEPT',
    ]);
    // Bridged, not routed: the node makes no routing decision and the TTL is unchanged.
    expect(sim.events.some((e) => e.host === 'node' && e.type === 'route')).toBe(false);
    const atWeb = sim.events.find((e) => e.host === 'web' && e.type === 'receive');
    expect(atWeb?.packet.ttl).toBe(64);
  });

  it('DNATs a Service in the bridged frame and un-DNATs the bridged reply', () => {
    const sim = connect(bridgeNet({ nf: true, hairpin: true }), 'client', VIP, 80);
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '10.244.0.11' });
    expect(bridgeSteps(sim, 1)).toEqual([
      'nf-prerouting vethb>-',
      'dnat-bridged vethb>vetha',
      'forward vethb>vetha',
      'nf-forward vethb>vetha',
      'nf-postrouting vethb>vetha',
    ]);
    // The SYN-ACK: web -> client directly, bridged; conntrack puts the VIP back as source.
    expect(bridgeSteps(sim, 2)).toEqual([
      'nf-prerouting vetha>-',
      'forward vetha>vethb',
      'nf-forward vetha>vethb',
      'nf-postrouting vetha>vethb',
    ]);
    const atClient = sim.events.find((e) => e.host === 'client' && e.packetId === 2);
    expect(atClient?.packet).toMatchObject({ src: VIP, sport: 80 });
  });

  it('with bridge-nf-call-iptables=0 the reply skips conntrack and the client resets it', () => {
    const sim = connect(bridgeNet({ nf: false, hairpin: true }), 'client', VIP, 80);
    expect(sim.outcome.kind).toBe('timeout');
    // The SYN still goes up the stack from cni0 (it is for the gateway's MAC) and is DNATed.
    expect(bridgeSteps(sim, 1)).toEqual(['nf-off vethb>-', 'local vethb>-', 'xmit ->vetha']);
    expect(bridgeSteps(sim, 2)).toEqual(['nf-off vetha>-', 'forward vetha>vethb']);
    const reply = sim.events.filter((e) => e.host === 'node' && e.packetId === 2);
    expect(reply.some((e) => e.type === 'conntrack' || e.type === 'hook')).toBe(false);
    const atClient = sim.events.find((e) => e.host === 'client' && e.packetId === 2);
    expect(atClient?.packet).toMatchObject({ src: '10.244.0.10', sport: 8080 });
    expect(
      sim.events.some((e) => e.host === 'client' && e.type === 'send' && e.reason === 'reset'),
    ).toBe(true);
  });

  it('a pod reaching itself through the Service needs hairpin mode when br_netfilter is on', () => {
    const on = connect(bridgeNet({ nf: true, hairpin: true }), 'web', VIP, 80);
    expect(on.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '10.244.0.1' });
    const off = connect(bridgeNet({ nf: true, hairpin: false }), 'web', VIP, 80);
    expect(off.outcome.kind).toBe('timeout');
    expect(bridgeSteps(off, 1).at(-1)).toBe('hairpin-drop vetha>vetha');
  });

  it('without br_netfilter the IP stack sends the DNATed frame, so no hairpin is needed', () => {
    const sim = connect(bridgeNet({ nf: false, hairpin: false }), 'web', VIP, 80);
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '10.244.0.1' });
    expect(bridgeSteps(sim, 1)).toEqual(['nf-off vetha>-', 'local vetha>-', 'xmit ->vetha']);
  });

  it('a bridge port must name a bridge of its host', () => {
    const { problems } = buildNetwork({
      hosts: [
        {
          name: 'node',
          interfaces: [
            { name: 'eth0', addresses: ['10.0.0.1/24'] },
            { name: 'veth1', addresses: [], master: 'eth0' },
          ],
        },
      ],
    });
    expect(problems).toEqual([
      expect.objectContaining({
        field: 'interfaces[1].master',
        message: 'eth0 is not an interface of kind bridge on node',
      }),
    ]);
  });
});
