/** ipvsadm -Ln and ipvsadm -S -n into the engine's IPVS spec (fixtures/README.md: where from). */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileIpvs, ipvsadmList, ipvsadmSave, type IpvsSpec } from '../../engine/index.ts';
import { detectDump } from './detect.ts';
import { importIpvsadm } from './ipvsadm.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** The IPVS table of xs4773 (ipvs-local-lb-from-inside) as the engine holds it. */
const XS4773 = [
  { proto: 'tcp', address: '10.34.251.73', port: 30080 },
  { proto: 'tcp', address: '10.34.251.210', port: 80 },
  { proto: 'tcp', address: '10.96.0.80', port: 80 },
].map((s) => ({
  ...s,
  scheduler: 'rr',
  realServers: [{ address: '10.244.1.10', port: 80, weight: 1, forward: 'masq' }],
}));

describe('importIpvsadm on the fixtures', () => {
  it.each(['ipvsadm-Ln-ipvs.txt', 'ipvsadm-S-ipvs.txt'])('%s is the node’s table', (file) => {
    const r = importIpvsadm(fixture(file));
    expect(r.diagnostics).toEqual([]);
    expect(r.spec.services).toEqual(XS4773);
    expect(r.counts).toEqual({ services: 3, realServers: 3 });
    expect(detectDump(fixture(file))).toBe('ipvsadm');
  });

  it("reads kube-proxy's README listing: persistence, UDP, the service lines", () => {
    const text = fixture('ipvsadm-Ln-kube-proxy-readme.txt');
    const r = importIpvsadm(text);
    expect(r.diagnostics).toEqual([]);
    expect(r.spec.services.map((s) => [s.proto, s.address, s.port, s.persistent])).toEqual([
      ['tcp', '10.0.0.1', 443, 10800],
      ['tcp', '10.0.0.10', 53, undefined],
      ['udp', '10.0.0.10', 53, undefined],
    ]);
    expect(r.spec.services[0]?.realServers).toEqual([
      { address: '192.168.0.1', port: 6443, weight: 1, forward: 'masq' },
    ]);
    expect(r.lines.map((l) => text.split('\n')[l.line - 1]?.slice(0, 4))).toEqual([
      'TCP ',
      'TCP ',
      'UDP ',
    ]);
  });
});

describe('importIpvsadm, what ipvsadm prints', () => {
  it('IPv6 and SCTP services, weights, quiesced servers, wrr', () => {
    const r = importIpvsadm(
      [
        '-A -t [fd00::10]:443 -s wrr -p 600',
        '-a -t [fd00::10]:443 -r [fd00::1:5]:8443 -m -w 3',
        '-a -t [fd00::10]:443 -r [fd00::1:6]:8443 -m -w 0',
        '-A --sctp-service 10.96.0.7:3868 -s rr',
        '-a --sctp-service 10.96.0.7:3868 -r 10.244.1.7 -m',
      ].join('\n'),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.spec.services).toEqual([
      {
        proto: 'tcp',
        address: 'fd00::10',
        port: 443,
        scheduler: 'wrr',
        persistent: 600,
        realServers: [
          { address: 'fd00::1:5', port: 8443, weight: 3, forward: 'masq' },
          { address: 'fd00::1:6', port: 8443, weight: 0, forward: 'masq' },
        ],
      },
      {
        proto: 'sctp',
        address: '10.96.0.7',
        port: 3868,
        scheduler: 'rr',
        // -r without a port takes the virtual port; -w defaults to 1 (ipvsadm.c).
        realServers: [{ address: '10.244.1.7', port: 3868, weight: 1, forward: 'masq' }],
      },
    ]);
  });

  it('reads Route and Tunnel servers and says the lab does not model them', () => {
    const r = importIpvsadm(
      [
        'IP Virtual Server version 1.2.1 (size=4096)',
        'Prot LocalAddress:Port Scheduler Flags',
        '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
        'UDP  [fd00::53]:53 rr',
        '  -> [fd00::2]:53                 Route   1      0          0',
        '  -> [fd00::3]:53                 Tunnel  1      0          0',
        '  -> [fd00::4]:53                 Masq    1      0          0',
      ].join('\n'),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.spec.services[0]?.realServers.map((s) => s.forward)).toEqual([
      'route',
      'tunnel',
      'masq',
    ]);
    expect(r.unsupported.map((n) => [n.line, n.why.split(' is ')[0]])).toEqual([
      [5, 'direct routing (Route, -g)'],
      [6, 'IP-in-IP tunnelling (Tunnel, -i)'],
    ]);
  });

  it('ipvsadm -S defaults: -g (Route) without a method, wlc without -s (not modelled)', () => {
    const r = importIpvsadm('-A -t 10.96.0.1:443\n-a -t 10.96.0.1:443 -r 192.168.0.1:6443\n');
    expect(r.spec.services[0]?.realServers[0]?.forward).toBe('route');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 1,
        message: expect.stringContaining("'wlc'"),
      }),
    ]);
  });

  it('leaves firewall-mark services out, and says so', () => {
    const r = importIpvsadm(
      'FWM  100 rr\n  -> 10.0.0.2:0                   Masq    1      0          0\nTCP  10.0.0.1:80 rr\n',
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.spec.services.map((s) => s.address)).toEqual(['10.0.0.1']);
    expect(r.unsupported).toEqual([expect.objectContaining({ line: 1 })]);
    expect(importIpvsadm('-A -f 100 -s rr\n-a -f 100 -r 10.0.0.2 -m\n').unsupported).toHaveLength(
      2,
    );
  });

  it('warns of flags the lab does not model, at their column', () => {
    const r = importIpvsadm('TCP  10.0.0.1:80 rr persistent 300 mask 255.255.255.0 ops\n');
    expect(r.spec.services[0]?.persistent).toBe(300);
    expect(r.diagnostics.map((d) => [d.severity, d.column])).toEqual([
      ['warning', 36],
      ['warning', 55],
    ]);
  });
});

