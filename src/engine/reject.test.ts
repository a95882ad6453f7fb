/**
 * What REJECT's RST or ICMP error carries: the rejected packet's connection, as RELATED in the
 * other direction (nf_send_reset / icmp_glue_bits -> nf_ct_attach). Observed with the
 * real-kernel suite (src/kernel, Linux 6.18, iptables-nft 1.8.9).
 */
import { describe, expect, it } from 'vitest';
import {
  buildNetwork,
  newNetworkState,
  simulate,
  xtablesNotation,
  type NetworkSpec,
} from './index.ts';
import { routedNetwork } from './testing/routed.ts';

const HARDENED = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 23 -j REJECT
-A INPUT -p tcp -m tcp --dport 24 -j REJECT --reject-with tcp-reset
-A OUTPUT -m conntrack --ctstate INVALID -j DROP
-A OUTPUT -m conntrack --ctstate RELATED -j ACCEPT
COMMIT
`;

function lan(rules: string): NetworkSpec {
  return {
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: ['192.168.50.10/24'], segment: 'lan' }],
      },
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: ['192.168.50.38/24'], segment: 'lan' }],
        rules,
      },
    ],
  };
}

function net(spec: NetworkSpec) {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(JSON.stringify(problems));
  return network;
}

function rulesOf(sim: ReturnType<typeof simulate>, host: string, packetId: number): string[] {
  return sim.events
    .filter((e) => e.host === host && e.packetId === packetId)
    .map((e) => xtablesNotation(e))
    .filter((n): n is string => n !== null);
}

describe('REJECT hands its connection to the RST / ICMP error', () => {
  it.each([
    [23, 'icmp-port-unreachable'],
    [24, 'tcp-reset'],
  ])('port %i: OUTPUT sees RELATED, not INVALID, so the client is refused (%s)', (dport, via) => {
    const sim = simulate(net(lan(HARDENED)), {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: '192.168.50.38',
      dport,
    });
    expect(sim.outcome).toMatchObject({ kind: 'refused', via });
    expect(rulesOf(sim, 'node', 2)).toEqual(['filter:OUTPUT:rule:2:ACCEPT']);
  });

  it('a REJECT in FORWARD: the RST runs the nat POSTROUTING chains, and nothing is confirmed', () => {
    const spec = routedNetwork(`*nat
:PREROUTING ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -o eth1 -j MASQUERADE
COMMIT
*filter
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -p tcp -m tcp --dport 83 -j REJECT --reject-with tcp-reset
COMMIT
`);
    const state = newNetworkState();
    const sim = simulate(
      net(spec),
      { kind: 'connect', from: 'client', proto: 'tcp', dst: '10.0.2.20', dport: 83 },
      { state },
    );
    expect(sim.outcome).toMatchObject({ kind: 'refused', via: 'tcp-reset' });
    // The SYN never reached nat POSTROUTING, so the RST (RELATED_REPLY) does.
    expect(rulesOf(sim, 'gw', 2)).toEqual([
      'filter:OUTPUT:policy:ACCEPT',
      'nat:POSTROUTING:policy:ACCEPT',
    ]);
    expect(state.hosts.get('gw')?.conntrack.conns.size).toBe(0);
  });
});
