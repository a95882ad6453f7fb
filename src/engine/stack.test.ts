import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate, SYN } from './index.ts';
import { connect, lanNetwork, NODE, notation, table, CLIENT } from './testing/single-host.ts';
import { LB_RULES, NODE_IP, VIP, vip22Network } from './testing/vip22.ts';

function vipNet(rules: string | null) {
  const { network, problems } = buildNetwork(vip22Network(rules));
  if (!network) throw new Error(JSON.stringify(problems));
  return network;
}

describe('VIP:22 — host sshd or LoadBalancer Service (DOMAIN §1)', () => {
  it('without a Service the VIP is a local address: INPUT, sshd answers', () => {
    const sim = connect(vipNet(null), VIP, 22);
    expect(sim.outcome).toMatchObject({
      kind: 'answered',
      host: 'cp-1',
      process: 'sshd',
      srcSeen: '192.168.50.10',
    });
  });

  it("with the LB Service, DNAT in nat PREROUTING wins: the pod answers and sees the node's IP", () => {
    const sim = connect(vipNet(LB_RULES), VIP, 22);
    expect(sim.outcome).toMatchObject({
      kind: 'answered',
      host: 'nettest',
      reply: 'HTTP/1.0 200 OK',
      srcSeen: NODE_IP,
      dstPortSeen: 80,
    });
    const route = sim.events.find((e) => e.host === 'cp-1' && e.type === 'route');
    expect(route?.type === 'route' && route.decision).toBe('forward');
    expect(sim.events.some((e) => e.host === 'cp-1' && e.type === 'socket')).toBe(false);
    expect(notation(sim, 'cp-1')).toEqual([
      'nat:PREROUTING:rule:1:JUMP:KUBE-SERVICES',
      'nat:KUBE-SERVICES:rule:1:JUMP:KUBE-EXT-AAAA',
      'nat:KUBE-EXT-AAAA:rule:1:JUMP:KUBE-MARK-MASQ',
      'nat:KUBE-MARK-MASQ:rule:1:CONTINUE',
      'nat:KUBE-MARK-MASQ:return:',
      'nat:KUBE-EXT-AAAA:rule:2:JUMP:KUBE-SVC-AAAA',
      'nat:KUBE-SVC-AAAA:rule:1:JUMP:KUBE-SEP-BBBB',
      'nat:KUBE-SEP-BBBB:rule:2:ACCEPT',
      'filter:FORWARD:rule:1:JUMP:KUBE-FORWARD',
      'filter:KUBE-FORWARD:rule:2:ACCEPT',
      'nat:POSTROUTING:rule:1:JUMP:KUBE-POSTROUTING',
      'nat:KUBE-POSTROUTING:rule:2:CONTINUE',
      'nat:KUBE-POSTROUTING:rule:3:ACCEPT',
    ]);
  });

  it("the node's own IP on port 22 always reaches sshd", () => {
    const sim = connect(vipNet(LB_RULES), NODE_IP, 22);
    expect(sim.outcome).toMatchObject({ kind: 'answered', process: 'sshd' });
  });

  it('the reply is translated by conntrack, not by rules: the client sees VIP:22', () => {
    const sim = connect(vipNet(LB_RULES), VIP, 22);
    const reply = sim.events.filter((e) => e.packetId === 2 && e.host === 'cp-1');
    expect(reply.some((e) => e.type === 'nat-skip')).toBe(true);
    expect(reply.some((e) => e.type === 'rule' && e.table === 'nat')).toBe(false);
    const last = sim.events.filter((e) => e.packetId === 2).at(-1);
    expect(last?.packet).toMatchObject({ src: VIP, sport: 22 });
  });

  it('conntrack looks up after raw, confirms after the last hook, and NAT rules show the binding', () => {
    const sim = connect(vipNet(LB_RULES), VIP, 22);
    const cp = sim.events.filter((e) => e.host === 'cp-1');
    const ct = (pid: number) =>
      cp.flatMap((e) =>
        e.type === 'conntrack' && e.packetId === pid ? [`${e.action}@${e.hook}`] : [],
      );
    // The SYN: a new entry at PREROUTING, confirmed in POSTROUTING (forwarded to the pod).
    expect(ct(1)).toEqual(['new@PREROUTING', 'confirm@POSTROUTING']);
    // The reply: found in the reply direction, then both rewrites undone from the entry.
    expect(ct(2)).toEqual(['lookup@PREROUTING', 'nat@PREROUTING', 'nat@POSTROUTING']);
    const dnat = cp.find((e) => e.type === 'rule' && e.target === 'DNAT');
    const masq = cp.find((e) => e.type === 'rule' && e.target === 'MASQUERADE');
    if (dnat?.type !== 'rule' || masq?.type !== 'rule') throw new Error('no NAT rules');
    // After DNAT the entry expects the reply from the pod; after MASQUERADE, to the node.
    expect(dnat.conn?.reply).toMatchObject({ src: '10.244.1.5', sport: 80, dst: '192.168.50.10' });
    expect(masq.conn?.reply).toMatchObject({ src: '10.244.1.5', dst: NODE_IP });
    expect(dnat.conn?.orig).toMatchObject({ dst: VIP, dport: 22 });
    // The first hook events of the SYN: raw runs before conntrack sees it.
    const order = cp
      .filter((e) => e.packetId === 1 && (e.type === 'hook' || e.type === 'conntrack'))
      .map((e) => (e.type === 'hook' ? e.table : 'ct'));
    expect(order.slice(0, 2)).toEqual(['ct', 'nat']);
    // Without the Service (an empty filter table: a host with no tables has no conntrack at all).
    const empty = '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n';
    const local = connect(vipNet(empty), VIP, 22).events.filter(
      (e) => e.host === 'cp-1' && e.type === 'conntrack',
    );
    expect(local.map((e) => (e.type === 'conntrack' ? `${e.action}@${e.hook}` : ''))).toEqual([
      'new@PREROUTING',
      'confirm@INPUT',
      'lookup@OUTPUT',
    ]);
  });

  it('without MASQUERADE the pod answers the client directly, which resets: timeout', () => {
    const noSnat = LB_RULES.replace(/^-A KUBE-POSTROUTING -m comment.*MASQUERADE\n/m, '');
    const { network } = buildNetwork({
      ...vip22Network(noSnat),
    });
    // The worker routes the reply straight to the client on the LAN.
    const sim = connect(network as NonNullable<typeof network>, VIP, 22);
    expect(sim.outcome.kind).toBe('timeout');
    const clientRx = sim.events.find(
      (e) => e.host === 'client' && e.packetId === 2 && e.type === 'socket',
    );
    expect(clientRx?.type === 'socket' && clientRx.result).toBe('no-connection');
    expect(clientRx?.packet.src).toBe('10.244.1.5');
  });
});

