/** MASQUERADE on a router, and what a client sees for REJECT, DROP and closed ports. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkSpec } from '../engine/index.ts';
import { GW_OUT, routedNetwork } from '../engine/testing/routed.ts';
import { LB_RULES, VIP, vip22Network } from '../engine/testing/vip22.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

/**
 * client (10.0.1.10) -> gw -> server (10.0.2.20). The server has no route back to 10.0.1.0/24,
 * so only MASQUERADE on gw makes an answer possible. gw's nat table declares POSTROUTING only:
 * iptables-nft then creates no other nat base chain (the engine's chains are implicit).
 */
function routed(masquerade: boolean): NetworkSpec {
  const nat = masquerade ? '-A POSTROUTING -o eth1 -j MASQUERADE\n' : '';
  return routedNetwork(
    `*nat
:POSTROUTING ACCEPT [0:0]
${nat}COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -i eth0 -o eth1 -p tcp -m tcp --dport 80 -j ACCEPT
-A FORWARD -i eth0 -o eth1 -p udp -m udp --dport 53 -j ACCEPT
-A FORWARD -i eth0 -o eth1 -p tcp -m tcp --dport 81 -j REJECT --reject-with icmp-host-prohibited
COMMIT
`,
    [
      { process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80, reply: 'web' },
      { process: 'dns', proto: 'udp', address: '0.0.0.0', port: 53, reply: 'dns' },
    ],
  );
}

const toServer = {
  kind: 'connect',
  from: 'client',
  proto: 'tcp',
  dst: '10.0.2.20',
  dport: 80,
} as const;

describeKernel('MASQUERADE on a router (iptables-nft, undeclared nat chains)', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(routed(true));
  });
  afterAll(() => lab?.close());
  const l = () => lab as KernelLab;

  it('TCP: the server sees the router address; conntrack passes the reply', async () => {
    const c = await crossCheck(l(), toServer);
    expectAgreement(c, `answered "web" src=${GW_OUT}`);
    expect(traceOf(c, 'gw')).toContain('nat:POSTROUTING:rule:1:ACCEPT');
    expect(traceOf(c, 'gw', 'reply')).toEqual(['filter:FORWARD:rule:1:ACCEPT']);
    // Engine-only: policy events of nat PREROUTING, which iptables-nft never created.
    const skipped = c.traces.find((t) => t.host === 'gw' && t.packet === 'first')?.skipped ?? [];
    expect(skipped).toContain(
      'nat:PREROUTING:policy:ACCEPT (chain not declared, absent in iptables-nft)',
    );
  });

  it('UDP: same translation for a datagram and its answer', async () => {
    const c = await crossCheck(l(), { ...toServer, proto: 'udp', dport: 53 });
    expectAgreement(c, `answered "dns" src=${GW_OUT}`);
  });

  it('forward policy DROP: timeout', async () => {
    const c = await crossCheck(l(), { ...toServer, dport: 82 });
    expectAgreement(c, 'timeout');
    expect(traceOf(c, 'gw')).toContain('filter:FORWARD:policy:DROP');
  });

  it('REJECT in FORWARD with icmp-host-prohibited: EHOSTUNREACH at the client', async () => {
    expectAgreement(await crossCheck(l(), { ...toServer, dport: 81 }), 'refused EHOSTUNREACH');
  });

  it('without MASQUERADE the server has no route back to the client: timeout', async () => {
    const gw = routed(false).hosts.find((h) => h.name === 'gw');
    l().setRules('gw', gw?.rules ?? '');
    expectAgreement(await crossCheck(l(), toServer), 'timeout');
  });
});

/**
 * One node with sshd on 22 and a filter INPUT that rejects, resets or drops other ports, and
 * the common hardening rule that drops INVALID packets in OUTPUT.
 */
const guarded: NetworkSpec = {
  hosts: [
    {
      name: 'client',
      interfaces: [{ name: 'eth0', addresses: ['192.168.50.10/24'], segment: 'lan' }],
    },
    {
      name: 'node-1',
      interfaces: [{ name: 'eth0', addresses: ['192.168.50.38/24'], segment: 'lan' }],
      listeners: [22, 23, 24, 25].map((port) => ({
        process: `d${port}`,
        proto: 'tcp' as const,
        address: '0.0.0.0',
        port,
      })),
      rules: `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 23 -j REJECT
-A INPUT -p tcp -m tcp --dport 24 -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --dport 25 -j DROP
-A INPUT -p udp -m udp --dport 53 -j REJECT --reject-with icmp-admin-prohibited
-A OUTPUT -m conntrack --ctstate INVALID -j DROP
COMMIT
`,
    },
  ],
};

