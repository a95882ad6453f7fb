/**
 * The parts of the kernel harness that need no kernel: reading `xtables-monitor --trace` lines
 * (captured on Linux 6.18 / iptables 1.8.9) and picking a probe's packets out of them.
 */
import { describe, expect, it } from 'vitest';
import { selectPackets } from './compare.ts';
import { isMarkerLine, kernelNotation, parseMonitor, type HandleMap } from './kernel-trace.ts';

const HANDLES: HandleMap = {
  positions: new Map([
    ['nat/PREROUTING/4', 1],
    ['nat/KUBE-SERVICES/5', 1],
    ['nat/KUBE-POSTROUTING/14', 1],
    ['filter/INPUT/3', 1],
  ]),
  chains: new Set(['nat/PREROUTING', 'nat/KUBE-SERVICES', 'nat/KUBE-POSTROUTING', 'filter/INPUT']),
};

// A SYN DNATed in nat PREROUTING, then a REJECT whose verdict is printed after the hooks of
// the ICMP error it sent (same trace id as the SYN, but after the ICMP's PACKET line).
const LINES =
  `PACKET: 2 0d0ad3d0 IN=vb SRC=10.9.0.1 DST=10.9.0.2 LEN=60 TOS=0x0 TTL=64 ID=51509 DF SPORT=46364 DPORT=81 SYN
 TRACE: 2 0d0ad3d0 hptrace:pre:rule:0x3:CONTINUE  -4 -t hptrace -A pre -j TRACE
 TRACE: 2 0d0ad3d0 hptrace:pre:policy:ACCEPT
PACKET: 2 0d0ad3d0 IN=vb SRC=10.9.0.1 DST=10.9.0.2 LEN=60 TOS=0x0 TTL=64 ID=51509 DF SPORT=46364 DPORT=81 SYN
 TRACE: 2 0d0ad3d0 nat:PREROUTING:rule:0x4:JUMP:KUBE-SERVICES  -4 -t nat -A PREROUTING -j KUBE-SERVICES
 TRACE: 2 0d0ad3d0 nat:KUBE-SERVICES:rule:0x5:ACCEPT  -4 -t nat -A KUBE-SERVICES -p tcp -m tcp --dport 81 -j DNAT --to-destination 10.9.0.2:80
PACKET: 2 0d0ad3d0 IN=vb SRC=10.9.0.1 DST=10.9.0.2 LEN=60 TOS=0x0 TTL=64 ID=51509 DF SPORT=46364 DPORT=80 SYN
PACKET: 2 a311e268 OUT=vb SRC=10.9.0.2 DST=10.9.0.1 LEN=88 TOS=0xc0 TTL=64 ID=55584
 TRACE: 2 a311e268 nat:POSTROUTING:rule:0xe:0xfffffffb  -4 -t nat -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
 TRACE: 2 0d0ad3d0 filter:INPUT:rule:0x3:DROP  -4 -t filter -A INPUT -p tcp -m tcp --dport 80 -j REJECT
PACKET: 2 c5b037ae IN=eth0 SRC=0.0.0.0 DST=224.0.0.22 LEN=40 TOS=0xc0 TTL=1 ID=0 DF OPT (FFFFFF94040000)
 TRACE: 2 c5b037ae nat:PREROUTING:rule:0x4:JUMP:KUBE-SERVICES  -4 -t nat -A PREROUTING -j KUBE-SERVICES
PACKET: 2 7f3f634d OUT=lo SRC=127.0.0.1 DST=127.0.0.1 LEN=32 TOS=0x0 TTL=64 ID=28865 DF SPORT=20003 DPORT=1
`.split('\n');

describe('parseMonitor', () => {
  const blocks = parseMonitor(LINES);

  it('drops the trace table and attaches a late verdict to its own packet', () => {
    const syn = blocks.filter((b) => b.traceId === '0d0ad3d0');
    expect(syn.flatMap((b) => b.events.map((e) => kernelNotation(e, HANDLES)))).toEqual([
      'nat:PREROUTING:rule:1:JUMP:KUBE-SERVICES',
      'nat:KUBE-SERVICES:rule:1:ACCEPT',
      'filter:INPUT:rule:1:DROP',
    ]);
  });

  it('names the verdicts xtables-monitor prints as numbers', () => {
    const icmp = blocks.find((b) => b.traceId === 'a311e268');
    expect(icmp?.events[0]?.verdict).toBe('RETURN');
  });

  it('reads header fields and flag words', () => {
    expect(blocks[0]?.fields).toMatchObject({ SRC: '10.9.0.1', DPORT: '81', ID: '51509' });
    expect(blocks[0]?.flags.has('SYN')).toBe(true);
  });

  it('recognises marker packets by their nonce', () => {
    expect(isMarkerLine(LINES.at(-2) ?? '', 20003)).toBe(true);
    expect(isMarkerLine(LINES.at(-2) ?? '', 20004)).toBe(false);
  });
});