describe('importIpvsadm, bad input', () => {
  const first = (text: string) => importIpvsadm(text).diagnostics[0];

  it('names the line, the column and what to paste instead', () => {
    expect(first('TCP  kubernetes.default:https rr\n')).toMatchObject({
      severity: 'error',
      line: 1,
      column: 6,
      message: expect.stringContaining('paste the output of ipvsadm -Ln'),
    });
    expect(
      first('Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes\n'),
    ).toMatchObject({ line: 1, message: expect.stringContaining('--stats') });
    // ipvsadm -Ln --stats as print_title and print_service_entry write it: one error, not one a line.
    const stats = [
      'IP Virtual Server version 1.2.1 (size=4096)',
      'Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes',
      '  -> RemoteAddress:Port',
      'TCP  10.0.0.1:443                       1        6        5      400      300',
      '  -> 192.168.0.1:6443                   1        6        5      400      300',
    ].join('\n');
    expect(importIpvsadm(stats).diagnostics).toEqual([expect.objectContaining({ line: 2 })]);
    expect(first('  -> 10.0.0.2:80                  Masq    1      0          0\n')).toMatchObject({
      line: 1,
      message: expect.stringContaining('before any virtual service'),
    });
    expect(first('TCP  10.0.0.1:80 rr\n  -> 10.0.0.2:80 Bounce 1 0 0\n')).toMatchObject({
      line: 2,
      column: 18,
    });
    expect(first('-A -t 10.0.0.1:80 -s rr\n-a -t 10.0.0.9:80 -r 10.0.0.2:80 -m\n')).toMatchObject({
      line: 2,
      column: 7,
      message: expect.stringContaining('no -A line defines'),
    });
    expect(first('-A -t 10.0.0.1:80 -s rr --bogus\n')).toMatchObject({ line: 1, column: 25 });
    expect(first('-A -t 10.0.0.1:80 -s rr\n-A -t 10.0.0.1:80 -s rr\n')).toMatchObject({
      line: 2,
      message: expect.stringContaining('already defined at line 1'),
    });
  });

  it("places the engine's own checks (a real server of the other family) at its line", () => {
    expect(first('TCP  10.0.0.1:80 rr\n  -> [fd00::2]:80 Masq 1 0 0\n')).toMatchObject({
      line: 2,
      column: 6,
      message: expect.stringContaining('family'),
    });
  });
});

/** Random tables: protocols, families, schedulers, persistence, weights, methods. */
const specs: fc.Arbitrary<IpvsSpec> = fc
  .array(
    fc.record({
      proto: fc.constantFrom('tcp', 'udp', 'sctp'),
      v6: fc.boolean(),
      host: fc.integer({ min: 1, max: 250 }),
      port: fc.integer({ min: 0, max: 65535 }),
      scheduler: fc.constantFrom('rr', 'wrr'),
      persistent: fc.option(fc.integer({ min: 1, max: 86400 }), { nil: undefined }),
      servers: fc.uniqueArray(
        fc.record({
          host: fc.integer({ min: 1, max: 250 }),
          port: fc.integer({ min: 1, max: 65535 }),
          weight: fc.integer({ min: 0, max: 65535 }),
          forward: fc.constantFrom('masq', 'route', 'tunnel', 'local'),
        }),
        { selector: (s) => `${s.host}:${s.port}`, maxLength: 4 },
      ),
    }),
    { maxLength: 6 },
  )
  .map((list) => ({
    services: list.map((s) => ({
      proto: s.proto,
      address: s.v6 ? `fd00::${s.host.toString(16)}` : `10.96.0.${s.host}`,
      port: s.port,
      scheduler: s.scheduler,
      ...(s.persistent !== undefined ? { persistent: s.persistent } : {}),
      realServers: s.servers.map((r) => ({
        address: s.v6 ? `fd00:1::${r.host.toString(16)}` : `10.244.1.${r.host}`,
        port: r.port,
        weight: r.weight,
        forward: r.forward,
      })),
    })),
  }));

/** The table as the engine compiles it, services in key order, servers by address. */
function table(spec: IpvsSpec) {
  return [...compileIpvs(spec).table.services.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, s]) => ({
      ...s,
      realServers: [...s.realServers].sort((a, b) =>
        `${a.address}:${a.port}` < `${b.address}:${b.port}` ? -1 : 1,
      ),
    }));
}

describe('round trip: the engine’s ipvsadm text read back is the same table', () => {
  it.each([
    ['ipvsadm -Ln', ipvsadmList],
    ['ipvsadm -S -n', ipvsadmSave],
  ] as const)('%s', (_, render) => {
    fc.assert(
      fc.property(specs, (spec) => {
        const unique = { services: table(spec) };
        // Local and Route both print -g in -S (fwd_switch): -g reads back as Route.
        const expected =
          render === ipvsadmSave
            ? unique.services.map((s) => ({
                ...s,
                realServers: s.realServers.map((r) =>
                  r.forward === 'local' ? { ...r, forward: 'route' as const } : r,
                ),
              }))
            : unique.services;
        const r = importIpvsadm(render(spec));
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(table(r.spec)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
