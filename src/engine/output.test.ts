/**
 * Locally generated packets: where the kernel re-routes after a DNAT in nat OUTPUT. Observed
 * with the real-kernel suite (src/kernel, Linux 6.18, iptables-nft 1.8.9).
 */
import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate, xtablesNotation, type NetworkSpec } from './index.ts';

function node(routeLocalnet: boolean): NetworkSpec {
  return {
    hosts: [
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: ['192.168.50.38/24'], segment: 'lan' }],
        sysctls: { routeLocalnet },
        rules: `*nat
:OUTPUT ACCEPT [0:0]
-A OUTPUT -d 127.0.0.1/32 -p tcp -m tcp --dport 30080 -j DNAT --to-destination 192.168.50.10:80
COMMIT
*filter
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT
`,
      },
      {
        name: 'server',
        interfaces: [{ name: 'eth0', addresses: ['192.168.50.10/24'], segment: 'lan' }],
        listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80 }],
      },
    ],
  };
}

function firstPacket(spec: NetworkSpec) {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(JSON.stringify(problems));
  const sim = simulate(network, {
    kind: 'connect',
    from: 'node',
    proto: 'tcp',
    dst: '127.0.0.1',
    dport: 30080,
  });
  const events = sim.events.filter((e) => e.packetId === 1 && e.host === 'node');
  return { sim, events };
}

describe('reroute after nat OUTPUT (nf_nat_ipv4_local_fn)', () => {
  it('a failed reroute drops the packet inside the nat hook: filter OUTPUT never sees it', () => {
    const { sim, events } = firstPacket(node(false));
    expect(sim.outcome.kind).toBe('timeout');
    expect(events.map((e) => xtablesNotation(e)).filter((n) => n !== null)).toEqual([
      'nat:OUTPUT:rule:1:ACCEPT',
    ]);
    expect(events.some((e) => e.type === 'hook' && e.table === 'filter')).toBe(false);
    const drop = events.find((e) => e.type === 'route' && e.decision === 'drop');
    expect(drop?.type === 'route' && drop.reason).toBe('reroute-loopback-source');
  });

  it('a successful reroute comes before filter OUTPUT', () => {
    const { events } = firstPacket(node(true));
    const reroute = events.findIndex((e) => e.type === 'route' && e.decision === 'reroute');
    const filter = events.findIndex((e) => e.type === 'hook' && e.table === 'filter');
    expect(reroute).toBeGreaterThan(-1);
    expect(filter).toBeGreaterThan(reroute);
    expect(events.map((e) => xtablesNotation(e)).filter((n) => n !== null)).toContain(
      'filter:OUTPUT:rule:1:ACCEPT',
    );
  });
});
