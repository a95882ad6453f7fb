/**
 * IPVS in the engine's stack: where its hooks sit, NAT forwarding through OUTPUT and
 * POSTROUTING, the reply translated back, ip_vs_leave, net.ipv4.vs.conntrack. Modelled from the
 * kernel sources (net/netfilter/ipvs/ip_vs_core.c, ip_vs_xmit.c, ip_vs_nfct.c): this machine's
 * kernel has no IPVS module, so none of these is checked on a kernel.
 */
import { describe, expect, it } from 'vitest';
import {
  buildNetwork,
  enumerateOutcomes,
  ipvsadmList,
  newNetworkState,
  ipvsadmSave,
  simulate,
  type HostSpec,
  type IpvsSpec,
  type NetworkSpec,
  type ProbeSpec,
  type TraceEvent,
} from '../index.ts';

const VIP = '10.96.0.10';

/** KUBE-POSTROUTING's masquerade, driven by the 0x4000 mark like kube-proxy's; every table. */
const MASQ_RULES = `*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -s 192.168.50.0/24 -j MARK --set-xmark 0x4000/0x4000
-A OUTPUT -j MARK --set-xmark 0x4000/0x4000
-A POSTROUTING -m mark --mark 0x4000/0x4000 -j MASQUERADE
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
`;

function cluster(
  ipvs: IpvsSpec,
  rules = MASQ_RULES,
  nodeExtra: Partial<HostSpec> = {},
): NetworkSpec {
  const pod = (name: string, ip: string, seg: string): HostSpec => ({
    name,
    interfaces: [{ name: 'eth0', addresses: [`${ip}/32`], kind: 'veth', segment: seg }],
    routes: [
      { to: '169.254.1.1/32', dev: 'eth0' },
      { to: 'default', via: '169.254.1.1', dev: 'eth0' },
    ],
    listeners: [{ process: name, proto: 'tcp', address: '0.0.0.0', port: 8080, reply: name }],
  });
  return {
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: ['192.168.50.10/24'], segment: 'lan' }],
        routes: [{ to: '10.96.0.0/12', via: '192.168.50.2' }],
      },
      {
        name: 'node-a',
        interfaces: [
          { name: 'eth0', addresses: ['192.168.50.2/24'], segment: 'lan' },
          { name: 'kube-ipvs0', addresses: [`${VIP}/32`], kind: 'dummy' },
        ],
        routes: [{ to: '10.244.1.0/24', via: '192.168.50.3' }],
        sysctls: { ipForward: true },
        rules,
        ipvs,
        ...nodeExtra,
      },
      {
        name: 'node-b',
        interfaces: [
          { name: 'eth0', addresses: ['192.168.50.3/24'], segment: 'lan' },
          { name: 'cali1', addresses: [], kind: 'veth', segment: 'p1', proxyArp: true },
        ],
        routes: [
          { to: '10.244.1.5/32', dev: 'cali1' },
          { to: 'default', via: '192.168.50.1' },
        ],
        sysctls: { ipForward: true },
      },
      pod('web', '10.244.1.5', 'p1'),
    ],
  };
}

const ONE_SERVER: IpvsSpec = {
  services: [
    {
      proto: 'tcp',
      address: VIP,
      port: 80,
      realServers: [{ address: '10.244.1.5', port: 8080 }],
    },
  ],
};

function probeOn(spec: NetworkSpec, probe: ProbeSpec) {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(JSON.stringify(problems));
  return simulate(network, probe);
}

const fromClient: ProbeSpec = {
  kind: 'connect',
  from: 'client',
  proto: 'tcp',
  dst: VIP,
  dport: 80,
};

/** `host:type` of hook and ipvs events, to read the order the packet met them. */
function steps(events: readonly TraceEvent[], host: string, packetId: number): string[] {
  return events
    .filter((e) => e.host === host && e.packetId === packetId)
    .flatMap((e) =>
      e.type === 'hook'
        ? [`${e.table} ${e.hook}`]
        : e.type === 'ipvs'
          ? [`ipvs ${e.hook} ${e.action}`]
          : [],
    );
}

