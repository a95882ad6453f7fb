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
const RETIS_LINES = [
  '{"common":{"timestamp":1},"kernel":{"probe_type":"kprobe","symbol":"__nft_trace_packet"},"skb-tracking":{"orig_head":18446616576100907520,"skb":18446616546107689472,"timestamp":23868955262984},"nft":{"table_name":"nat","chain_name":"PREROUTING","verdict":"jump","verdict_chain_name":"KUBE-SERVICES","table_handle":2,"chain_handle":1,"rule_handle":15,"policy":false}}',
  '{"common":{"timestamp":2},"kernel":{"probe_type":"kprobe","symbol":"__nft_trace_packet"},"skb-tracking":{"orig_head":18446616576100907520,"skb":18446616546107689472,"timestamp":23868955262984},"nft":{"table_name":"filter","chain_name":"FORWARD","verdict":"accept","table_handle":1,"chain_handle":3,"policy":true}}',
  '{"common":{"timestamp":3},"kernel":{"probe_type":"raw_tracepoint","symbol":"skb:kfree_skb"},"skb-drop":{"drop_reason":"NO_SOCKET"},"skb-tracking":{"orig_head":18446616575285769216,"skb":18446616552502694400,"timestamp":23868955437572}}',
  '{"common":{"timestamp":4},"kernel":{"probe_type":"raw_tracepoint","symbol":"net:netif_receive_skb"},"skb-tracking":{"orig_head":18446616575285769216,"skb":18446616552502694400,"timestamp":23868955437572},"packet":{"len":98,"capture_len":98,"data":"+ly9jswBpsIRcVlFCABFAABUo/lAAEABG0nAqH0KwKh9CwgAQFpxTAAB"}}',
];
const PWRU_LINES = [
  '0xffff8a0c4e3d2e00 1   <empty>:0        4026532290 0               eth0:2    0x0800 1500  60    192.168.50.10:40100->192.168.50.100:22(tcp) ip_rcv',
  '0xffff8a0c4e3d2e00 1   <empty>:0        4026532290 0               eth0:2    0x0800 1500  60    192.168.50.10:40100->192.168.50.100:22(tcp) nf_hook_slow',
  '    0xffff936378692ce8 6 [curl] kfree_skb_reason(SKB_DROP_REASON_NETFILTER_DROP) 172.20.10.2:33918->1.1.1.1:4240(tcp)',
  '{"skb":"0xffff8a0c4e3d2e00","cpu":1,"process":"<empty>:0","func":"ip_forward","netns":4026532290,"tuple":{"saddr":"10.0.0.1","daddr":"10.0.0.2","sport":1,"dport":2,"proto":6}}',
];
/** Lines no monitor prints: they are counted, never read. */
const noise = fc.oneof(
  fc.constantFrom('', '$ sudo xtables-monitor --trace', '^C', 'Warning: something', '# comment'),
  fc
    .string({ maxLength: 40 })
    .filter((s) => !/PACKET:|TRACE:|trace id|0x|^\s*[[{]|^\s/.test(s) && !s.includes('\n')),
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
      .tuple(
        fc.constantFrom(...XT_LINES, ...NFT_LINES, ...RETIS_LINES, ...PWRU_LINES),
        fc.nat(),
        fc.string({ maxLength: 8 }),
      )
      .map(([l, at, tail]) => l.slice(0, at % (l.length + 1)) + tail);
    fc.assert(
      fc.property(fc.array(cut, { maxLength: 12 }), (lines) => checkErrors(lines.join('\n'))),
      { numRuns: 300 },
    );
  });

  for (const [name, lines] of [
    ['xtables', XT_LINES],
    ['nft', NFT_LINES],
    ['retis', RETIS_LINES],
    ['pwru', PWRU_LINES],
  ] as const) {
    it(`${name}: noise between the lines changes nothing but the count of unknown lines`, () => {
      const clean = parseRealTrace(lines.join('\n'));
      const strip = (t: ReturnType<typeof parseRealTrace>) =>
        t.packets.map((p) => [
          ...p.steps.map((s) => `${s.table}:${s.chain}:${s.kind}:${s.handle}:${s.verdict}`),
          ...p.stages.map((s) => `${s.stage}:${s.reason}:${s.funcs.join(',')}`),
        ]);
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

  it('read a large trace of every format quickly, whatever it holds (no quadratic path)', () => {
    for (const lines of [XT_LINES, NFT_LINES, RETIS_LINES, PWRU_LINES]) {
      const big = Array.from({ length: 5000 }, (_, i) => lines[i % lines.length]).join('\n');
      const t0 = performance.now();
      const t = parseRealTrace(big);
      expect(t.errors).toEqual([]);
      expect(performance.now() - t0).toBeLessThan(3000);
    }
    // One enormous line of brackets or of an address: an error or nothing, never a hang.
    for (const junk of ['{'.repeat(200_000), `0x${'f'.repeat(200_000)} 1 x`, '['.repeat(200_000)])
      expect(() => parseRealTrace(junk)).not.toThrow();
  });
});
