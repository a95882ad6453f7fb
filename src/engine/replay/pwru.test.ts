/**
 * pwru output read into stages: the older layout from cilium/pwru#148, the current columns of
 * internal/pwru/output.go (PrintHeader/Print, as cilium/pwru#376 shows them; the upstream CI
 * greps `1.0.0.1:8080.*(kfree_skb_reason|kfree_skb|sk_skb_reason_drop\b)`, the tuple before
 * the function), and `--output-json` lines with jsonPrinter's fields.
 */
import { describe, expect, it } from 'vitest';
import { parseRealTrace } from './parse.ts';

const OLD = `    0xffff936378692ce8 6 [curl]             nf_hook_slow 172.20.10.2:33918->1.1.1.1:4240(tcp)
    0xffff936378692ce8 6 [curl] kfree_skb_reason(SKB_DROP_REASON_NETFILTER_DROP) 172.20.10.2:33918->1.1.1.1:4240(tcp)`;

const HEAD =
  'SKB                CPU PROCESS          NETNS      MARK/x        IFACE       PROTO  MTU   LEN   TUPLE FUNC';
const row = (
  func: string,
  tuple = '10.0.0.1:40100->10.96.0.10:80(tcp:SYN)',
  skb = '0xffff9fc1014a8700',
) =>
  `${skb} 0   ~/bin/curl:4417  4026531840 0               eth0:2    0x0800 1500  60    ${tuple} ${func}`;

describe('pwru text', () => {
  it('reads the older layout: the process in brackets, then the function', () => {
    const t = parseRealTrace(OLD);
    expect(t.format).toBe('pwru');
    expect(t.packets).toHaveLength(1);
    expect(t.packets[0]?.summary).toBe('tcp 172.20.10.2:33918 → 1.1.1.1:4240');
    // nf_hook_slow with no hook function before it marks nothing; the drop keeps its reason.
    expect(t.packets[0]?.stages).toMatchObject([
      { stage: 'drop', reason: 'NETFILTER_DROP', line: 2 },
    ]);
  });

  it('reads the current columns: hooks from their functions, tables marked, one row a hook', () => {
    const t = parseRealTrace(
      [
        HEAD,
        row('ip_rcv'),
        row('ip_rcv_core.isra.0'),
        row('nf_hook_slow'),
        row('nft_do_chain'),
        row('ip_local_deliver', '10.0.0.1:40100->10.244.1.5:8080(tcp:SYN)'),
        row('tcp_v4_rcv', '10.0.0.1:40100->10.244.1.5:8080(tcp:SYN)'),
        row('kfree_skb_reason (2)', '10.0.0.1:40100->10.244.1.5:8080(tcp:SYN)'),
      ].join('\n'),
    );
    expect(t.errors).toEqual([]);
    expect(t.unknown).toBe(1);
    const p = t.packets[0];
    expect(p?.id).toBe('0xffff9fc1014a8700@4026531840');
    expect(p?.summary).toBe('tcp 10.0.0.1:40100 → 10.96.0.10:80 SYN');
    expect(p?.stages.map((s) => [s.stage, s.tables, s.reason, s.line])).toEqual([
      ['PREROUTING', true, null, 2],
      ['INPUT', false, null, 6],
      ['socket', false, null, 7],
      ['drop', false, '2', 8],
    ]);
    expect(p?.stages[0]?.funcs).toEqual([
      'ip_rcv',
      'ip_rcv_core.isra.0',
      'nf_hook_slow',
      'nft_do_chain',
    ]);
  });

  it('an skb address used again after it was freed is another packet', () => {
    const t = parseRealTrace(
      [row('ip_rcv'), row('kfree_skbmem'), row('__ip_local_out')].join('\n'),
    );
    expect(t.packets.map((p) => [p.id, p.stages.map((s) => s.stage)])).toEqual([
      ['0xffff9fc1014a8700@4026531840', ['PREROUTING']],
      ['0xffff9fc1014a8700@4026531840#2', ['OUTPUT']],
    ]);
  });

  it('SKB_CONSUMED is no drop; IPv6 tuples lose their brackets', () => {
    const t = parseRealTrace(
      row('kfree_skb_reason(SKB_CONSUMED)', '[fd00::1]:40100->[fd00::2]:80(tcp:SYN|ACK)'),
    );
    expect(t.packets[0]?.stages).toEqual([]);
    expect(t.packets[0]?.summary).toBe('tcp fd00::1:40100 → fd00::2:80 SYN,ACK');
  });

  it('--output-caller: the function is the column before the caller', () => {
    const t = parseRealTrace(
      `${HEAD} CALLER\n0xffff9fc1014a8700 0   <empty>:0        4026531840 0               0         0x0800 1500  60    ip_forward ip_rcv_finish`,
    );
    expect(t.packets[0]?.stages.map((s) => s.stage)).toEqual(['FORWARD']);
  });

  it('a line without a function after its tuple: line, column, what it expected', () => {
    const t = parseRealTrace(
      `  0xffff9fc1014a8700 0 ~/bin/curl:1 4026531840 0 0 0x0800 1500 60 1.1.1.1:1->2.2.2.2:2(tcp)`,
    );
    expect(t.errors).toMatchObject([{ line: 1, column: 3 }]);
    expect(t.errors[0]?.message).toContain('kernel function');
  });
});

describe('pwru --output-json', () => {
  const json = (func: string, tuple: string) =>
    `{"skb":"0xffff8a0c4e3d2e00","cpu":1,"process":"<empty>:0","func":"${func}","netns":4026532290,"iface":"eth0:2","proto":2048,"mtu":1500,"len":60,"tuple":${tuple}}`;
  const T =
    '{"saddr":"192.168.50.10","daddr":"192.168.50.100","sport":40100,"dport":22,"proto":6,"flags":"SYN"}';

  it('reads the same stages as the text', () => {
    const t = parseRealTrace(
      [
        json('ip_rcv', T),
        json('nf_hook_slow', T),
        json('ip_forward', T),
        json('kfree_skb_reason(SKB_DROP_REASON_NETFILTER_DROP)', T),
      ].join('\n'),
    );
    expect(t.format).toBe('pwru');
    expect(t.packets[0]?.summary).toBe('tcp 192.168.50.10:40100 → 192.168.50.100:22 SYN');
    expect(t.packets[0]?.stages.map((s) => [s.stage, s.reason])).toEqual([
      ['PREROUTING', null],
      ['FORWARD', null],
      ['drop', 'NETFILTER_DROP'],
    ]);
  });

  it('a broken JSON line: its line and what to paste', () => {
    const t = parseRealTrace(`${json('ip_rcv', T)}\n{"skb":"0xffff8a0c4e3d2e00","func":`);
    expect(t.errors).toMatchObject([{ line: 2, column: 1 }]);
    expect(t.errors[0]?.message).toContain('--output-json');
  });
});
