/**
 * NAT targets naming a port need a protocol with ports in the same rule. iptables-restore 1.8.9
 * refuses such rules ("Need TCP, UDP, SCTP or DCCP with port specification"), found while loading
 * rules into a real kernel (src/kernel); the engine must not run what the kernel never gets.
 */
import { describe, expect, it } from 'vitest';
import { parseRuleset } from './parse.ts';

function errors(rule: string): string[] {
  const text = `*nat\n:PREROUTING ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n${rule}\nCOMMIT\n`;
  return parseRuleset(text)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => d.message);
}

describe('NAT to a port needs -p tcp|udp|sctp|dccp', () => {
  it.each([
    ['-A PREROUTING -j DNAT --to-destination 10.0.0.1:80', 'DNAT'],
    ['-A PREROUTING -j DNAT --to-destination :22', 'DNAT'],
    ['-A PREROUTING -j REDIRECT --to-ports 22', 'REDIRECT'],
    ['-A POSTROUTING -j MASQUERADE --to-ports 6000-6100', 'MASQUERADE'],
    ['-A POSTROUTING -j SNAT --to-source 10.0.2.1:5000-5010', 'SNAT'],
    ['-A PREROUTING -p gre -j REDIRECT --to-ports 22', 'REDIRECT'],
    ['-A PREROUTING -p all -j DNAT --to-destination 10.0.0.1:80', 'DNAT'],
  ])('%s is refused', (rule, target) => {
    expect(errors(rule)).toEqual([
      `${target} to a port needs -p tcp, udp, sctp or dccp in the same rule`,
    ]);
  });

  it.each([
    '-A PREROUTING -p tcp -j DNAT --to-destination 10.0.0.1:80',
    '-A PREROUTING -p udp -j REDIRECT --to-ports 53',
    '-A POSTROUTING -p sctp -j MASQUERADE --to-ports 6000-6100',
    // iptables reads only the protocol number, not the `!`, and lets ICMP through.
    '-A POSTROUTING -p icmp -j SNAT --to-source 1.2.3.4:5',
    '-A PREROUTING ! -p tcp -j DNAT --to-destination 10.0.0.1:80',
    '-A PREROUTING -j DNAT --to-destination 10.0.0.1',
    '-A POSTROUTING -j SNAT --to-source 10.0.2.1',
    '-A POSTROUTING -j MASQUERADE',
  ])('%s is accepted', (rule) => {
    expect(errors(rule)).toEqual([]);
  });
});