describe('selectPackets', () => {
  const probe = {
    kind: 'connect',
    from: 'a',
    proto: 'tcp',
    dst: '10.9.0.2',
    dport: 81,
    sport: 46364,
  } as const;

  it('takes the SYN by its IP ID across hooks, and an ICMP error as the answer, never IGMP', () => {
    const { first, reply } = selectPackets(parseMonitor(LINES), probe);
    expect(first.map((b) => b.fields.ID)).toEqual(['51509', '51509', '51509']);
    expect(reply.map((b) => b.traceId)).toEqual(['a311e268']);
  });

  it('a retransmitted SYN-ACK (IP ID 0 again) is not part of the first answer', () => {
    const synack = (n: string) => [
      `PACKET: 2 ${n} IN=eth1 OUT=eth0 SRC=10.9.0.2 DST=10.9.0.1 LEN=60 TOS=0x0 TTL=63 ID=0 DF SPORT=80 DPORT=46364 SYN ACK`,
      ` TRACE: 2 ${n} filter:INPUT:rule:0x3:DROP  -4 -t filter -A INPUT -j X`,
    ];
    const lines = [...LINES.slice(0, 7), ...synack('11111111'), ...synack('22222222')];
    const { reply } = selectPackets(parseMonitor(lines), probe);
    expect(reply.map((b) => b.traceId)).toEqual(['11111111']);
  });

  it('an answer from the DNATed port counts where the SYN passed before the DNAT', () => {
    // pod -> another node's NodePort: this node forwarded the SYN to :30080; that node DNATed it
    // to a pod elsewhere, whose SYN-ACK comes back here straight from :8080.
    const lines = [
      `PACKET: 2 aaaaaaaa IN=cali1 OUT=eth0 SRC=10.244.0.10 DST=192.168.10.12 LEN=60 TOS=0x0 TTL=63 ID=7 DF SPORT=46364 DPORT=30080 SYN`,
      ` TRACE: 2 aaaaaaaa filter:INPUT:rule:0x3:ACCEPT  -4 -t filter -A INPUT -j X`,
      `PACKET: 2 bbbbbbbb IN=eth0 OUT=eth0 SRC=10.244.1.5 DST=10.244.0.10 LEN=60 TOS=0x0 TTL=63 ID=0 DF SPORT=8080 DPORT=9999 SYN ACK`,
      ` TRACE: 2 bbbbbbbb filter:INPUT:rule:0x3:DROP  -4 -t filter -A INPUT -j X`,
      `PACKET: 2 cccccccc IN=eth0 OUT=cali1 SRC=10.244.1.5 DST=10.244.0.10 LEN=60 TOS=0x0 TTL=63 ID=0 DF SPORT=8080 DPORT=46364 SYN ACK`,
      ` TRACE: 2 cccccccc filter:INPUT:rule:0x3:DROP  -4 -t filter -A INPUT -j X`,
    ];
    const { reply } = selectPackets(parseMonitor(lines), { ...probe, dport: 30080 });
    expect(reply.map((b) => b.traceId)).toEqual(['cccccccc']);
  });

  it('late SYN-ACKs of earlier probes are never the answer', () => {
    const synack = (n: string, dport: number) => [
      `PACKET: 2 ${n} IN=eth0 OUT=cali1 SRC=10.244.1.5 DST=10.244.0.10 LEN=60 TOS=0x0 TTL=63 ID=0 DF SPORT=80 DPORT=${dport} SYN ACK`,
      ` TRACE: 2 ${n} filter:FORWARD:rule:0x3:DROP  -4 -t filter -A FORWARD -j X`,
    ];
    // A host that never saw this probe's SYN: only an answer to the probe's own port counts.
    expect(selectPackets(parseMonitor(synack('dddddddd', 40100)), probe).reply).toEqual([]);
    // A host that saw it: the same service port answering an earlier probe's port is stale.
    const lines = [...LINES.slice(0, 7), ...synack('eeeeeeee', 40100)];
    expect(selectPackets(parseMonitor(lines), probe, new Set([40100])).reply).toEqual([]);
    expect(selectPackets(parseMonitor(lines), probe).reply.map((b) => b.traceId)).toEqual([
      'eeeeeeee',
    ]);
  });
});
