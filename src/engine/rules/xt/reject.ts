/**
 * REJECT: drop and answer with an ICMP error or a TCP reset (net/ipv4/netfilter/ipt_REJECT.c).
 * Allowed in INPUT, FORWARD and OUTPUT only.
 */
import { arg, fail, o, option, type TargetExtension } from '../extension.ts';
import type { RejectWith } from '../target-op.ts';

const VALID: readonly RejectWith[] = [
  'icmp-net-unreachable',
  'icmp-host-unreachable',
  'icmp-port-unreachable',
  'icmp-proto-unreachable',
  'icmp-net-prohibited',
  'icmp-host-prohibited',
  'icmp-admin-prohibited',
  'tcp-reset',
];

export const REJECT: TargetExtension = {
  name: 'REJECT',
  supported: true,
  options: { '--reject-with': o(1) },
  place: { hooks: ['INPUT', 'FORWARD', 'OUTPUT'] },
  compile(t, cx) {
    const opt = option(t, '--reject-with');
    let w = opt ? arg(opt) : 'icmp-port-unreachable';
    if (w === 'tcp-rst') w = 'tcp-reset';
    const column = opt?.column ?? t.column;
    if (!(VALID as readonly string[]).includes(w))
      fail(column, `unknown --reject-with '${w}'`, `Use one of ${VALID.join(', ')}.`);
    // ipt_REJECT's checkentry: a reset needs `-p tcp`, not negated.
    if (w === 'tcp-reset' && !cx.protos.some((p) => p.value === 'tcp' && !p.negated))
      fail(column, 'REJECT --reject-with tcp-reset needs -p tcp in the same rule');
    return { kind: 'reject', with: w as RejectWith };
  },
};
