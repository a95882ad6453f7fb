/**
 * The trace parsers on lines as the monitors print them (taken from the captures in
 * src/cluster/testing/trace-fixtures, which the cluster tests replay in full).
 */
import { describe, expect, it } from 'vitest';
import { parseRealTrace } from './parse.ts';

const XT = `$ xtables-monitor --trace
PACKET: 2 4a102771 IN=eth0 MACSRC=92:e9:fc:84:af:7e MACDST=b6:76:c3:73:4a:3d MACPROTO=0800 SRC=192.168.50.10 DST=192.168.50.100 LEN=60 TOS=0x0 TTL=64 ID=29161 DF SPORT=40100 DPORT=22 SYN 
 TRACE: 2 4a102771 hptrace:pre:rule:0x4:CONTINUE  -4 -t hptrace -A pre -p tcp -m tcp ! --tcp-flags SYN,RST NONE -j TRACE
 TRACE: 2 4a102771 hptrace:pre:policy:ACCEPT 
PACKET: 2 4a102771 IN=eth0 SRC=192.168.50.10 DST=192.168.50.100 LEN=60 TOS=0x0 TTL=64 ID=29161 DF SPORT=40100 DPORT=22 SYN 
 TRACE: 2 4a102771 nat:PREROUTING:rule:0xf:JUMP:KUBE-SERVICES  -4 -t nat -A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
 TRACE: 2 4a102771 nat:KUBE-POSTROUTING:rule:0xe:0xfffffffb  -4 -t nat -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
 TRACE: 2 4a102771 filter:KUBE-FORWARD:return:
PACKET: 2 183b6d72 IN=eth0 SRC=10.244.1.10 DST=192.168.50.38 ID=0 DF SPORT=80 DPORT=51057 SYN ACK 
 TRACE: 2 183b6d72 filter:FORWARD:policy:DROP 
`;

const NFT = `trace id 5f44d0a7 ip hptrace pre packet: iif "cali2c54b2dd8d9" ip saddr 10.244.1.11 ip daddr 10.96.0.10 ip id 15040 tcp sport 40100 tcp dport 24224 tcp flags == syn tcp window 64240 
trace id 5f44d0a7 ip hptrace pre rule tcp flags syn,rst meta nftrace set 1 # handle 4 (verdict continue)
trace id 5f44d0a7 ip hptrace pre policy accept 
trace id 5f44d0a7 ip kube-proxy services rule ip daddr . meta l4proto . th dport vmap @service-ips # handle 45 (verdict goto local-JUF5OU55-default/log-agent/tcp/)
trace id 5f44d0a7 ip kube-proxy masquerading verdict continue
trace id 5f44d0a7 ip kube-proxy nat-postrouting policy accept meta mark 0x00004000
trace id 476522c7 inet filter input packet: iif "eth0" ip saddr 10.244.1.10 ip daddr 10.244.1.11 tcp sport 24224 tcp dport 40100 tcp flags == 0x12
trace id 476522c7 inet filter input rule tcp dport 40100 drop (verdict drop)
`;

describe('xtables-monitor --trace', () => {
  const t = parseRealTrace(XT);

  it('groups events by trace id into packets, with their headers', () => {
    expect(t.format).toBe('xtables');
    expect(t.packets.map((p) => [p.id, p.hops.length, p.steps.length])).toEqual([
      ['4a102771', 2, 5],
      ['183b6d72', 1, 1],
    ]);
    expect(t.packets[0]?.summary).toBe('tcp 192.168.50.10:40100 → 192.168.50.100:22 SYN');
    expect(t.packets[1]?.summary).toBe('tcp 10.244.1.10:80 → 192.168.50.38:51057 SYN,ACK');
  });

  it('reads handles, verdicts (also as numbers), chain ends and policies', () => {
    const s = t.packets[0]?.steps ?? [];
    expect(s.map((x) => [x.line, x.table, x.chain, x.kind, x.handle, x.verdict])).toEqual([
      [3, 'hptrace', 'pre', 'rule', 4, 'continue'],
      [4, 'hptrace', 'pre', 'policy', null, 'accept'],
      [6, 'nat', 'PREROUTING', 'rule', 15, 'jump KUBE-SERVICES'],
      [7, 'nat', 'KUBE-POSTROUTING', 'rule', 14, 'return'],
      [8, 'filter', 'KUBE-FORWARD', 'return', null, 'return'],
    ]);
    expect(s[2]?.text).toMatch(/^-4 -t nat -A PREROUTING .* -j KUBE-SERVICES$/);
    expect(t.packets[1]?.steps[0]?.verdict).toBe('drop');
  });

  it('marks the tracing table (a -j TRACE rule and its policy) as not under test', () => {
    expect(t.packets[0]?.steps.map((x) => x.tracing)).toEqual([true, true, false, false, false]);
  });

  it('counts the lines that are not trace output', () => {
    expect(t.unknown).toBe(2); // the prompt and the final empty line
    expect(t.errors).toEqual([]);
  });

  it('says where a broken trace line is', () => {
    const bad = parseRealTrace(
      `${XT} TRACE: 2 183b6d72 filter-FORWARD-policy\n TRACE: 2 183b6d72 nat:X:rule:zz:ACCEPT\nPACKET: two\n`,
    );
    expect(bad.errors.map((e) => [e.line, e.column])).toEqual([
      [11, 20],
      [12, 31],
      [13, 9],
    ]);
    expect(bad.errors[0]?.message).toMatch(/table:chain:rule:HANDLE:VERDICT/);
    expect(bad.errors[1]?.message).toMatch(/handle and a verdict/);
    // The good lines are still read.
    expect(bad.packets.length).toBe(2);
  });
});

