/**
 * ICMP echo probes (ping) on the kernel against the engine, on a router with a stateful filter
 * and a MASQUERADE: the echo reply's way back through conntrack, the answering kernel, and a
 * REJECT's port unreachable. The scenario suite sends ping the same way (lab.ts, ping.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkSpec } from '../engine/index.ts';
import { routedNetwork } from '../engine/testing/routed.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

/** client (10.0.1.10) -> gw -> server (10.0.2.20); gw forwards echo requests only. */
const NET: NetworkSpec = routedNetwork(`*nat
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -o eth1 -j MASQUERADE
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -d 10.0.2.1/32 -p icmp -j REJECT
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -i eth0 -o eth1 -p icmp -m icmp --icmp-type 8 -j ACCEPT
COMMIT
`);

const ping = (dst: string) =>
  ({ kind: 'connect', from: 'client', proto: 'icmp', dst, dport: 0 }) as const;

describeKernel('ping (ICMP echo) through a stateful router', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(NET);
  });
  afterAll(() => lab?.close());
  const l = () => lab as KernelLab;

  it('the server kernel answers; the reply passes gw as ESTABLISHED', async () => {
    const c = await crossCheck(l(), ping('10.0.2.20'));
    expectAgreement(c, 'answered "echo-reply from server" src=(not seen by ping)');
    expect(traceOf(c, 'gw')).toContain('filter:FORWARD:rule:2:ACCEPT');
    expect(traceOf(c, 'gw', 'reply')).toEqual(['filter:FORWARD:rule:1:ACCEPT']);
  });

  it('a REJECT on gw: port unreachable, refused ECONNREFUSED', async () => {
    const c = await crossCheck(l(), ping('10.0.2.1'));
    expectAgreement(c, 'refused ECONNREFUSED');
    expect(traceOf(c, 'gw')).toContain('filter:INPUT:rule:1:DROP');
  });
});
