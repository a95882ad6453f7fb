/**
 * Each expression family against one packet: a TCP SYN from the client 192.168.1.20 to the
 * node's sshd at 192.168.1.10:22, arriving on eth0. The node's input chain drops by policy and
 * accepts on the expression under test, so "answered" means "the expression matched".
 */
import { describe, expect, it } from 'vitest';
import { simulate } from '../index.ts';
import { lanNetwork, NODE } from '../testing/single-host.ts';

function answered(expr: string): boolean {
  const net = lanNetwork({
    nftables: `table inet t {
  chain input {
    type filter hook input priority 0; policy drop;
    ${expr} accept
  }
}`,
  });
  const sim = simulate(net, {
    kind: 'connect',
    from: 'client',
    proto: 'tcp',
    dst: NODE,
    dport: 22,
  });
  if (sim.outcome.kind === 'unsupported') throw new Error(`unsupported: ${sim.outcome.what}`);
  return sim.outcome.kind === 'answered';
}

const CASES: readonly (readonly [string, boolean])[] = [
  ['ip saddr 192.168.1.0/24', true],
  ['ip saddr != 192.168.1.0/24', false],
  ['ip saddr 192.168.1.1-192.168.1.30', true],
  ['ip daddr { 10.0.0.1, 192.168.1.10 }', true],
  ['ip6 saddr ::/0', false],
  ['ip protocol tcp', true],
  ['ip ttl 64', true],
  ['tcp dport 22', true],
  ['tcp dport ssh', true],
  ['udp dport 22', false],
  ['th dport 20-25', true],
  ['tcp dport { 80, 443 }', false],
  ['tcp sport < 1024', false],
  ['meta l4proto tcp', true],
  ['meta l4proto { udp, sctp }', false],
  ['meta nfproto ipv4', true],
  ['meta pkttype host', true],
  ['iifname "eth0"', true],
  ['iifname "eth*"', true],
  ['iifname "lo"', false],
  ['iif eth0', true],
  ['tcp flags syn', true],
  ['tcp flags & (syn | ack) == syn', true],
  ['tcp flags == ack', false],
  ['ct state new', true],
  ['ct state established,related', false],
  ['ct state != established', true],
  ['ct direction original', true],
  ['ct status dnat', false],
  ['ct mark 0', true],
  ['fib daddr type local', true],
  ['fib saddr type local', false],
  ['fib daddr . iif type local', true],
  ['fib daddr type { unicast, broadcast }', false],
  ['mark 0', true],
  ['mark and 0x4000 == 0', true],
  ['mark and 0x4000 != 0', false],
  ['ip daddr . tcp dport { 192.168.1.10 . 22 }', true],
  ['ip daddr . tcp dport 192.168.1.10 . 23', false],
  ['ip daddr . meta l4proto . th dport { 192.168.1.10 . tcp . 22 }', true],
  ['counter ip saddr 192.168.1.20 log prefix "ok "', true],
  ['mark set 0x10 mark 0x10', true],
];

describe('expressions against one packet', () => {
  for (const [expr, want] of CASES) {
    it(`${expr}: ${want ? 'matches' : 'does not match'}`, () => {
      expect(answered(expr)).toBe(want);
    });
  }
});

describe('verdict statements as the client sees them', () => {
  const outcomeOf = (stmt: string) =>
    simulate(
      lanNetwork({
        nftables: `table ip t {\n  chain input {\n    type filter hook input priority 0;\n    tcp dport 22 ${stmt}\n  }\n}`,
      }),
      { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 22 },
    ).outcome;

  it('reject: ICMP port unreachable; with tcp reset: a reset; with icmpx admin-prohibited', () => {
    expect(outcomeOf('reject')).toMatchObject({ kind: 'refused', via: 'icmp-port-unreachable' });
    expect(outcomeOf('reject with tcp reset')).toMatchObject({ kind: 'refused', via: 'tcp-reset' });
    expect(outcomeOf('reject with icmpx admin-prohibited')).toMatchObject({
      kind: 'refused',
      via: 'icmp-admin-prohibited',
    });
  });

  it('drop: timeout; continue and accept: answered; queue: unsupported', () => {
    expect(outcomeOf('drop').kind).toBe('timeout');
    expect(outcomeOf('continue').kind).toBe('answered');
    expect(outcomeOf('accept').kind).toBe('answered');
    expect(outcomeOf('queue').kind).toBe('unsupported');
  });

  it('jump returns to the next rule, goto does not', () => {
    const net = (via: string) =>
      lanNetwork({
        nftables: `table ip t {
  chain sub {
    tcp dport 23 accept
  }
  chain input {
    type filter hook input priority 0; policy accept;
    ${via} sub
    tcp dport 22 drop
  }
}`,
      });
    const probe = { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 22 } as const;
    expect(simulate(net('jump'), probe).outcome.kind).toBe('timeout');
    expect(simulate(net('goto'), probe).outcome.kind).toBe('answered');
  });
});