describe('kernel path on one host', () => {
  it('DROP in filter INPUT: the sender times out', () => {
    const net = lanNetwork({
      rules: table('filter', ['INPUT ACCEPT [0:0]'], ['-A INPUT -p tcp --dport 22 -j DROP']),
    });
    expect(connect(net, NODE, 22).outcome.kind).toBe('timeout');
  });

  it('REJECT: the sender is refused with the ICMP error, or a reset', () => {
    const icmp = lanNetwork({
      rules: table('filter', ['INPUT ACCEPT [0:0]'], ['-A INPUT -p tcp --dport 22 -j REJECT']),
    });
    expect(connect(icmp, NODE, 22).outcome).toMatchObject({
      kind: 'refused',
      via: 'icmp-port-unreachable',
      from: NODE,
    });
    const rst = lanNetwork({
      rules: table(
        'filter',
        ['INPUT ACCEPT [0:0]'],
        ['-A INPUT -p tcp --dport 22 -j REJECT --reject-with tcp-reset'],
      ),
    });
    expect(connect(rst, NODE, 22).outcome).toMatchObject({ kind: 'refused', via: 'tcp-reset' });
  });

  it('no socket listening: TCP reset, UDP port unreachable', () => {
    const net = lanNetwork({});
    expect(connect(net, NODE, 23).outcome).toMatchObject({ kind: 'refused', via: 'tcp-reset' });
    expect(connect(net, NODE, 53, { proto: 'udp' }).outcome).toMatchObject({
      kind: 'refused',
      via: 'icmp-port-unreachable',
    });
  });

  it('policy DROP on INPUT, with an ESTABLISHED rule, still lets replies of own connections in', () => {
    const net = lanNetwork(
      {
        rules: table(
          'filter',
          ['INPUT DROP [0:0]'],
          [
            '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
            '-A INPUT -p tcp --dport 22 -j ACCEPT',
          ],
        ),
        listeners: [],
      },
      [
        {
          name: 'server',
          interfaces: [{ name: 'eth0', addresses: ['192.168.1.30/24'], segment: 'lan' }],
          listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80 }],
        },
      ],
    );
    const sim = connect(net, '192.168.1.30', 80, { from: 'node' });
    expect(sim.outcome).toMatchObject({ kind: 'answered', process: 'web' });
    expect(notation(sim, 'node', 2)).toEqual(['filter:INPUT:rule:1:ACCEPT']);
  });

  it('a bind address is honoured: a socket on one address does not get another', () => {
    const net = lanNetwork({
      interfaces: [{ name: 'eth0', addresses: [`${NODE}/24`, '192.168.1.11/24'], segment: 'lan' }],
      listeners: [{ process: 'api', proto: 'tcp', address: NODE, port: 6443 }],
    });
    expect(connect(net, NODE, 6443).outcome.kind).toBe('answered');
    expect(connect(net, '192.168.1.11', 6443).outcome).toMatchObject({
      kind: 'refused',
      via: 'tcp-reset',
    });
  });

  it('127.0.0.1 arriving from the wire is a martian unless route_localnet is set', () => {
    const inject = (routeLocalnet: boolean, rules?: string) =>
      simulate(
        lanNetwork({ ...(rules ? { rules } : {}), sysctls: { ipForward: true, routeLocalnet } }),
        {
          kind: 'inject',
          host: 'node',
          iface: 'eth0',
          packet: {
            proto: 'tcp',
            src: CLIENT,
            dst: '127.0.0.1',
            sport: 5555,
            dport: 22,
            flags: SYN,
            mark: 0,
            ttl: 64,
          },
        },
      ).outcome;
    expect(inject(false)).toMatchObject({
      kind: 'dropped',
      reason: 'martian destination (127.0.0.0/8 without route_localnet)',
    });
    expect(inject(true)).toMatchObject({
      kind: 'delivered',
      process: 'sshd',
      dstSeen: '127.0.0.1',
    });
    // The routing decision comes after nat PREROUTING: a DNATed 127.0.0.1 is routed by its new address.
    const dnat = table(
      'nat',
      ['PREROUTING ACCEPT [0:0]'],
      [`-A PREROUTING -d 127.0.0.1/32 -p tcp -j DNAT --to-destination ${NODE}:22`],
    );
    expect(inject(false, dnat)).toMatchObject({ kind: 'delivered', dstSeen: NODE });
  });

  it('forwarding off: a packet for another host is dropped silently', () => {
    const hosts = (ipForward: boolean) =>
      buildNetwork({
        hosts: [
          {
            name: 'client',
            interfaces: [{ name: 'eth0', addresses: [`${CLIENT}/24`], segment: 'lan' }],
            routes: [{ to: '10.0.0.0/8', via: NODE }],
          },
          {
            name: 'node',
            interfaces: [{ name: 'eth0', addresses: [`${NODE}/24`], segment: 'lan' }],
            sysctls: { ipForward },
          },
        ],
      }).network as NonNullable<ReturnType<typeof buildNetwork>['network']>;
    expect(connect(hosts(false), '10.1.2.3', 80).outcome).toMatchObject({
      kind: 'timeout',
      reason: 'not a local address and ip_forward is off',
    });
    // With forwarding on but no route, the router answers ICMP net unreachable.
    expect(connect(hosts(true), '10.1.2.3', 80).outcome).toMatchObject({
      kind: 'refused',
      via: 'icmp-net-unreachable',
      from: NODE,
    });
  });

  it('nat OUTPUT rewrites locally generated traffic, then the kernel routes again', () => {
    const rules = table(
      'nat',
      ['OUTPUT ACCEPT [0:0]'],
      [`-A OUTPUT -d 10.96.0.1/32 -p tcp --dport 443 -j DNAT --to-destination ${CLIENT}:22`],
    );
    const net = lanNetwork({ rules, routes: [{ to: 'default', via: CLIENT }] }, []);
    const withSsh = buildNetwork({
      hosts: [
        {
          name: 'client',
          interfaces: [{ name: 'eth0', addresses: [`${CLIENT}/24`], segment: 'lan' }],
          listeners: [{ process: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22 }],
        },
        ...[...net.hosts.values()].filter((h) => h.spec.name === 'node').map((h) => h.spec),
      ],
    }).network;
    const sim = connect(withSsh as NonNullable<typeof withSsh>, '10.96.0.1', 443, { from: 'node' });
    expect(sim.outcome).toMatchObject({
      kind: 'answered',
      host: 'client',
      dstSeen: CLIENT,
      dstPortSeen: 22,
    });
    expect(sim.events.some((e) => e.type === 'route' && e.decision === 'reroute')).toBe(true);
  });
});
