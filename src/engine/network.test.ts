/**
 * L2 behaviours of the multi-host driver that the real-kernel suite (src/kernel) revealed.
 * Each case was observed on Linux 6.18 in network namespaces before it was written here.
 */
import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate, type NetworkSpec, type RouteSpec } from './index.ts';

/** A node and a Calico-style pod: the pod's gateway 169.254.1.1 exists on nobody. */
function podNetwork(opts: { proxyArp: boolean; nodeRoutes: readonly RouteSpec[] }): NetworkSpec {
  return {
    hosts: [
      {
        name: 'node',
        interfaces: [
          { name: 'eth0', addresses: ['192.168.50.39/24'], segment: 'lan' },
          { name: 'cali1', addresses: [], kind: 'veth', segment: 'p', proxyArp: opts.proxyArp },
        ],
        routes: [{ to: '10.244.1.5/32', dev: 'cali1' }, ...opts.nodeRoutes],
        sysctls: { ipForward: true },
      },
      {
        name: 'pod',
        interfaces: [{ name: 'eth0', addresses: ['10.244.1.5/32'], kind: 'veth', segment: 'p' }],
        routes: [
          { to: '169.254.1.1/32', dev: 'eth0' },
          { to: 'default', via: '169.254.1.1', dev: 'eth0' },
        ],
        listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80 }],
      },
    ],
  };
}

function connectToPod(spec: NetworkSpec) {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(JSON.stringify(problems));
  return simulate(network, {
    kind: 'connect',
    from: 'node',
    proto: 'tcp',
    dst: '10.244.1.5',
    dport: 80,
  });
}

describe('proxy ARP (net/ipv4/arp.c arp_process / arp_fwd_proxy)', () => {
  it('answers for the pod gateway when the node routes it out of another interface', () => {
    const sim = connectToPod(
      podNetwork({ proxyArp: true, nodeRoutes: [{ to: 'default', via: '192.168.50.1' }] }),
    );
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'pod', srcSeen: '192.168.50.39' });
  });

  it('stays silent when the node has no route to the target: the pod cannot reply', () => {
    const sim = connectToPod(podNetwork({ proxyArp: true, nodeRoutes: [] }));
    expect(sim.outcome.kind).toBe('timeout');
    const arp = sim.events.find((e) => e.type === 'drop' && e.reason === 'arp-failed');
    expect(arp?.host).toBe('pod');
  });

  it('stays silent when the route points back out of the interface the request came in on', () => {
    const sim = connectToPod(
      podNetwork({ proxyArp: true, nodeRoutes: [{ to: '169.254.0.0/16', dev: 'cali1' }] }),
    );
    expect(sim.outcome.kind).toBe('timeout');
  });

  it('a veth peer without proxy_arp answers only for its own addresses', () => {
    const sim = connectToPod(
      podNetwork({ proxyArp: false, nodeRoutes: [{ to: 'default', via: '192.168.50.1' }] }),
    );
    expect(sim.outcome.kind).toBe('timeout');
  });
});

describe('ARP requests pass rp_filter (arp_process -> ip_route_input_noref)', () => {
  function spoofy(rpFilter: 0 | 1 | 2): NetworkSpec {
    return {
      hosts: [
        {
          name: 'client',
          interfaces: [
            { name: 'eth0', addresses: ['10.0.1.10/24', '10.0.3.10/32'], segment: 'inside' },
          ],
          routes: [{ to: '10.0.0.0/8', via: '10.0.1.1' }],
        },
        {
          name: 'gw',
          interfaces: [
            { name: 'eth0', addresses: ['10.0.1.1/24'], segment: 'inside' },
            { name: 'eth2', addresses: ['10.0.4.1/24'], segment: 'side' },
          ],
          routes: [{ to: '10.0.3.0/24', dev: 'eth2' }],
          sysctls: { ipForward: true, rpFilter },
          listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80 }],
        },
      ],
    };
  }
  const from3 = (rp: 0 | 1 | 2) => {
    const { network } = buildNetwork(spoofy(rp));
    if (!network) throw new Error('bad spec');
    return simulate(network, {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: '10.0.1.1',
      dport: 80,
      src: '10.0.3.10',
    });
  };

  it('strict: the sender address routes back out of eth2, so gw does not answer ARP', () => {
    expect(from3(1).outcome).toMatchObject({ kind: 'unreachable', host: 'client' });
  });

  it('loose or off: any route back will do, and the SYN reaches gw', () => {
    for (const rp of [2, 0] as const) {
      const delivered = from3(rp).events.find((e) => e.type === 'socket' && e.host === 'gw');
      expect(delivered?.type === 'socket' && delivered.result).toBe('delivered');
    }
  });
});

