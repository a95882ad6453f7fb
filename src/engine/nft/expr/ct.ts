/**
 * Conntrack expressions (net/netfilter/nft_ct.c): state, status, direction and mark of the
 * packet's connection. An untracked packet has state `untracked`; one conntrack has not seen
 * yet (raw priority) or could not track is `invalid` (nft_ct_get_eval_state).
 */
import { fail, unsupported } from '../cursor.ts';
import { CT_STATE, TYPES } from '../datatypes.ts';
import type { NftCtx } from '../context.ts';
import type { KeyExpr } from '../types.ts';
import type { KeyFamily } from './family.ts';

function stateBits(c: NftCtx): number {
  switch (c.ct.state) {
    case 'NEW':
      return CT_STATE.new as number;
    case 'ESTABLISHED':
      return CT_STATE.established as number;
    case 'RELATED':
      return CT_STATE.related as number;
    case 'UNTRACKED':
      return CT_STATE.untracked as number;
    case 'INVALID':
      return CT_STATE.invalid as number;
  }
}

function statusBits(c: NftCtx): number | null {
  const conn = c.ct.conn;
  if (!conn) return null;
  return (
    (conn.seenReply ? 2 : 0) |
    (conn.confirmed ? 8 : 0) |
    (conn.srcNat ? 16 : 0) |
    (conn.dstNat ? 32 : 0)
  );
}

const ct: KeyFamily = {
  words: ['ct'],
  parse(c, r): KeyExpr {
    const at = c.peek();
    const k = c.word(1);
    if (k === undefined) fail(c.peek(1) ?? at, "'ct' needs a key here, such as state or mark");
    c.i += 2;
    r.usesConntrack();
    switch (k) {
      case 'state':
        return { text: 'ct state', type: TYPES.ct_state, get: stateBits, usesCt: true };
      case 'status':
        return { text: 'ct status', type: TYPES.ct_status, get: statusBits, usesCt: true };
      case 'direction':
        return {
          text: 'ct direction',
          type: TYPES.ct_dir,
          get: (x) => (x.ct.conn ? (x.ct.dir === 'original' ? 0 : 1) : null),
          usesCt: true,
        };
      case 'mark':
        return {
          text: 'ct mark',
          type: TYPES.mark,
          get: (x) => (x.ct.conn ? x.ct.conn.mark >>> 0 : null),
          writable: 'ctmark',
          usesCt: true,
        };
      default:
        return unsupported(at, `'ct ${k}'`);
    }
  },
};

export const CT: readonly KeyFamily[] = [ct];
