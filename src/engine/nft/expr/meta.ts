/**
 * Meta expressions (nftables src/meta.c, net/netfilter/nft_meta.c): the skb mark, the L4
 * protocol, interfaces, the family, the packet type, nftrace. `mark`, `iifname`... may be
 * written without `meta`, as nft lists them.
 */
import { isMulticastOrBroadcast } from '../../ip.ts';
import { l4protoNum, type NftCtx } from '../context.ts';
import { fail, unsupported } from '../cursor.ts';
import { TYPES, type DataType, type Val } from '../datatypes.ts';
import type { KeyExpr } from '../types.ts';
import type { KeyFamily } from './family.ts';

type Get = (c: NftCtx) => Val | null;

const KEYS: Readonly<Record<string, { type: DataType; get: Get; writable?: 'mark' | 'nftrace' }>> =
  {
    mark: { type: TYPES.mark, get: (c) => c.pkt.mark >>> 0, writable: 'mark' },
    l4proto: { type: TYPES.inet_proto, get: (c) => l4protoNum(c.pkt, c.family) },
    nfproto: { type: TYPES.nf_proto, get: (c) => (c.family === 4 ? 2 : 10) },
    iifname: { type: TYPES.ifname, get: (c) => c.inIf },
    oifname: { type: TYPES.ifname, get: (c) => c.outIf },
    // iif/oif compare interface indexes; the lab has names, which is what they resolve from.
    iif: { type: TYPES.iface_index, get: (c) => c.inIf },
    oif: { type: TYPES.iface_index, get: (c) => c.outIf },
    pkttype: {
      type: TYPES.pkt_type,
      // The lab's packets are unicast unless addressed to a multicast or broadcast address.
      get: (c) => (isMulticastOrBroadcast(c.pkt.dst) ? 2 : c.inIf === null ? null : 0),
    },
    nftrace: { type: TYPES.integer, get: () => 0, writable: 'nftrace' },
  };

/** Meta keys that nft lists without the `meta` keyword. */
const UNQUALIFIED = ['mark', 'iifname', 'oifname', 'iif', 'oif', 'l4proto', 'nfproto', 'pkttype'];

const meta: KeyFamily = {
  words: ['meta', ...UNQUALIFIED],
  parse(c): KeyExpr {
    const at = c.peek();
    let name = at?.text as string;
    if (name === 'meta') {
      const k = c.word(1);
      if (k === undefined)
        fail(c.peek(1) ?? at, "'meta' needs a key here, such as mark or l4proto");
      name = k;
      c.i++;
    }
    c.i++;
    const def = KEYS[name];
    if (!def) return unsupported(at, `'meta ${name}'`);
    return {
      text: UNQUALIFIED.includes(name) ? name : `meta ${name}`,
      type: def.type,
      get: def.get,
      ...(def.writable ? { writable: def.writable } : {}),
    };
  },
};

export const META: readonly KeyFamily[] = [meta];
