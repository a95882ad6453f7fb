/**
 * Routing as a client sees it: route types on the client and on a router, no route, ARP that
 * nobody answers, reverse-path filtering, sockets bound to one address, 127.0.0.0/8.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkSpec } from '../engine/index.ts';
import { crossCheck } from './compare.ts';
import { verdictText } from './verdict.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

const GW_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
`;

const spec: NetworkSpec = {
  hosts: [
    {
      name: 'client',
      interfaces: [
        { name: 'eth0', addresses: ['10.0.1.10/24', '10.0.3.10/32'], segment: 'inside' },
      ],
      routes: [
        { to: '10.9.1.0/24', type: 'unreachable' },
        { to: '10.9.2.0/24', type: 'prohibit' },
        { to: '10.9.3.0/24', type: 'blackhole' },
        { to: '10.0.0.0/8', via: '10.0.1.1' },
      ],
    },
    {
      name: 'gw',
      interfaces: [
        { name: 'eth0', addresses: ['10.0.1.1/24'], segment: 'inside' },
        { name: 'eth1', addresses: ['10.0.2.1/24'], segment: 'outside' },
        // Nobody else on this one: 10.0.3.0/24 is routed here, so it is the reverse path of 10.0.3.10.
        { name: 'eth2', addresses: ['10.0.4.1/24'], segment: 'side' },
      ],
      routes: [
        { to: '10.8.1.0/24', type: 'unreachable' },
        { to: '10.8.2.0/24', type: 'prohibit' },
        { to: '10.8.3.0/24', type: 'blackhole' },
        { to: '10.0.3.0/24', dev: 'eth2' },
      ],
      sysctls: { ipForward: true, rpFilter: 1 },
      rules: GW_RULES,
    },
    {
      name: 'server',
      interfaces: [
        { name: 'eth0', addresses: ['10.0.2.20/24', '10.0.2.21/24'], segment: 'outside' },
      ],
      routes: [{ to: '10.0.0.0/8', via: '10.0.2.1' }],
      listeners: [
        { process: 'bound', proto: 'tcp', address: '10.0.2.20', port: 80 },
        { process: 'any', proto: 'tcp', address: '0.0.0.0', port: 81 },
        { process: 'lo2', proto: 'tcp', address: '127.0.0.2', port: 82 },
      ],
    },
  ],
};

describeKernel('routing, as a connecting client sees it', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(spec, { timeoutMs: 1200 });
  });
  afterAll(() => lab?.close());
  const probe = (from: string, dst: string, dport = 80, src?: string) =>
    crossCheck(lab as KernelLab, {
      kind: 'connect',
      from,
      proto: 'tcp',
      dst,
      dport,
      ...(src ? { src } : {}),
    });

  it.each([
    ['10.9.1.5', 'refused EHOSTUNREACH'],
    ['10.9.2.5', 'refused EACCES'],
    ['10.9.3.5', 'refused EINVAL'],
  ])('a local route of another type to %s: connect() fails at once (%s)', async (dst, expected) => {
    expectAgreement(await probe('client', dst), expected);
  });

  it.each([
    ['10.8.1.5', 'refused EHOSTUNREACH'],
    ['10.8.2.5', 'refused EHOSTUNREACH'],
    ['10.8.3.5', 'timeout'],
    ['10.7.0.5', 'refused ENETUNREACH'],
  ])('the router has no usable route to %s: %s', async (dst, expected) => {
    expectAgreement(await probe('client', dst), expected);
  });

  it('nobody answers ARP: EHOSTUNREACH once the neighbour entry fails', async () => {
    expectAgreement(await probe('client', '10.0.1.99'), 'refused EHOSTUNREACH');
  });

  it('a socket bound to one address answers that address only', async () => {
    expectAgreement(await probe('client', '10.0.2.20'), 'answered "bound@server" src=10.0.1.10');
    expectAgreement(await probe('client', '10.0.2.21'), 'refused ECONNREFUSED');
    expectAgreement(await probe('client', '10.0.2.21', 81), 'answered "any@server" src=10.0.1.10');
  });

  it('all of 127.0.0.0/8 is local', async () => {
    expectAgreement(await probe('server', '127.0.0.2', 82), 'answered "lo2@server" src=127.0.0.1');
    expectAgreement(await probe('server', '127.0.0.3', 82), 'refused ECONNREFUSED');
    expectAgreement(await probe('server', '127.0.0.5', 81), 'answered "any@server" src=127.0.0.1');
  });

  it('rp_filter=1 checks the ARP request too: a sender routed back elsewhere gets no answer', async () => {
    // The engine has no neighbour cache: it models a first contact, so the kernel's must be cold.
    (lab as KernelLab).flushNeighbours('client');
    const strict = await probe('client', '10.0.2.20', 80, '10.0.3.10');
    expectAgreement(strict, 'refused EHOSTUNREACH');
    expect(traceOf(strict, 'gw')).toEqual([]);
  });

  it('rp_filter=2 (loose): any route back will do, the SYN is forwarded', async () => {
    (lab as KernelLab).setSysctls('gw', { ipForward: true, rpFilter: 2 });
    const loose = await probe('client', '10.0.2.20', 80, '10.0.3.10');
    // The server's answer goes to 10.0.3.10 through gw's eth2, where nobody is.
    expectAgreement(loose, 'timeout');
    expect(traceOf(loose, 'gw')).toEqual(['filter:FORWARD:policy:ACCEPT']);
  });
});

/** Two routers behind an ECMP route; both hold 10.5.0.1 and answer on port 80. */
const ecmp: NetworkSpec = {
  hosts: [
    {
      name: 'client',
      interfaces: [{ name: 'eth0', addresses: ['10.0.1.10/24'], segment: 'lan' }],
      routes: [{ to: '10.5.0.0/24', nexthops: [{ via: '10.0.1.1' }, { via: '10.0.1.2' }] }],
    },
    ...[1, 2].map((k) => ({
      name: `r${k}`,
      interfaces: [{ name: 'eth0', addresses: [`10.0.1.${k}/24`, '10.5.0.1/32'], segment: 'lan' }],
      listeners: [{ process: `r${k}`, proto: 'tcp' as const, address: '0.0.0.0', port: 80 }],
    })),
  ],
};

describeKernel('ECMP next hops', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(ecmp);
  });
  afterAll(() => lab?.close());

  it('the kernel takes one of the paths the engine enumerates (L3 hash: always the same one)', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const c = await crossCheck(lab as KernelLab, {
        kind: 'connect',
        from: 'client',
        proto: 'tcp',
        dst: '10.5.0.1',
        dport: 80,
      });
      expect(c.possible.map((p) => p.verdict)).toEqual([
        'answered "r1@r1" src=10.0.1.10',
        'answered "r2@r2" src=10.0.1.10',
      ]);
      expectAgreement(c);
      seen.add(verdictText(c.kernel));
    }
    // fib_multipath_hash_policy=0 hashes addresses only: one client, one destination, one path.
    expect(seen.size).toBe(1);
  });
});