describeKernel('filter INPUT verdicts as a client sees them', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(guarded);
  });
  afterAll(() => lab?.close());
  const probe = (dport: number, proto: 'tcp' | 'udp' = 'tcp') =>
    crossCheck(lab as KernelLab, {
      kind: 'connect',
      from: 'client',
      proto,
      dst: '192.168.50.38',
      dport,
    });

  it('no rule: the listener answers', async () => {
    expectAgreement(await probe(22), 'answered "d22@node-1" src=192.168.50.10');
  });
  it('REJECT (icmp-port-unreachable): refused', async () => {
    const c = await probe(23);
    expectAgreement(c, 'refused ECONNREFUSED');
    expect(traceOf(c, 'node-1')).toEqual(['filter:INPUT:rule:1:DROP']);
    // The ICMP error carries the rejected connection (RELATED): the INVALID rule lets it pass.
    expect(traceOf(c, 'node-1', 'reply')).toEqual(['filter:OUTPUT:policy:ACCEPT']);
  });
  it('REJECT --reject-with tcp-reset: refused', async () => {
    expectAgreement(await probe(24), 'refused ECONNREFUSED');
  });
  it('DROP: timeout', async () => {
    expectAgreement(await probe(25), 'timeout');
  });
  it('no listener: the kernel resets, refused', async () => {
    expectAgreement(await probe(26), 'refused ECONNREFUSED');
  });
  it('UDP REJECT with icmp-admin-prohibited: EHOSTUNREACH', async () => {
    expectAgreement(await probe(53, 'udp'), 'refused EHOSTUNREACH');
  });
  it('UDP without a listener: port unreachable, refused', async () => {
    expectAgreement(await probe(54, 'udp'), 'refused ECONNREFUSED');
  });
});

/** REJECT after DNAT: the RST is translated back through the connection it inherited. */
describeKernel('REJECT --reject-with tcp-reset in FORWARD, after the LB Service DNAT', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    const rules = LB_RULES.replace(
      /^-A FORWARD /m,
      '-A FORWARD -p tcp -m tcp --dport 80 -j REJECT --reject-with tcp-reset\n-A FORWARD ',
    );
    lab = await KernelLab.start(vip22Network(rules));
  });
  afterAll(() => lab?.close());

  it('the client is refused; the RST runs nat POSTROUTING, which the SYN never reached', async () => {
    const c = await crossCheck(lab as KernelLab, {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: VIP,
      dport: 22,
    });
    expectAgreement(c, 'refused ECONNREFUSED');
    expect(traceOf(c, 'cp-1')).toContain('filter:FORWARD:rule:1:DROP');
    expect(traceOf(c, 'cp-1', 'reply')).toContain('nat:KUBE-POSTROUTING:rule:1:RETURN');
  });
});

/**
 * A user chain entered twice by the same packet in one hook: the kernel traces both walks,
 * rule by rule (nft_trace_packet for each rule of each entry), and so must the lab.
 */
describeKernel('a chain entered twice in one hook', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(
      routedNetwork(
        `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:COUNT - [0:0]
:CHECK - [0:0]
-A FORWARD -i eth0 -p tcp -j COUNT
-A FORWARD -i eth0 -p tcp -j CHECK
-A FORWARD -i eth0 -p tcp -j COUNT
-A FORWARD -i eth0 -p tcp -j CHECK
-A COUNT -p udp -j DROP
-A CHECK -p tcp -m tcp --dport 80 -j RETURN
-A CHECK -j REJECT
COMMIT
`,
        [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 80, reply: 'web' }],
      ),
    );
  });
  afterAll(() => lab?.close());

  it('both walks of each chain traced, the same on Linux', async () => {
    const c = await crossCheck(lab as KernelLab, { ...toServer, dport: 80 });
    expectAgreement(c);
    // (xtables-monitor prints no event where a user chain just ends: COUNT's ends are not seen.)
    expect(traceOf(c, 'gw').slice(0, 7)).toEqual([
      'filter:FORWARD:rule:1:JUMP:COUNT',
      'filter:FORWARD:rule:2:JUMP:CHECK',
      'filter:CHECK:rule:1:RETURN',
      'filter:FORWARD:rule:3:JUMP:COUNT',
      'filter:FORWARD:rule:4:JUMP:CHECK',
      'filter:CHECK:rule:1:RETURN',
      'filter:FORWARD:policy:ACCEPT',
    ]);
  });
});
