/**
 * Verdict statements (include/uapi/linux/netfilter/nf_tables.h NFT_JUMP, NFT_GOTO, NFT_RETURN,
 * NFT_CONTINUE, NF_ACCEPT, NF_DROP, NF_QUEUE). `queue` hands the packet to a userspace
 * program the lab does not have: reaching it is an unsupported step.
 */
import { unsupported } from '../cursor.ts';
import type { Stmt } from '../types.ts';
import type { StmtFamily } from './family.ts';

const verdict: StmtFamily = {
  words: ['accept', 'drop', 'continue', 'return', 'jump', 'goto', 'queue'],
  parse(c, r): Stmt {
    const at = c.peek();
    if (at?.text === 'queue') {
      c.i = c.end;
      unsupported(at, 'queue (the packet goes to a userspace program)');
    }
    const v = r.verdict(c);
    const text = v.code === 'jump' || v.code === 'goto' ? `${v.code} ${v.chain}` : v.code;
    return { kind: 'verdict', text, verdict: v };
  },
};

export const VERDICTS: readonly StmtFamily[] = [verdict];
