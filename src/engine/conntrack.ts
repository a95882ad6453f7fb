/**
 * Connection tracking, as nf_conntrack does it for the parts the lab needs: tuples in both
 * directions, NEW/ESTABLISHED/RELATED/INVALID, NAT bindings recorded once and applied to every
 * later packet and to replies (net/netfilter/nf_conntrack_core.c, nf_nat_core.c).
 */
import type { L4Proto, Packet } from './packet.ts';

export interface Tuple {
  readonly proto: L4Proto;
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
}

export type CtDir = 'original' | 'reply';
export type CtState = 'NEW' | 'ESTABLISHED' | 'RELATED' | 'INVALID' | 'UNTRACKED';

export interface Conn {
  readonly id: number;
  readonly orig: Tuple;
  /** The tuple a reply is expected to carry; NAT bindings rewrite it. */
  reply: Tuple;
  seenReply: boolean;
  confirmed: boolean;
  /** NAT manipulations decided (binding set up, possibly a null binding). */
  srcNatDone: boolean;
  dstNatDone: boolean;
  /** A real rewrite was bound (IPS_SRC_NAT / IPS_DST_NAT). */
  srcNat: boolean;
  dstNat: boolean;
  mark: number;
}

/** What conntrack attached to one packet (skb->_nfct and ctinfo). */
export interface CtInfo {
  readonly conn: Conn | null;
  readonly dir: CtDir;
  readonly state: CtState;
}

/** Set by NOTRACK / CT --notrack in the raw table, or by IPVS without net.ipv4.vs.conntrack. */
export const UNTRACKED: CtInfo = { conn: null, dir: 'original', state: 'UNTRACKED' };

export function tupleOf(p: Packet): Tuple {
  return { proto: p.proto, src: p.src, dst: p.dst, sport: p.sport, dport: p.dport };
}

export function invert(t: Tuple): Tuple {
  return { proto: t.proto, src: t.dst, dst: t.src, sport: t.dport, dport: t.sport };
}

export function tupleKey(t: Tuple): string {
  return `${t.proto}|${t.src}|${t.sport}|${t.dst}|${t.dport}`;
}

export function tupleText(t: Tuple): string {
  const ep = (ip: string, port: number) => (t.proto === 'icmp' ? ip : `${ip}:${port}`);
  return `${t.proto} ${ep(t.src, t.sport)} > ${ep(t.dst, t.dport)}`;
}

/** The per-host (per network namespace) conntrack table. Plain data, so it can be cloned. */
export interface ConntrackTable {
  nextId: number;
  readonly byTuple: Map<string, { connId: number; dir: CtDir }>;
  readonly conns: Map<number, Conn>;
}

export function newConntrackTable(): ConntrackTable {
  return { nextId: 1, byTuple: new Map(), conns: new Map() };
}

export function cloneConntrack(t: ConntrackTable): ConntrackTable {
  const conns = new Map<number, Conn>();
  for (const [id, c] of t.conns) conns.set(id, { ...c });
  return { nextId: t.nextId, byTuple: new Map(t.byTuple), conns };
}

export function lookup(table: ConntrackTable, t: Tuple): { conn: Conn; dir: CtDir } | null {
  const hit = table.byTuple.get(tupleKey(t));
  if (!hit) return null;
  const conn = table.conns.get(hit.connId);
  return conn ? { conn, dir: hit.dir } : null;
}

export function newConn(table: ConntrackTable, t: Tuple): Conn {
  return {
    id: table.nextId++,
    orig: t,
    reply: invert(t),
    seenReply: false,
    confirmed: false,
    srcNatDone: false,
    dstNatDone: false,
    srcNat: false,
    dstNat: false,
    mark: 0,
  };
}

/** Inserts an unconfirmed connection when its first packet leaves the last hook (nf_conntrack_confirm). */
export function confirm(table: ConntrackTable, conn: Conn): boolean {
  if (conn.confirmed) return false;
  conn.confirmed = true;
  table.conns.set(conn.id, conn);
  table.byTuple.set(tupleKey(conn.orig), { connId: conn.id, dir: 'original' });
  table.byTuple.set(tupleKey(conn.reply), { connId: conn.id, dir: 'reply' });
  return true;
}

/**
 * The header a packet of `dir` must carry after NAT: the inverse of the other direction's tuple
 * (nf_nat_packet / nf_nat_manip_pkt).
 */
export function natTarget(conn: Conn, dir: CtDir): Tuple {
  return invert(dir === 'original' ? conn.reply : conn.orig);
}

/** TCP packets that cannot open a connection are INVALID when no entry exists (nf_conntrack_proto_tcp.c, tcp_loose=1). */
export function canCreate(p: Packet): boolean {
  if (p.proto !== 'tcp') {
    if (p.proto === 'icmp') return p.icmpType === 8 || p.icmpType === undefined;
    return true;
  }
  const f = p.flags;
  if (!f) return true;
  if (f.rst) return false;
  if (f.syn && f.ack) return false;
  return true;
}