describe('IPVS virtual service on a node (VS/NAT)', () => {
  it('schedules a client SYN after filter INPUT, sends it through OUTPUT and POSTROUTING, and masquerades it', () => {
    const sim = probeOn(cluster(ONE_SERVER), fromClient);
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '192.168.50.2' });
    expect(steps(sim.events, 'node-a', 1)).toEqual([
      'raw PREROUTING',
      'mangle PREROUTING',
      'nat PREROUTING',
      'mangle INPUT',
      'filter INPUT',
      'ipvs INPUT schedule',
      // NF_HOOK(LOCAL_OUT) of ip_vs_nat_send_or_cont: nat OUTPUT skips (the connection's DNAT
      // slot was taken as a null binding in PREROUTING), POSTROUTING masquerades.
      'raw OUTPUT',
      'mangle OUTPUT',
      'filter OUTPUT',
      'mangle POSTROUTING',
      'nat POSTROUTING',
    ]);
    const sched = sim.events.find((e) => e.type === 'ipvs' && e.action === 'schedule');
    expect(sched).toMatchObject({ service: 'TCP 10.96.0.10:80 rr', realServer: '10.244.1.5:8080' });
  });

  it('translates the reply back to the virtual service in FORWARD (priority 100), so the client sees VIP:80', () => {
    const sim = probeOn(cluster(ONE_SERVER), fromClient);
    const replyId = Math.max(
      ...sim.events.filter((e) => e.host === 'node-a').map((e) => e.packetId),
    );
    expect(steps(sim.events, 'node-a', replyId)).toEqual([
      'raw PREROUTING',
      'mangle PREROUTING',
      'mangle FORWARD',
      'filter FORWARD',
      'ipvs FORWARD reply',
      'mangle POSTROUTING',
    ]);
    const delivered = sim.events.find((e) => e.type === 'socket' && e.host === 'client');
    expect(delivered?.packet).toMatchObject({ src: VIP, sport: 80 });
  });

  it('with net.ipv4.vs.conntrack=0 the packet leaves conntrack: no MASQUERADE, the pod answers the client directly and the client drops it', () => {
    const sim = probeOn(cluster({ ...ONE_SERVER, conntrack: false }), fromClient);
    const atPod = sim.events.find((e) => e.type === 'socket' && e.host === 'web');
    expect(atPod?.packet.src).toBe('192.168.50.10');
    expect(
      sim.events.some((e) => e.type === 'rule' && e.host === 'node-a' && e.target === 'MASQUERADE'),
    ).toBe(false);
    // The reply goes from node-b to the client through its default gateway, not back through node-a.
    expect(sim.outcome.kind).toBe('timeout');
  });

  it('answers ICMP port unreachable for a virtual service without real servers (ip_vs_leave)', () => {
    const empty: IpvsSpec = {
      services: [{ proto: 'tcp', address: VIP, port: 80, realServers: [] }],
    };
    const sim = probeOn(cluster(empty), fromClient);
    expect(sim.outcome).toMatchObject({ kind: 'refused', via: 'icmp-port-unreachable', from: VIP });
  });

  it('leaves a port that is no virtual service to the local stack (here: a reset)', () => {
    const sim = probeOn(cluster(ONE_SERVER), { ...fromClient, dport: 22 });
    expect(sim.outcome).toMatchObject({ kind: 'refused', via: 'tcp-reset' });
    expect(sim.events.some((e) => e.type === 'ipvs')).toBe(false);
  });

  it('serves a process on the node through LOCAL_OUT (after nat OUTPUT, before filter OUTPUT)', () => {
    const sim = probeOn(cluster(ONE_SERVER), {
      kind: 'connect',
      from: 'node-a',
      proto: 'tcp',
      dst: VIP,
      dport: 80,
    });
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'web', srcSeen: '192.168.50.2' });
    expect(steps(sim.events, 'node-a', 1).slice(0, 4)).toEqual([
      'raw OUTPUT',
      'mangle OUTPUT',
      'nat OUTPUT',
      'ipvs OUTPUT schedule',
    ]);
    // The reply comes back to the node: un-masqueraded in PREROUTING, translated in LOCAL_IN.
    const last = sim.events.filter((e) => e.type === 'ipvs').at(-1);
    expect(last).toMatchObject({ hook: 'INPUT', action: 'reply' });
  });

  it('splits new connections over the real servers by weight (rr: equal shares, wrr: weights)', () => {
    const two = (scheduler: string, w: number): IpvsSpec => ({
      services: [
        {
          proto: 'tcp',
          address: VIP,
          port: 80,
          scheduler,
          realServers: [
            { address: '10.244.1.5', port: 8080, weight: w },
            { address: '10.244.1.6', port: 8080, weight: 1 },
          ],
        },
      ],
    });
    const shares = (spec: IpvsSpec) => {
      const { network } = buildNetwork(cluster(spec));
      if (!network) throw new Error('no network');
      return enumerateOutcomes(network, fromClient).runs.map((r) => r.probability);
    };
    expect(shares(two('rr', 3))).toEqual([0.5, 0.5]);
    expect(shares(two('wrr', 3))).toEqual([0.75, 0.25]);
  });

  it('rejects a scheduler it does not model, with the field', () => {
    const { problems } = buildNetwork(
      cluster({ services: [{ ...ONE_SERVER.services[0]!, scheduler: 'lc' }] }),
    );
    expect(problems[0]).toMatchObject({ source: 'node-a', field: 'ipvs.services[0].scheduler' });
  });
});

