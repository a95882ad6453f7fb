/**
 * nft rulesets at the hooks of a node, as a user of the lab sees them: who answers, what the
 * trace shows, in which order the base chains run. The same topology is checked against Linux
 * in src/kernel/nft.kernel.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  buildNetwork,
  hostProblemText,
  enumerateOutcomes,
  newNetworkState,
  nftNotation,
  simulate,
  type Network,
  type NetworkSpec,
  type TraceEvent,
} from '../index.ts';
import {
  CLUSTER_IP,
  KUBE_PROXY_NFT,
  NAT_CORE_IPTABLES,
  NAT_CORE_NFT,
  NODE_IP,
  NODE_POD_IP,
  NODE_PORT,
  nftNodeNetwork,
} from '../testing/nft-node.ts';

function net(spec: NetworkSpec = nftNodeNetwork()): Network {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(problems.map((p) => `${p.field}: ${p.message}`).join('\n'));
  return network;
}

const connect = (dst: string, dport: number) =>
  ({ kind: 'connect', from: 'client', proto: 'tcp', dst, dport, sport: 40000 }) as const;

function hooks(events: readonly TraceEvent[], packetId = 1): string[] {
  return events
    .filter((e) => e.host === 'node' && e.packetId === packetId && e.type === 'hook')
    .map((e) =>
      e.type === 'hook' ? `${e.hook} ${e.nft ? `${e.nft.table}/${e.nft.chain}` : e.table}` : '',
    );
}

describe('kube-proxy nftables mode on a node', () => {
  const n = net();

  it('a ClusterIP reaches either endpoint, half the time each, masqueraded to the node', () => {
    const en = enumerateOutcomes(n, connect(CLUSTER_IP, 80));
    expect(
      en.runs.map((r) => [r.outcome.kind === 'answered' && r.outcome.reply, r.probability]),
    ).toEqual([
      ['pod-a', 0.5],
      ['pod-b', 0.5],
    ]);
    expect(en.runs[0]?.outcome).toMatchObject({ srcSeen: NODE_POD_IP });
  });

  it('the trace names each rule as nft monitor trace does', () => {
    const sim = simulate(n, connect(NODE_IP, NODE_PORT), { seed: 1 });
    const lines = sim.events
      .filter((e) => e.host === 'node' && e.packetId === 1)
      .flatMap((e) => nftNotation(e) ?? []);
    expect(lines).toContain(
      'ip kube-proxy services rule fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports # handle 42 (verdict goto external-web)',
    );
    expect(lines.filter((l) => l.includes('numgen random mod 2'))).toHaveLength(1);
  });

  it('base chains run by priority, nat chains inside the NAT hook, later-registered first on ties', () => {
    const sim = simulate(n, connect(CLUSTER_IP, 80), { seed: 1 });
    expect(hooks(sim.events)).toEqual([
      'PREROUTING kube-proxy/filter-prerouting-pre-dnat',
      'PREROUTING kube-proxy/nat-prerouting',
      'FORWARD kube-proxy/filter-forward',
      'FORWARD filter',
      'POSTROUTING kube-proxy/nat-postrouting',
    ]);
  });

  it('later packets of the connection skip the nat chains; conntrack applies the binding', () => {
    const sim = simulate(n, connect(CLUSTER_IP, 80), { seed: 1 });
    const reply = sim.events.filter((e) => e.host === 'node' && e.packetId === 2);
    expect(reply.some((e) => e.type === 'rule' && e.nft?.chain === 'nat-prerouting')).toBe(false);
    expect(reply.filter((e) => e.type === 'nat-skip').length).toBeGreaterThan(0);
    expect(sim.outcome).toMatchObject({ kind: 'answered' });
  });

  it('accept in an nft chain leaves the packet to iptables; drop ends it', () => {
    expect(simulate(n, connect(NODE_IP, 2222)).outcome).toMatchObject({
      kind: 'refused',
      via: 'tcp-reset',
    });
    expect(simulate(n, connect(NODE_IP, 9001)).outcome).toMatchObject({
      kind: 'timeout',
      reason: 'rule inet hostfw input handle 3',
    });
  });

  it('a drop in a pre-DNAT filter chain stops a blocked LoadBalancer client before DNAT', () => {
    const sim = simulate(n, connect('192.168.70.100', 80));
    expect(sim.outcome.kind).toBe('timeout');
    expect(sim.events.some((e) => e.type === 'rule' && e.target === 'DNAT')).toBe(false);
  });
});

describe('the NAT core', () => {
  const n = net(nftNodeNetwork(NAT_CORE_NFT, NAT_CORE_IPTABLES));

  it('a nat chain at -150 runs after a filter chain at -120 and binds before iptables nat', () => {
    const sim = simulate(n, connect(NODE_IP, 7000));
    expect(sim.outcome).toMatchObject({ kind: 'answered', reply: 'pod-a' });
    expect(hooks(sim.events)).toEqual([
      'PREROUTING natlab/early',
      'PREROUTING natlab/dnat-first',
      'POSTROUTING nat',
    ]);
  });

  it('no binding: iptables nat decides', () => {
    expect(simulate(n, connect(NODE_IP, 7001)).outcome).toMatchObject({ reply: 'pod-b' });
  });
});

describe('families, state, and what the lab cannot evaluate', () => {
  it('an inet table sees IPv4 and IPv6 packets; an ip table only IPv4', () => {
    const spec: NetworkSpec = {
      hosts: [
        {
          name: 'client',
          interfaces: [
            { name: 'eth0', addresses: ['10.0.0.10/24', 'fd00::10/64'], segment: 'lan' },
          ],
        },
        {
          name: 'node',
          interfaces: [{ name: 'eth0', addresses: ['10.0.0.2/24', 'fd00::2/64'], segment: 'lan' }],
          listeners: [{ process: 'web', proto: 'tcp', address: '::', port: 80 }],
          nftables: `table inet f {
  chain input { type filter hook input priority 0; tcp dport 80 drop; }
}
table ip g {
  chain input { type filter hook input priority 0; tcp dport 81 drop; }
}`,
        },
      ],
    };
    const n = net(spec);
    for (const dst of ['10.0.0.2', 'fd00::2'])
      expect(
        simulate(n, { kind: 'connect', from: 'client', proto: 'tcp', dst, dport: 80 }).outcome.kind,
      ).toBe('timeout');
    const v6 = simulate(n, {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: 'fd00::2',
      dport: 81,
    });
    expect(v6.events.some((e) => e.type === 'hook' && e.nft?.table === 'g')).toBe(false);
  });

  it('IPv6 masquerade takes an IPv6 address of the outgoing interface', () => {
    const spec: NetworkSpec = {
      hosts: [
        {
          name: 'client',
          interfaces: [{ name: 'eth0', addresses: ['fd00:1::10/64'], segment: 'inside' }],
          routes: [{ to: '::/0', via: 'fd00:1::1' }],
        },
        {
          name: 'gw',
          interfaces: [
            { name: 'eth0', addresses: ['fd00:1::1/64'], segment: 'inside' },
            { name: 'eth1', addresses: ['fd00:2::1/64'], segment: 'outside' },
          ],
          sysctls: { ipForward: true },
          nftables: `table ip6 nat {
  chain post { type nat hook postrouting priority srcnat; oifname "eth1" masquerade; }
}`,
        },
        {
          name: 'server',
          interfaces: [{ name: 'eth0', addresses: ['fd00:2::20/64'], segment: 'outside' }],
          listeners: [{ process: 'web', proto: 'tcp', address: '::', port: 80, reply: 'web' }],
        },
      ],
    };
    const sim = simulate(net(spec), {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: 'fd00:2::20',
      dport: 80,
      // Given: the engine picks IPv4 sources only for local sockets.
      src: 'fd00:1::10',
    });
    expect(sim.outcome).toMatchObject({ kind: 'answered', reply: 'web', srcSeen: 'fd00:2::1' });
  });

  it('session affinity: update @set remembers the client, the next connection goes back', () => {
    const affinity = KUBE_PROXY_NFT.replace(
      'add rule ip kube-proxy service-web numgen',
      `add set ip kube-proxy affinity-a { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
add rule ip kube-proxy service-web ip saddr @affinity-a goto endpoint-web-a
add rule ip kube-proxy service-web numgen`,
    ).replace(
      'add rule ip kube-proxy endpoint-web-a meta l4proto tcp',
      'add rule ip kube-proxy endpoint-web-a update @affinity-a { ip saddr }\nadd rule ip kube-proxy endpoint-web-a meta l4proto tcp',
    );
    const n = net(nftNodeNetwork(affinity));
    const state = newNetworkState();
    // Seeds until the draw picks pod-a once; afterwards every connection stays with pod-a.
    let first = simulate(n, connect(CLUSTER_IP, 80), { seed: 1, state });
    for (let seed = 2; first.outcome.kind === 'answered' && first.outcome.reply !== 'pod-a'; seed++)
      first = simulate(n, { ...connect(CLUSTER_IP, 80), sport: 40000 + seed }, { seed, state });
    for (let k = 1; k <= 5; k++) {
      const again = simulate(
        n,
        { ...connect(CLUSTER_IP, 80), sport: 41000 + k },
        { seed: 100 + k, state },
      );
      expect(again.outcome).toMatchObject({ reply: 'pod-a' });
      expect(again.choices).toEqual([]);
    }
  });

  it('a statement the lab does not model stops the packet with an explicit unsupported step', () => {
    const n = net(
      nftNodeNetwork(`table ip t {
  chain input { type filter hook input priority 0; tcp dport 22 limit rate 10/second accept; }
}`),
    );
    const sim = simulate(n, connect(NODE_IP, 22));
    expect(sim.outcome).toMatchObject({ kind: 'unsupported', host: 'node' });
    const step = sim.events.find((e) => e.type === 'unsupported');
    expect(step?.type === 'unsupported' && step.what).toContain("'limit'");
  });

  it('bad nft text is a host problem with the line and column', () => {
    const { network, problems } = buildNetwork(nftNodeNetwork('add rule ip nope c drop\n'));
    expect(network).toBeNull();
    const p = problems[0];
    expect(p).toMatchObject({ source: 'node', field: 'nftables', line: 1, column: 13 });
    expect(p && hostProblemText(p)).toBe('line 1, column 13: there is no table ip nope');
  });
});
