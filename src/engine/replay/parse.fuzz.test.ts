/**
 * Property tests: any text, and real trace lines mixed with noise or cut at random, never make
 * the parsers throw; every error names a line of the text; noise lines never change the packets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRealTrace } from './parse.ts';

const XT_LINES = [
  'PACKET: 2 4a102771 IN=eth0 SRC=192.168.50.10 DST=192.168.50.100 LEN=60 ID=29161 DF SPORT=40100 DPORT=22 SYN ',
  ' TRACE: 2 4a102771 nat:PREROUTING:rule:0xf:JUMP:KUBE-SERVICES  -4 -t nat -A PREROUTING -j KUBE-SERVICES',
  ' TRACE: 2 4a102771 nat:KUBE-SEP-J4NUN26B4NBMR2RL:rule:0x27:ACCEPT  -4 -t nat -A KUBE-SEP-J4NUN26B4NBMR2RL -p tcp -m tcp -j DNAT --to-destination 10.244.1.10:80',
  ' TRACE: 2 4a102771 filter:FORWARD:policy:ACCEPT ',
];
const NFT_LINES = [
  'trace id 5f44d0a7 ip kube-proxy nat-prerouting packet: iif "eth0" ip saddr 10.244.1.11 ip daddr 10.96.0.10 tcp sport 40100 tcp dport 24224 tcp flags == syn',
  'trace id 5f44d0a7 ip kube-proxy nat-prerouting rule jump services # handle 20 (verdict jump services)',
  'trace id 5f44d0a7 ip kube-proxy masquerading rule meta mark & 0x00004000 == 0x00000000 return # handle 28 (verdict return)',
  'trace id 5f44d0a7 ip kube-proxy nat-postrouting policy accept',
];
/** Lines no monitor prints: they are counted, never read. */
const noise = fc.oneof(
  fc.constantFrom('', '$ sudo xtables-monitor --trace', '^C', 'Warning: something', '# comment'),
  fc
    .string({ maxLength: 40 })
    .filter((s) => !/PACKET:|TRACE:|trace id/.test(s) && !s.includes('\n')),
);

function checkErrors(text: string): void {
  const t = parseRealTrace(text);
  const n = text.split('\n').length;
  for (const e of t.errors) {
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(e.line).toBeLessThanOrEqual(n);
    expect(e.column).toBeGreaterThanOrEqual(1);
    expect(e.message.length).toBeGreaterThan(10);
  }
}

describe('trace parsers (fuzz)', () => {
  it('never throw on any text, and place every error on a line of it', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), checkErrors), { numRuns: 300 });
  });

  it('never throw on real lines cut and spliced at random', () => {
    const cut = fc
      .tuple(fc.constantFrom(...XT_LINES, ...NFT_LINES), fc.nat(), fc.string({ maxLength: 8 }))
      .map(([l, at, tail]) => l.slice(0, at % (l.length + 1)) + tail);
    fc.assert(
      fc.property(fc.array(cut, { maxLength: 12 }), (lines) => checkErrors(lines.join('\n'))),
      { numRuns: 300 },
    );
  });

  for (const [name, lines] of [
    ['xtables', XT_LINES],
    ['nft', NFT_LINES],
  ] as const) {
    it(`${name}: noise between the lines changes nothing but the count of unknown lines`, () => {
      const clean = parseRealTrace(lines.join('\n'));
      const strip = (t: ReturnType<typeof parseRealTrace>) =>
        t.packets.map((p) =>
          p.steps.map((s) => `${s.table}:${s.chain}:${s.kind}:${s.handle}:${s.verdict}`),
        );
      fc.assert(
        fc.property(
          fc.array(fc.array(noise, { maxLength: 3 }), { minLength: 5, maxLength: 5 }),
          (gaps) => {
            const mixed = gaps.flatMap((g, i) => [
              ...g,
              ...(lines[i] !== undefined ? [lines[i]] : []),
            ]);
            const t = parseRealTrace(mixed.join('\n'));
            expect(t.errors).toEqual([]);
            expect(strip(t)).toEqual(strip(clean));
            expect(t.unknown).toBe(gaps.flat().length);
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});