describe("generated hosts (a cluster's pods) are built when a packet reaches them", () => {
  const generated = (spec: NetworkSpec): NetworkSpec => ({
    hosts: spec.hosts.map((h) => (h.name === 'pod' ? { ...h, generated: true } : h)),
  });

  it('a generated pod answers exactly as one built with the network', () => {
    const spec = podNetwork({
      proxyArp: true,
      nodeRoutes: [{ to: 'default', via: '192.168.50.1' }],
    });
    expect(connectToPod(generated(spec))).toEqual(connectToPod(spec));
  });

  it('a generated host with a broken address fails when reached, not with the network', () => {
    const spec = podNetwork({
      proxyArp: true,
      nodeRoutes: [{ to: 'default', via: '192.168.50.1' }],
    });
    const broken: NetworkSpec = {
      hosts: spec.hosts.map((h) =>
        h.name === 'pod'
          ? {
              ...h,
              generated: true,
              interfaces: [{ ...h.interfaces[0]!, addresses: ['10.244.1.5/99'] }],
            }
          : h,
      ),
    };
    const { network, problems } = buildNetwork(broken);
    expect(problems).toEqual([]);
    expect(network?.hosts.has('pod')).toBe(true);
    expect(() => connectToPod(broken)).toThrow(/generated host pod does not build/);
    // The same host, not generated, is a problem of the network.
    const plain = { hosts: broken.hosts.map(({ generated: _, ...h }) => h) };
    expect(buildNetwork(plain).problems[0]).toMatchObject({ source: 'pod' });
  });

  it('lists every host, generated or not, when iterated', () => {
    const { network } = buildNetwork(generated(podNetwork({ proxyArp: true, nodeRoutes: [] })));
    expect([...(network?.hosts.keys() ?? [])].sort()).toEqual(['node', 'pod']);
    expect(network?.hosts.get('pod')?.config.ifaces.get('eth0')?.segment).toBe('p');
  });
});

describe('a route spec shared by several hosts (a cluster builder shares them)', () => {
  it('routes each host alike, and a device one host lacks is still its own problem', () => {
    const shared: RouteSpec = { to: '10.9.0.0/24', via: '10.0.1.1' };
    const viaDev: RouteSpec = { to: '10.8.0.0/24', dev: 'eth1' };
    const host = (name: string, ip: string, ifaces: string[]) => ({
      name,
      interfaces: ifaces.map((n, k) => ({
        name: n,
        addresses: [`10.0.${k + 1}.${ip}/24`],
        segment: `s${k}`,
      })),
      routes: [shared, viaDev],
    });
    const good = buildNetwork({
      hosts: [host('a', '10', ['eth0', 'eth1']), host('b', '11', ['eth0', 'eth1'])],
    });
    expect(good.problems).toEqual([]);
    for (const h of ['a', 'b'])
      expect(good.network?.hosts.get(h)?.config.routes.map((r) => r.text)).toEqual(
        expect.arrayContaining(['10.9.0.0/24 via 10.0.1.1', '10.8.0.0/24 dev eth1']),
      );
    const bad = buildNetwork({
      hosts: [host('a', '10', ['eth0', 'eth1']), host('c', '12', ['eth0'])],
    });
    expect(bad.problems.map((p) => [p.source, p.field, p.message])).toEqual([
      ['c', 'routes[1].dev', 'no interface named eth1'],
    ]);
  });
});
