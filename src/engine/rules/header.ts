/**
 * The IP header part of every rule, as the kernel keeps it in `struct ipt_ip` (addresses with
 * masks, protocol, interfaces, inversion flags) and checks it in ip_packet_match before any
 * extension: one Int32Array per table, a few integers per rule, instead of one closure per
 * option. The port ranges of a leading tcp/udp/sctp match sit here too (kube-proxy's
 * `-p tcp -m tcp --dport 80` is on most of its rules).
 */
import { cidrContainsNum, type Cidr } from '../ip.ts';
import type { MatchCtx } from '../match-context.ts';

/** Integers per rule: flags, src, src mask, dst, dst mask, proto, in, out, l4 proto, sport, dport. */
const STRIDE = 11;
/** A rule's header is at `id * HEADER_STRIDE`: rule ids count the headers added. */
export const HEADER_STRIDE = STRIDE;
const FLAGS = 0;
const SRC = 1;
const DST = 3;
const PROTO = 5;
const IN = 6;
const OUT = 7;
const L4 = 8;
const SPORT = 9;
/** The row columns that hold an id (interned in the store) when exportRow's ref of that name is set. */
export const HEADER_ID_COLUMNS = { in: IN, out: OUT, src6: SRC, dst6: DST } as const;
const DPORT = 10;

const F_SRC = 1 << 0;
const F_SRC_INV = 1 << 1;
const F_DST = 1 << 2;
const F_DST_INV = 1 << 3;
const F_PROTO = 1 << 4;
const F_PROTO_INV = 1 << 5;
const F_IN = 1 << 6;
const F_IN_INV = 1 << 7;
const F_IN_PLUS = 1 << 8;
const F_OUT = 1 << 9;
const F_OUT_INV = 1 << 10;
const F_OUT_PLUS = 1 << 11;
const F_L4 = 1 << 12;
const F_SPORT = 1 << 13;
const F_SPORT_INV = 1 << 14;
const F_DPORT = 1 << 15;
const F_DPORT_INV = 1 << 16;
/** `-f` (the lab has no fragments) or `! -p all`: the rule never matches. */
const F_NEVER = 1 << 17;

/** Protocol number of a packet's protocol name; -2 for none. */
export function protoNumber(name: string): number {
  return name === 'tcp'
    ? 6
    : name === 'udp'
      ? 17
      : name === 'icmp'
        ? 1
        : name === 'sctp'
          ? 132
          : -2;
}

/** What a header's integers name, by value: see HeaderStore.exportRow. */
export interface HeaderRefs {
  readonly in: string | null;
  readonly out: string | null;
  readonly src6: Cidr | null;
  readonly dst6: Cidr | null;
}

/** The header matches of one table's rules. */
export class HeaderStore {
  private data: Int32Array;
  private count = 0;
  /** Interface names (without a trailing `+`), by id - 1. */
  private readonly ifaces: string[] = [];
  private readonly ifaceIds = new Map<string, number>();
  /** IPv6 prefixes, by id - 1 (an IPv6 rule's SRC/DST column holds the id). */
  private readonly cidrs6: Cidr[] = [];

  /** `capacity`: the rules expected (it grows past them). */
  constructor(
    readonly family: 4 | 6,
    capacity = 64,
  ) {
    this.data = new Int32Array(STRIDE * Math.max(capacity, 64));
  }

  /** A new rule's header: matches every packet until something is set. */
  add(): number {
    if ((this.count + 1) * STRIDE > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    // Slots past `count` are zero: fresh memory, or cleared by dropLast.
    return this.count++ * STRIDE;
  }

  /** Forgets the last header added (its rule did not compile). */
  dropLast(at: number): void {
    if (at !== (this.count - 1) * STRIDE) return;
    this.count--;
    for (let k = 0; k < STRIDE; k++) this.data[at + k] = 0;
  }

  private flag(at: number, f: number): void {
    this.data[at + FLAGS] = (this.data[at + FLAGS] as number) | f;
  }

  private has(at: number, f: number): boolean {
    return ((this.data[at + FLAGS] as number) & f) !== 0;
  }

  /** `-s` / `-d` of an IPv4 rule. False when the rule already has one (the caller keeps a closure). */
  setAddr4(at: number, which: 'src' | 'dst', addr: number, prefix: number, neg: boolean): boolean {
    const src = which === 'src';
    const f = src ? F_SRC : F_DST;
    if (this.has(at, f)) return false;
    const col = src ? SRC : DST;
    this.data[at + col] = addr | 0;
    this.data[at + col + 1] = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) | 0;
    this.flag(at, neg ? f | (src ? F_SRC_INV : F_DST_INV) : f);
    return true;
  }