describe('IPVS persistence and local real servers', () => {
  const persistent = (timeout: number): IpvsSpec => ({
    services: [
      {
        proto: 'tcp',
        address: VIP,
        port: 80,
        persistent: timeout,
        realServers: [
          { address: '10.244.1.5', port: 8080 },
          { address: '10.244.1.6', port: 8080 },
        ],
      },
    ],
  });

  it('a persistence template sends the same client to the same real server (ip_vs_sched_persist)', () => {
    const { network } = buildNetwork(cluster(persistent(10800)));
    if (!network) throw new Error('no network');
    const state = newNetworkState();
    const first = simulate(network, fromClient, { state, seed: 7 });
    const servers = new Set<string>();
    for (let seed = 1; seed <= 6; seed++) {
      const again = simulate(network, { ...fromClient, sport: 50000 + seed }, { state, seed });
      const ev = again.events.find((e) => e.type === 'ipvs' && e.host === 'node-a');
      expect(ev).toMatchObject({ action: 'persist' });
      servers.add(ev?.type === 'ipvs' ? (ev.realServer ?? '') : '');
    }
    const chosen = first.events.find((e) => e.type === 'ipvs' && e.action === 'schedule');
    expect([...servers]).toEqual([chosen?.type === 'ipvs' ? chosen.realServer : '']);
  });

  it('an expired template schedules again', () => {
    const { network } = buildNetwork(cluster(persistent(1)));
    if (!network) throw new Error('no network');
    const state = newNetworkState();
    simulate(network, fromClient, { state });
    state.now += 5;
    const later = simulate(network, { ...fromClient, sport: 50001 }, { state });
    expect(later.events.find((e) => e.type === 'ipvs')).toMatchObject({ action: 'schedule' });
  });

  it('a real server on the node itself gets the packet locally (NF_ACCEPT with the new destination)', () => {
    const spec: IpvsSpec = {
      services: [
        {
          proto: 'tcp',
          address: VIP,
          port: 443,
          realServers: [{ address: '192.168.50.2', port: 6443 }],
        },
      ],
    };
    const sim = probeOn(
      cluster(spec, MASQ_RULES, {
        listeners: [{ process: 'kube-apiserver', proto: 'tcp', address: '0.0.0.0', port: 6443 }],
      }),
      { ...fromClient, dport: 443 },
    );
    expect(sim.outcome).toMatchObject({
      kind: 'answered',
      host: 'node-a',
      process: 'kube-apiserver',
      srcSeen: '192.168.50.10',
    });
    const ipvs = sim.events.filter((e) => e.type === 'ipvs' && e.host === 'node-a');
    expect(ipvs.map((e) => (e.type === 'ipvs' ? `${e.hook} ${e.action}` : ''))).toEqual([
      'INPUT schedule',
      'INPUT local',
      // The server's answer leaves through LOCAL_OUT, where ip_vs_local_reply4 (-99) restores VIP:443.
      'OUTPUT reply',
    ]);
  });
});

describe('bitmap:port ipsets (kube-proxy KUBE-NODE-PORT-UDP)', () => {
  it('match a UDP port, not a TCP packet that a -p udp rule leaves out, nor ICMP', () => {
    const rules = `*filter
:INPUT ACCEPT [0:0]
-A INPUT -p udp -m set --match-set NP dst -j DROP
-A INPUT -m set --match-set NP dst -j REJECT
COMMIT
`;
    const spec: NetworkSpec = {
      hosts: [
        {
          name: 'a',
          interfaces: [{ name: 'eth0', addresses: ['10.0.0.1/24'], segment: 's' }],
          listeners: [{ process: 'x', proto: 'tcp', address: '0.0.0.0', port: 30080 }],
        },
        {
          name: 'b',
          interfaces: [{ name: 'eth0', addresses: ['10.0.0.2/24'], segment: 's' }],
          rules,
          ipsets: [{ name: 'NP', type: 'bitmap:port', entries: ['30080'] }],
        },
      ],
    };
    const go = (proto: 'udp' | 'tcp' | 'icmp') =>
      probeOn(spec, { kind: 'connect', from: 'a', proto, dst: '10.0.0.2', dport: 30080 }).outcome
        .kind;
    expect(go('udp')).toBe('timeout'); // dropped by the -p udp rule
    expect(go('tcp')).toBe('refused'); // the bare set rule: any port protocol
    expect(go('icmp')).toBe('answered'); // no port: no match, the echo is answered
  });
});

