/**
 * Retis events read into packets. The nft events carry exactly the sections and values
 * retis-org/retis tests/test_nft.py expects (test_nft_icmp_policy_drop); the text lines are
 * docs/events/nft.md's and README.md's examples; the drop is retis-events/test_data/test_events.json.
 */
import { describe, expect, it } from 'vitest';
import { parseRealTrace } from './parse.ts';

const TRACK =
  '"skb-tracking":{"orig_head":18446616576100907520,"skb":18446616546107689472,"timestamp":23868955262984}';
const nft = (n: string) =>
  `{"common":{"smp_id":0,"task":{"comm":"ping","pid":1,"tgid":1},"timestamp":1},"kernel":{"probe_type":"kprobe","symbol":"__nft_trace_packet"},${TRACK},"nft":{${n}}}`;

/** test_nft_icmp_policy_drop: two jumps to empty chains, the base chain's end, its policy drop. */
const POLICY_DROP = [
  '{"common":{"timestamp":23868643385852},"startup":{"retis_version":"v1.6.0","clock_monotonic_offset":{"sec":1742309146,"nsec":691042000}}}',
  nft(
    '"chain_handle":1,"chain_name":"input_filter","policy":false,"rule_handle":4,"table_handle":1,"table_name":"nft_test","verdict":"jump","verdict_chain_name":"input_ind1_hook"',
  ),
  nft(
    '"chain_handle":2,"chain_name":"input_ind1_hook","policy":false,"table_handle":1,"table_name":"nft_test","verdict":"continue"',
  ),
  nft(
    '"chain_handle":1,"chain_name":"input_filter","policy":false,"rule_handle":5,"table_handle":1,"table_name":"nft_test","verdict":"jump","verdict_chain_name":"input_ind2_hook"',
  ),
  nft(
    '"chain_handle":3,"chain_name":"input_ind2_hook","policy":false,"table_handle":1,"table_name":"nft_test","verdict":"continue"',
  ),
  nft(
    '"chain_handle":1,"chain_name":"input_filter","policy":false,"table_handle":1,"table_name":"nft_test","verdict":"continue"',
  ),
  nft(
    '"chain_handle":1,"chain_name":"input_filter","policy":true,"table_handle":1,"table_name":"nft_test","verdict":"drop"',
  ),
  '{"common":{"smp_id":0,"task":{"comm":"napi/phy0-8197","pid":1360,"tgid":1360},"timestamp":23868955449721},"kernel":{"probe_type":"raw_tracepoint","symbol":"skb:kfree_skb"},"skb":{"cloned":true,"daddr":"172.200.0.2","dataref":2,"dev_name":"p1_r","dst":"0a:58:0a:f4:00:02","etype":2048,"fclone":0,"icmp_code":0,"icmp_type":0,"ifindex":162,"ip_version":4,"l3_len":84,"netns":4026535848,"protocol":1,"rx_ifindex":162,"saddr":"172.200.0.3","src":"0a:58:0a:f4:00:01","users":1},"skb-drop":{"drop_reason":"NO_SOCKET"},"skb-tracking":{"orig_head":18446616575285769216,"skb":18446616552502694400,"timestamp":23868955437572}}',
].join('\n');