  /** `-s` / `-d` of an IPv6 rule. */
  setAddr6(at: number, which: 'src' | 'dst', c: Cidr, neg: boolean): boolean {
    const src = which === 'src';
    const f = src ? F_SRC : F_DST;
    if (this.has(at, f)) return false;
    this.data[at + (src ? SRC : DST)] = this.cidrs6.push(c);
    this.flag(at, neg ? f | (src ? F_SRC_INV : F_DST_INV) : f);
    return true;
  }

  /** `-p`: a protocol number (-1 for one no packet of the lab has), or `all`. */
  setProto(at: number, proto: number | 'all', negated: boolean): boolean {
    if (this.has(at, F_PROTO)) return false;
    if (proto === 'all') {
      if (negated) this.flag(at, F_NEVER);
      // Marked so a second -p falls back to a closure, as a first one did before.
      this.flag(at, F_PROTO);
      this.data[at + PROTO] = 0;
      return true;
    }
    this.data[at + PROTO] = proto;
    this.flag(at, negated ? F_PROTO | F_PROTO_INV : F_PROTO);
    return true;
  }

  /** `-i` / `-o`; a trailing `+` matches every interface whose name starts with the rest. */
  setIface(at: number, which: 'in' | 'out', name: string, negated: boolean): boolean {
    const [f, inv, plus, col] =
      which === 'in' ? [F_IN, F_IN_INV, F_IN_PLUS, IN] : [F_OUT, F_OUT_INV, F_OUT_PLUS, OUT];
    if (this.has(at, f)) return false;
    const wild = name.endsWith('+');
    const key = wild ? name.slice(0, -1) : name;
    this.data[at + col] = this.ifaceId(key);
    this.flag(at, f | (negated ? inv : 0) | (wild ? plus : 0));
    return true;
  }

  /** `-f`: the lab's packets are never fragments, so only `! -f` can match. */
  setFragment(at: number, negated: boolean): void {
    if (!negated) this.flag(at, F_NEVER);
  }

  /** The protocol and ports of a tcp/udp/sctp match. False when the rule already has them. */
  setPorts(
    at: number,
    proto: number,
    sport: { lo: number; hi: number; negated: boolean } | null,
    dport: { lo: number; hi: number; negated: boolean } | null,
  ): boolean {
    if (this.has(at, F_L4)) return false;
    this.data[at + L4] = proto;
    let f = F_L4;
    if (sport) {
      this.data[at + SPORT] = sport.lo | (sport.hi << 16);
      f |= F_SPORT | (sport.negated ? F_SPORT_INV : 0);
    }
    if (dport) {
      this.data[at + DPORT] = dport.lo | (dport.hi << 16);
      f |= F_DPORT | (dport.negated ? F_DPORT_INV : 0);
    }
    this.flag(at, f);
    return true;
  }

  /**
   * Copies the header at `at` into `into` (STRIDE integers from `off`); returns what the integers
   * name rather than hold (interface names, IPv6 prefixes are ids in this store), or null when
   * the header has none. importRow writes it back into another store of the same family.
   */
  exportRow(at: number, into: Int32Array, off: number): HeaderRefs | null {
    const d = this.data;
    for (let k = 0; k < STRIDE; k++) into[off + k] = d[at + k] as number;
    const f = d[at + FLAGS] as number;
    const v6 = this.family === 6;
    if (!(f & (F_IN | F_OUT)) && !(v6 && f & (F_SRC | F_DST))) return null;
    const iface = (flag: number, col: number) =>
      f & flag ? (this.ifaces[(d[at + col] as number) - 1] as string) : null;
    const cidr = (flag: number, col: number) =>
      v6 && f & flag ? (this.cidrs6[(d[at + col] as number) - 1] as Cidr) : null;
    return {
      in: iface(F_IN, IN),
      out: iface(F_OUT, OUT),
      src6: cidr(F_SRC, SRC),
      dst6: cidr(F_DST, DST),
    };
  }

