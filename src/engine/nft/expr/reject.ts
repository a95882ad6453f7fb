/**
 * `reject [with icmp|icmpv6|icmpx [type] CODE | with tcp reset]` (net/netfilter/nft_reject*.c).
 * Without `with`, nft picks ICMP port unreachable (icmpx port-unreachable in inet tables):
 * nftables src/evaluate.c, stmt_evaluate_reject_default.
 */
import type { RejectWith } from '../../rules/target-op.ts';
import { fail } from '../cursor.ts';
import type { Stmt } from '../types.ts';
import type { StmtFamily } from './family.ts';

/** nft's ICMP code names (icmp, icmpv6 and icmpx) to the engine's reject kinds. */
const CODES: Readonly<Record<string, RejectWith>> = {
  'net-unreachable': 'icmp-net-unreachable',
  'host-unreachable': 'icmp-host-unreachable',
  'prot-unreachable': 'icmp-proto-unreachable',
  'port-unreachable': 'icmp-port-unreachable',
  'net-prohibited': 'icmp-net-prohibited',
  'host-prohibited': 'icmp-host-prohibited',
  'admin-prohibited': 'icmp-admin-prohibited',
  'no-route': 'icmp-net-unreachable',
  'addr-unreachable': 'icmp-host-unreachable',
};

const reject: StmtFamily = {
  words: ['reject'],
  parse(c): Stmt {
    c.i++;
    if (c.word() !== 'with') {
      return { kind: 'reject', text: 'reject', with: 'icmp-port-unreachable' };
    }
    c.i++;
    const kind = c.word();
    if (kind === 'tcp') {
      if (c.word(1) !== 'reset') fail(c.peek(1) ?? c.here(), "write 'reject with tcp reset'");
      c.i += 2;
      return { kind: 'reject', text: 'reject with tcp reset', with: 'tcp-reset' };
    }
    if (kind !== 'icmp' && kind !== 'icmpv6' && kind !== 'icmpx')
      fail(c.here(), "'reject with' takes icmp, icmpv6, icmpx or tcp reset");
    c.i++;
    if (c.word() === 'type') c.i++;
    const code = c.word() ?? '';
    const w = CODES[code];
    if (!w)
      fail(
        c.here(),
        `'${code}' is not an ICMP reject code`,
        `one of: ${Object.keys(CODES).join(', ')}`,
      );
    c.i++;
    return { kind: 'reject', text: `reject with ${kind} ${code}`, with: w };
  },
};

export const REJECT: readonly StmtFamily[] = [reject];