describe('Retis JSON events', () => {
  const t = parseRealTrace(POLICY_DROP);

  it('reads nft events as steps of the skb-tracking id, as Retis prints the id', () => {
    expect(t.format).toBe('retis');
    expect(t.errors).toEqual([]);
    const id = ((23868955262984n << 64n) | 18446616576100907520n).toString(16);
    expect(t.packets[0]?.id).toBe(id);
    expect(t.packets[0]?.steps.map((s) => [s.chain, s.kind, s.handle, s.verdict])).toEqual([
      ['input_filter', 'rule', 4, 'jump input_ind1_hook'],
      ['input_ind1_hook', 'return', null, 'continue'],
      ['input_filter', 'rule', 5, 'jump input_ind2_hook'],
      ['input_ind2_hook', 'return', null, 'continue'],
      ['input_filter', 'return', null, 'continue'],
      ['input_filter', 'policy', null, 'drop'],
    ]);
    // Retis's nft section names no family: any family's table of that name matches.
    expect(t.packets[0]?.steps[0]?.family).toBe('');
    expect(t.onlyVerdicts).toBeUndefined();
  });

  it('reads kfree_skb with its drop reason as a drop, headers from the old skb section', () => {
    const p = t.packets[1];
    expect(p?.summary).toBe('icmp 172.200.0.3 → 172.200.0.2');
    expect(p?.stages).toMatchObject([{ stage: 'drop', reason: 'NO_SOCKET', line: 8 }]);
  });

  it('reads the packet section (Retis >= 1.5): the headers decoded from its bytes', () => {
    // retis/test_data/test_events_packets.json's first event's packet: a ping 192.168.125.10 → .11.
    const line =
      '{"common":{"timestamp":30419169061793},"kernel":{"symbol":"net:net_dev_start_xmit","probe_type":"raw_tracepoint"},"skb-tracking":{"orig_head":18446619372617628672,"timestamp":30419169061793,"skb":18446619372874141952},"packet":{"len":98,"capture_len":98,"data":"+ly9jswBpsIRcVlFCABFAABUo/lAAEABG0nAqH0KwKh9CwgAQFpxTAAB7f3ZZwAAAACzHw0AAAAAABAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc="},"ct":{"state":"new","zone_id":0}}';
    const p = parseRealTrace(line).packets[0];
    expect(p?.summary).toBe('icmp 192.168.125.10 → 192.168.125.11 (ct new)');
    expect(p?.stages.map((s) => s.stage)).toEqual(['xmit']);
  });

  it('says which verdicts were collected when only drop and accept were (the default)', () => {
    const only = [POLICY_DROP.split('\n')[6]].join('\n');
    expect(parseRealTrace(only ?? '').onlyVerdicts).toEqual(['accept', 'drop']);
  });

  it('reads `retis sort` series (an array of events a line)', () => {
    const series = `[${POLICY_DROP.split('\n').slice(1, 3).join(',')}]`;
    const s = parseRealTrace(series);
    expect(s.packets[0]?.steps).toHaveLength(2);
    expect(s.packets[0]?.steps.every((x) => x.line === 1)).toBe(true);
  });

  it('names the line and column of a broken event, and what to paste', () => {
    const broken = parseRealTrace(
      `${POLICY_DROP.split('\n')[1]}\n{"common":{"timestamp":1},"kernel":{,}}`,
    );
    expect(broken.errors).toHaveLength(1);
    expect(broken.errors[0]).toMatchObject({ line: 2, column: 37 });
    expect(broken.errors[0]?.message).toContain('retis collect -o');
    const noChain = parseRealTrace(nft('"table_name":"t","verdict":"accept","policy":false'));
    expect(noChain.errors[0]).toMatchObject({
      line: 1,
      message: 'the nft section needs chain_name',
    });
  });
});

describe('Retis text output', () => {
  it('reads the nft collector example of docs/events/nft.md', () => {
    const t = parseRealTrace(`53529978697438 [swapper/0] 0 [k] __nft_trace_packet
  table firewalld (2) chain filter_PREROUTING (164) accept (policy)

53529978701985 [swapper/0] 0 [k] __nft_trace_packet
  table firewalld (2) chain filter_INPUT (165) handle 169 accept`);
    expect(t.format).toBe('retis');
    expect(t.packets[0]?.steps.map((s) => [s.chain, s.kind, s.handle, s.verdict])).toEqual([
      ['filter_PREROUTING', 'policy', null, 'accept'],
      ['filter_INPUT', 'rule', 169, 'accept'],
    ]);
    expect(t.onlyVerdicts).toEqual(['accept', 'drop']);
  });

  it('reads README.md kernel probes as stages, grouped by tracking id, with the headers', () => {
    const t =
      parseRealTrace(`12313349514683 (1) [isc-net-0000] 26822/26823 [k] ip6_output #b32ecd2e5bbffff8ca00f0c6100 (skb ffff8ca396cf4600)
  [redacted].43366 > 2606:4700:4700::1111.53 ttl 64 label 0x10c7e len 59 proto UDP (17) len 51
  ns 0x1/4026531840
  ct_state NEW status 0x100 udp orig [[redacted].43366 > 2606:4700:4700::1111.53] reply [2606:4700:4700::1111.53 > [redacted].43366] zone 0 mark 0

12313349531477 (1) [isc-net-0000] 26822/26823 [tp] net:net_dev_start_xmit #b32ecd2e5bbffff8ca00f0c6100 (skb ffff8ca396cf4600)
  [redacted].43366 > 2606:4700:4700::1111.53 ttl 64 label 0x10c7e len 59 proto UDP (17) len 51
  ns 0x1/4026531840 if 4 (wlp82s0)`);
    expect(t.packets).toHaveLength(1);
    expect(t.packets[0]?.id).toBe('b32ecd2e5bbffff8ca00f0c6100');
    expect(t.packets[0]?.summary).toBe('udp [redacted]:43366 → 2606:4700:4700::1111:53 (ct new)');
    expect(t.packets[0]?.stages.map((s) => [s.stage, s.line])).toEqual([
      ['POSTROUTING', 1],
      ['xmit', 6],
    ]);
  });

  it('a broken nft line: its line and column', () => {
    const t = parseRealTrace(`1 [x] 0 [k] __nft_trace_packet\n  table t chain c accept`);
    expect(t.errors).toMatchObject([{ line: 2, column: 3 }]);
  });
});