  /** Writes a header exported by exportRow at `at` (a slot just added). */
  importRow(at: number, from: Int32Array, off: number, refs: HeaderRefs | null): void {
    const d = this.data;
    for (let k = 0; k < STRIDE; k++) d[at + k] = from[off + k] as number;
    if (refs === null) return;
    // Ids in the order the rule's options gave them (the lower id of the exported row first).
    const inFirst = refs.out === null || (from[off + IN] as number) < (from[off + OUT] as number);
    if (refs.in !== null && inFirst) d[at + IN] = this.ifaceId(refs.in);
    if (refs.out !== null) d[at + OUT] = this.ifaceId(refs.out);
    if (refs.in !== null && !inFirst) d[at + IN] = this.ifaceId(refs.in);
    const srcFirst =
      refs.dst6 === null || (from[off + SRC] as number) < (from[off + DST] as number);
    if (refs.src6 !== null && srcFirst) d[at + SRC] = this.cidrs6.push(refs.src6);
    if (refs.dst6 !== null) d[at + DST] = this.cidrs6.push(refs.dst6);
    if (refs.src6 !== null && !srcFirst) d[at + SRC] = this.cidrs6.push(refs.src6);
  }

  private ifaceId(key: string): number {
    let id = this.ifaceIds.get(key);
    if (id === undefined) {
      id = this.ifaces.push(key);
      this.ifaceIds.set(key, id);
    }
    return id;
  }

  /** ip_packet_match, plus the hoisted ports. */
  matches(at: number, c: MatchCtx): boolean {
    const d = this.data;
    const f = d[at + FLAGS] as number;
    if (f === 0) return true;
    if (f & F_NEVER) return false;
    if (f & F_SRC && this.addrHit(at + SRC, c.srcNum) === ((f & F_SRC_INV) !== 0)) return false;
    if (f & F_DST && this.addrHit(at + DST, c.dstNum) === ((f & F_DST_INV) !== 0)) return false;
    if (f & F_PROTO && d[at + PROTO] !== 0) {
      if ((c.protoNum === d[at + PROTO]) === ((f & F_PROTO_INV) !== 0)) return false;
    }
    if (
      f & F_IN &&
      this.ifaceHit(d[at + IN] as number, f & F_IN_PLUS, c.inIf) === ((f & F_IN_INV) !== 0)
    )
      return false;
    if (
      f & F_OUT &&
      this.ifaceHit(d[at + OUT] as number, f & F_OUT_PLUS, c.outIf) === ((f & F_OUT_INV) !== 0)
    )
      return false;
    if (f & F_L4) {
      if (c.protoNum !== d[at + L4]) return false;
      if (
        f & F_SPORT &&
        portHit(d[at + SPORT] as number, c.pkt.sport) === ((f & F_SPORT_INV) !== 0)
      )
        return false;
      if (
        f & F_DPORT &&
        portHit(d[at + DPORT] as number, c.pkt.dport) === ((f & F_DPORT_INV) !== 0)
      )
        return false;
    }
    return true;
  }

  private addrHit(col: number, ip: number | bigint | null): boolean {
    if (this.family === 4)
      return typeof ip === 'number' && (ip & (this.data[col + 1] as number)) === this.data[col];
    const c = this.cidrs6[(this.data[col] as number) - 1] as Cidr;
    return ip !== null && cidrContainsNum(c, ip);
  }

  private ifaceHit(id: number, wild: number, actual: string | null): boolean {
    const name = this.ifaces[id - 1] as string;
    if (actual === null) return false;
    return wild ? actual.startsWith(name) : actual === name;
  }
}

function portHit(range: number, port: number): boolean {
  return port >= (range & 0xffff) && port <= range >>> 16;
}