describe('-m ipvs (xt_ipvs.c)', () => {
  const rules = MASQ_RULES.replace(
    ':POSTROUTING ACCEPT [0:0]\nCOMMIT\n*nat',
    [
      ':POSTROUTING ACCEPT [0:0]',
      '-A POSTROUTING -m ipvs --vaddr 10.96.0.10/32 --vport 80 --vproto tcp --vmethod MASQ --vdir ORIGINAL -j LOG --log-prefix "request "',
      '-A POSTROUTING -m ipvs --ipvs -j LOG --log-prefix "ipvs "',
      '-A POSTROUTING -m ipvs ! --ipvs -j LOG --log-prefix "plain "',
      '-A POSTROUTING -m ipvs --vport 81 -j LOG --log-prefix "port-81 "',
      'COMMIT',
      '*nat',
    ].join('\n'),
  );

  it('matches the request IPVS re-sent by its connection, the translated reply by ipvs_property only', () => {
    const sim = probeOn(cluster(ONE_SERVER, rules), fromClient);
    expect(sim.outcome.kind).toBe('answered');
    const logs = sim.events
      .filter((e) => e.type === 'log' && e.host === 'node-a')
      .map((e) => (e.type === 'log' ? `${e.packetId} ${e.prefix.trim()}` : ''));
    const reply = Math.max(...sim.events.filter((e) => e.host === 'node-a').map((e) => e.packetId));
    // The request: its connection is found (client = source, real server = destination).
    // The reply after handle_response: ipvs_property, but no connection on the inverted header.
    expect(logs).toEqual(['1 request', '1 ipvs', `${reply} ipvs`]);
  });

  it('sees no ipvs_property on a packet IPVS never touched', () => {
    const sim = probeOn(cluster(ONE_SERVER, rules), { ...fromClient, dport: 22 });
    const logs = sim.events.filter((e) => e.type === 'log' && e.host === 'node-a');
    expect(logs.map((e) => (e.type === 'log' ? e.prefix.trim() : ''))).toEqual(['plain']);
  });
});

describe('ipvsadm views', () => {
  const spec: IpvsSpec = {
    services: [
      { proto: 'udp', address: VIP, port: 53, realServers: [{ address: '10.244.0.2', port: 53 }] },
      {
        proto: 'tcp',
        address: VIP,
        port: 53,
        persistent: 10800,
        realServers: [
          { address: '10.244.1.3', port: 53 },
          { address: '10.244.0.2', port: 53 },
        ],
      },
    ],
  };
  it('ipvsadm -Ln sorts by protocol, address and port, real servers by address', () => {
    expect(ipvsadmList(spec)).toBe(
      [
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port Scheduler Flags',
        '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
        'TCP  10.96.0.10:53 rr persistent 10800',
        '  -> 10.244.0.2:53                Masq    1      0          0',
        '  -> 10.244.1.3:53                Masq    1      0          0',
        'UDP  10.96.0.10:53 rr',
        '  -> 10.244.0.2:53                Masq    1      0          0',
        '',
      ].join('\n'),
    );
  });
  it('ipvsadm -S -n writes the commands that rebuild the table', () => {
    expect(ipvsadmSave(spec).split('\n').slice(0, 3)).toEqual([
      '-A -t 10.96.0.10:53 -s rr -p 10800',
      '-a -t 10.96.0.10:53 -r 10.244.0.2:53 -m -w 1',
      '-a -t 10.96.0.10:53 -r 10.244.1.3:53 -m -w 1',
    ]);
  });
});

describe('forwarding methods other than Masq', () => {
  const routed: IpvsSpec = {
    services: [
      {
        proto: 'tcp',
        address: VIP,
        port: 80,
        realServers: [{ address: '10.244.1.5', port: 8080, forward: 'route' }],
      },
    ],
  };
  it('are printed as ipvsadm prints them (fwd_name, fwd_switch)', () => {
    expect(ipvsadmList(routed)).toContain(
      '  -> 10.244.1.5:8080              Route   1      0          0',
    );
    expect(ipvsadmSave(routed)).toContain('-r 10.244.1.5:8080 -g -w 1');
  });
  it('stop a connection scheduled to the server as not modelled, after the IPVS step', () => {
    const r = probeOn(cluster(routed), fromClient);
    expect(r.outcome).toMatchObject({ kind: 'unsupported', host: 'node-a' });
    expect(r.outcome.kind === 'unsupported' && r.outcome.what).toContain('Route forwarding');
    expect(r.events.some((e) => e.type === 'ipvs' && e.action === 'schedule')).toBe(true);
  });
});