describe('nft monitor trace', () => {
  const t = parseRealTrace(NFT);

  it('reads families, tables, chains, handles and verdicts', () => {
    expect(t.format).toBe('nft');
    const s = t.packets[0]?.steps ?? [];
    expect(
      s.map((x) => [x.family, x.table, x.chain, x.kind, x.handle, x.verdict, x.tracing]),
    ).toEqual([
      ['ip', 'hptrace', 'pre', 'rule', 4, 'continue', true],
      ['ip', 'hptrace', 'pre', 'policy', null, 'accept', true],
      [
        'ip',
        'kube-proxy',
        'services',
        'rule',
        45,
        'goto local-JUF5OU55-default/log-agent/tcp/',
        false,
      ],
      ['ip', 'kube-proxy', 'masquerading', 'return', null, 'continue', false],
      ['ip', 'kube-proxy', 'nat-postrouting', 'policy', null, 'accept', false],
    ]);
    expect(s[2]?.text).toBe('ip daddr . meta l4proto . th dport vmap @service-ips');
  });

  it('reads rules without handles (nft monitor trace without -a)', () => {
    expect(t.packets[1]?.steps[0]).toMatchObject({ family: 'inet', handle: null, verdict: 'drop' });
    expect(t.packets[1]?.summary).toBe('tcp 10.244.1.10:24224 → 10.244.1.11:40100 SYN,ACK');
  });

  it('says where a broken trace line is, and tolerates kinds it does not know', () => {
    const bad = parseRealTrace(
      `${NFT}trace id zz\ntrace id 476522c7 inet filter input rule drop\ntrace id 476522c7 inet filter input conntrack: ct state new\n`,
    );
    expect(bad.errors.map((e) => [e.line, e.column])).toEqual([
      [9, 1],
      [10, 42],
    ]);
    expect(bad.errors[1]?.message).toMatch(/\(verdict/);
    expect(bad.unknown).toBe(2); // the conntrack line and the last empty line
  });
});

describe('anything else', () => {
  it('text that is no trace at all gets one message saying what to paste', () => {
    const t = parseRealTrace('hello\nworld');
    expect(t.format).toBe('unknown');
    expect(t.errors).toEqual([
      expect.objectContaining({
        line: 1,
        column: 1,
        message: expect.stringMatching(/xtables-monitor --trace/),
      }),
    ]);
  });

  it('each error carries its key and parameters, so the lab can say it in Chinese', () => {
    const t = parseRealTrace('PACKET: oops\nTRACE: 2 4a102771 filter:INPUT:bogus');
    expect(t.errors.map((e) => [e.line, e.column, e.code, e.params])).toEqual([
      [1, 9, 'xtables.head', { keyword: 'PACKET' }],
      [2, expect.any(Number), 'xtables.event', {}],
    ]);
    expect(t.errors[0]?.message).toBe(
      'PACKET: must be followed by a family number and a hex trace id ("PACKET: 2 4a102771 ...")',
    );
    const long = parseRealTrace('x'.repeat(4_000_001)).errors[0];
    expect([long?.code, long?.params]).toEqual(['too-long', { chars: 4_000_001, max: 4_000_000 }]);
  });

  it('an empty paste is no error', () => {
    expect(parseRealTrace('  \n').errors).toEqual([]);
  });
});
