/** Property tests: random and mutated rulesets never crash the parser or the engine, and errors say where. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildNetwork,
  enumerateOutcomes,
  simulate,
  parseRuleset,
  serializeRuleset,
  SYN,
} from '../index.ts';

const VALID = `*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -i eth0 -p tcp -m multiport --dports 30000:32767 -j DROP
COMMIT
*nat
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-X - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -j KUBE-SERVICES
-A POSTROUTING -m mark --mark 0x4000/0x4000 -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m tcp --dport 443 -j KUBE-SVC-X
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -p tcp --dport 30080 -j KUBE-SVC-X
-A KUBE-SVC-X ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVC-X -m statistic --mode random --probability 0.5 -p tcp -j DNAT --to-destination 10.244.1.2:6443
-A KUBE-SVC-X -m recent --name A --rcheck --seconds 60 --reap -p tcp -j DNAT --to-destination 10.244.2.2:6443
-A KUBE-SVC-X -p tcp -j DNAT --to-destination 10.244.2.2:6443
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m conntrack --ctstate INVALID -j DROP
-A INPUT -p udp --dport 53 -j REJECT
-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED,DNAT -j ACCEPT
-A FORWARD -m set --match-set ALLOW src -j ACCEPT
COMMIT
`;

const WORDS = [
  '-A',
  '-I',
  '-N',
  '-j',
  '-g',
  '-m',
  '-p',
  '-s',
  '-d',
  '-i',
  '-o',
  '!',
  '--dport',
  '--sport',
  '--comment',
  '"',
  'tcp',
  'udp',
  'ACCEPT',
  'DROP',
  'DNAT',
  'KUBE-SVC-X',
  'INPUT',
  'PREROUTING',
  'COMMIT',
  '*nat',
  '*filter',
  ':X',
  '-',
  '[0:0]',
  '10.0.0.0/8',
  '80',
  '30000:32767',
  'statistic',
  '--probability',
  '0.5',
  'conntrack',
  '--ctstate',
  'NEW',
  'mark',
  '--mark',
  '0x4000/0x4000',
  '--to-destination',
  '1.2.3.4:80',
  'addrtype',
  '--dst-type',
  'LOCAL',
  'recent',
  '--name',
  '--rcheck',
];

const line = fc
  .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 6 })), { maxLength: 10 })
  .map((w) => w.join(' '));

function checkDiagnostics(text: string): void {
  const r = parseRuleset(text);
  const lines = text.split('\n').length;
  for (const d of r.diagnostics) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lines);
    expect(d.column).toBeGreaterThanOrEqual(1);
    expect(d.message.length).toBeGreaterThan(0);
  }
  if (r.ok) {
    // Whatever parses also serializes to something that parses back the same.
    const again = serializeRuleset(r.ruleset);
    expect(serializeRuleset(parseRuleset(again).ruleset)).toBe(again);
  }
}

describe('parser fuzzing', () => {
  it('random lines never throw; every diagnostic has a line and column inside the input', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        checkDiagnostics(lines.join('\n'));
      }),
      { numRuns: 400 },
    );
  });

  it('a valid dump with lines deleted, duplicated or mutated never throws', () => {
    const base = VALID.split('\n');
    const mutation = fc.record({
      at: fc.nat(base.length - 1),
      kind: fc.constantFrom('drop', 'dup', 'cut', 'insert'),
      word: line,
      cut: fc.nat(80),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (muts) => {
        const lines = [...base];
        for (const m of muts) {
          const at = Math.min(m.at, lines.length - 1);
          if (m.kind === 'drop') lines.splice(at, 1);
          else if (m.kind === 'dup') lines.splice(at, 0, lines[at] ?? '');
          else if (m.kind === 'cut') lines[at] = (lines[at] ?? '').slice(0, m.cut);
          else lines.splice(at, 0, m.word);
        }
        checkDiagnostics(lines.join('\n'));
      }),
      { numRuns: 400 },
    );
  });

  it('arbitrary unicode text never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => checkDiagnostics(s)),
      { numRuns: 300 },
    );
  });
});

describe('engine fuzzing', () => {
  const { network } = buildNetwork({
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: ['192.168.1.20/24'], segment: 'lan' }],
      },
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: ['192.168.1.10/24'], segment: 'lan' }],
        routes: [{ to: '10.244.0.0/16', via: '192.168.1.20' }],
        sysctls: { ipForward: true, routeLocalnet: true },
        listeners: [{ process: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22 }],
        ipsets: [{ name: 'ALLOW', type: 'hash:net', entries: ['192.168.1.0/24'] }],
        rules: VALID,
      },
    ],
  });

  it('random packets: the seeded run is one of the enumerated branches, whose shares sum to 1', () => {
    expect(network).not.toBeNull();
    const net = network as NonNullable<typeof network>;
    const ip = fc.oneof(
      fc.constantFrom(
        '192.168.1.10',
        '192.168.1.20',
        '10.96.0.1',
        '127.0.0.1',
        '10.244.1.2',
        '255.255.255.255',
        '0.0.0.0',
      ),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((t) => t.join('.')),
    );
    const packet = fc.record({
      proto: fc.constantFrom('tcp', 'udp', 'icmp', 'sctp') as fc.Arbitrary<
        'tcp' | 'udp' | 'icmp' | 'sctp'
      >,
      src: ip,
      dst: ip,
      sport: fc.integer({ min: 1, max: 65535 }),
      dport: fc.constantFrom(22, 53, 443, 30080, 31000, 80),
      mark: fc.constantFrom(0, 0x4000),
      iface: fc.constantFrom('eth0', 'lo'),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(packet, (p) => {
        const probe = {
          kind: 'inject' as const,
          host: 'node',
          iface: p.iface,
          packet: {
            proto: p.proto,
            src: p.src,
            dst: p.dst,
            sport: p.sport,
            dport: p.dport,
            mark: p.mark,
            ttl: 64,
            ...(p.proto === 'tcp' ? { flags: SYN } : {}),
          },
        };
        const sim = simulate(net, probe, { seed: p.seed });
        expect(sim.events.length).toBeLessThan(5000);
        // The seeded run is one of the branches the enumeration finds, the branches' shares add
        // up to 1, and the same seed gives the same run.
        const en = enumerateOutcomes(net, probe);
        expect(en.truncated).toBe(false);
        expect(en.runs.reduce((a, r) => a + r.probability, 0)).toBeCloseTo(1, 9);
        expect(en.runs.map((r) => JSON.stringify(r.outcome))).toContain(
          JSON.stringify(sim.outcome),
        );
        expect(simulate(net, probe, { seed: p.seed }).outcome).toEqual(sim.outcome);
      }),
      { numRuns: 300 },
    );
  });
});
