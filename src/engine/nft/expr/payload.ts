/**
 * Payload expressions: IPv4/IPv6 header fields, transport ports (`th`, `tcp`, `udp`, `sctp`),
 * TCP flags, ICMP type (nftables src/proto.c, src/payload.c). nft adds a protocol dependency to
 * each (`tcp dport` carries `meta l4proto tcp`; `ip saddr` in an inet table carries `meta
 * nfproto ipv4`), so a field of a header the packet does not have makes the rule not match.
 */
import { ipToNum } from '../../ip.ts';
import { ICMP_DEST_UNREACH } from '../../packet.ts';
import { hasPorts, l4protoNum, type NftCtx } from '../context.ts';
import { fail, unsupported, type Cursor } from '../cursor.ts';
import { TYPES, type DataType, type Val } from '../datatypes.ts';
import type { KeyExpr } from '../types.ts';
import type { KeyFamily } from './family.ts';

function key(text: string, type: DataType, get: (c: NftCtx) => Val | null): KeyExpr {
  return { text, type, get };
}

function addr(c: NftCtx, which: 'src' | 'dst', family: 4 | 6): Val | null {
  if (c.family !== family) return null;
  return ipToNum(which === 'src' ? c.pkt.src : c.pkt.dst);
}

function field(c: Cursor, proto: string): string {
  const f = c.word(1);
  if (f === undefined) fail(c.peek(1) ?? c.peek(), `'${proto}' needs a header field here`);
  c.i += 2;
  return f;
}

const ip: KeyFamily = {
  words: ['ip'],
  parse(c) {
    const at = c.peek();
    const f = field(c, 'ip');
    switch (f) {
      case 'saddr':
        return key('ip saddr', TYPES.ipv4_addr, (x) => addr(x, 'src', 4));
      case 'daddr':
        return key('ip daddr', TYPES.ipv4_addr, (x) => addr(x, 'dst', 4));
      case 'protocol':
        return key('ip protocol', TYPES.inet_proto, (x) =>
          x.family === 4 ? l4protoNum(x.pkt, 4) : null,
        );
      case 'ttl':
        return key('ip ttl', TYPES.ipv4_ttl, (x) => (x.family === 4 ? x.pkt.ttl : null));
      default:
        return unsupported(at, `'ip ${f}'`);
    }
  },
};

const ip6: KeyFamily = {
  words: ['ip6'],
  parse(c) {
    const at = c.peek();
    const f = field(c, 'ip6');
    switch (f) {
      case 'saddr':
        return key('ip6 saddr', TYPES.ipv6_addr, (x) => addr(x, 'src', 6));
      case 'daddr':
        return key('ip6 daddr', TYPES.ipv6_addr, (x) => addr(x, 'dst', 6));
      case 'nexthdr':
        return key('ip6 nexthdr', TYPES.inet_proto, (x) =>
          x.family === 6 ? l4protoNum(x.pkt, 6) : null,
        );
      case 'hoplimit':
        return key('ip6 hoplimit', TYPES.ipv4_ttl, (x) => (x.family === 6 ? x.pkt.ttl : null));
      default:
        return unsupported(at, `'ip6 ${f}'`);
    }
  },
};

/** `th` reads ports at the transport header of any protocol that has them. */
const transport: KeyFamily = {
  words: ['th', 'tcp', 'udp', 'sctp', 'udplite'],
  parse(c) {
    const at = c.peek();
    const proto = at?.text as string;
    const f = field(c, proto);
    const wants = (x: NftCtx) => (proto === 'th' ? hasPorts(x.pkt) : x.pkt.proto === proto);
    if (f === 'sport' || f === 'dport') {
      const which = f;
      return key(`${proto} ${f}`, TYPES.inet_service, (x) =>
        wants(x) ? (which === 'sport' ? x.pkt.sport : x.pkt.dport) : null,
      );
    }
    if (proto === 'tcp' && f === 'flags') {
      return key('tcp flags', TYPES.tcp_flag, (x) => {
        if (x.pkt.proto !== 'tcp') return null;
        const fl = x.pkt.flags;
        if (!fl) return 0;
        return (
          (fl.fin ? 1 : 0) |
          (fl.syn ? 2 : 0) |
          (fl.rst ? 4 : 0) |
          (fl.psh ? 8 : 0) |
          (fl.ack ? 16 : 0) |
          (fl.urg ? 32 : 0)
        );
      });
    }
    return unsupported(at, `'${proto} ${f}'`);
  },
};

const icmp: KeyFamily = {
  words: ['icmp', 'icmpv6'],
  parse(c) {
    const at = c.peek();
    const proto = at?.text as string;
    const f = field(c, proto);
    const fam = proto === 'icmp' ? 4 : 6;
    if (f === 'type')
      return key(`${proto} type`, TYPES.icmp_type, (x) =>
        x.pkt.proto === 'icmp' && x.family === fam ? (x.pkt.icmpType ?? 8) : null,
      );
    if (f === 'code')
      return key(`${proto} code`, TYPES.icmp_code, (x) =>
        x.pkt.proto === 'icmp' && x.family === fam
          ? x.pkt.icmpType === ICMP_DEST_UNREACH
            ? (x.pkt.icmpCode ?? 0)
            : 0
          : null,
      );
    return unsupported(at, `'${proto} ${f}'`);
  },
};

export const PAYLOAD: readonly KeyFamily[] = [ip, ip6, transport, icmp];
