/**
 * The kernel's nftables trace: `nft -a monitor trace` in a namespace (nftrace switched on by the
 * separate `hptrace` table, so the ruleset under test stays as written). Its lines
 *
 *   trace id 68bdd192 ip t nat-out packet: oif "lo" ip saddr 127.0.0.1 ... tcp flags == syn
 *   trace id 68bdd192 ip t nat-out rule jump sub # handle 14 (verdict jump sub)
 *   trace id 68bdd192 ip t filt policy accept meta mark 0x00004000
 *
 * (nftables src/netlink.c, netlink_events_trace) become the same blocks as xtables-monitor's
 * (one per base chain run), so selectPackets picks the probe's packets from either. Rules of
 * native nft tables are named by handle, which the engine allocates as the kernel does; rules
 * of iptables-nft tables by their position, as xtables-monitor's are.
 */
import type { TraceEvent } from '../engine/index.ts';
import type { HandleMap, KernelBlock, KernelEvent } from './kernel-trace.ts';
import { MARK_PORT, TRACE_TABLE } from './kernel-trace.ts';

const LINE_RE = /^trace id ([0-9a-f]+) (\S+) (\S+) (\S+) (packet: |rule |policy |verdict )(.*)$/;
const RULE_RE = /^(.*?)(?: # handle (\d+))? \(verdict ([^)]*)\)/;
/** Tables iptables-nft keeps in family ip: their rules are compared by position. */
const XT_TABLES = new Set(['raw', 'mangle', 'nat', 'filter', 'security']);

const TCP_BITS: Readonly<Record<string, number>> = {
  fin: 1,
  syn: 2,
  rst: 4,
  psh: 8,
  ack: 16,
  urg: 32,
};

/** The packet line's fields under xtables-monitor's names (SRC, DST, SPORT, ID, IN...). */
function packetFields(text: string): { fields: Record<string, string>; flags: Set<string> } {
  const fields: Record<string, string> = {};
  const flags = new Set<string>();
  const w = text.trim().split(/\s+/);
  for (let i = 0; i < w.length; i++) {
    const a = w[i] as string;
    const b = w[i + 1] ?? '';
    const v = (w[i + 2] ?? '').replace(/"/g, '');
    if (a === 'iif') fields.IN = b.replace(/"/g, '');
    else if (a === 'oif') fields.OUT = b.replace(/"/g, '');
    else if ((a === 'ip' || a === 'ip6') && b === 'saddr') fields.SRC = v;
    else if ((a === 'ip' || a === 'ip6') && b === 'daddr') fields.DST = v;
    else if (a === 'ip' && b === 'id') fields.ID = v;
    else if ((a === 'tcp' || a === 'udp' || a === 'sctp') && b === 'sport') fields.SPORT = v;
    else if ((a === 'tcp' || a === 'udp' || a === 'sctp') && b === 'dport') fields.DPORT = v;
    // `icmp type redirect`: nft names the type (xtables-monitor does not), see isIcmpError.
    else if (a === 'icmp' && b === 'type') fields.ICMPTYPE = w[i + 2] ?? '';
    else if (a === 'tcp' && b === 'flags' && v === '==') {
      // `tcp flags == syn`, `== syn | ack`, or a number: `== 0x14`.
      let bits = 0;
      for (let j = i + 3; j < w.length; j++) {
        const x = w[j] as string;
        if (x === '|') continue;
        if (/^0x[0-9a-f]+$/.test(x)) bits |= parseInt(x, 16);
        else if (TCP_BITS[x] !== undefined) bits |= TCP_BITS[x] as number;
        else break;
      }
      for (const [name, bit] of Object.entries(TCP_BITS))
        if (bits & bit) flags.add(name.toUpperCase());
    }
  }
  if (fields.ID === undefined) fields.ID = '0';
  return { fields, flags };
}

/** An nft trace event; `family` says which table the name belongs to. */
export interface NftKernelEvent extends KernelEvent {
  readonly family: string;
}

/** Parses monitor lines [from, to) into per-chain blocks, leaving out the trace table's. */
export function parseNftMonitor(
  lines: readonly string[],
  from = 0,
  to = lines.length,
): KernelBlock[] {
  const blocks: KernelBlock[] = [];
  let cur: KernelBlock | null = null;
  for (let i = from; i < to; i++) {
    const m = LINE_RE.exec(lines[i] as string);
    if (!m) continue;
    const [, id, family, table, chain, kind, rest] = m as unknown as string[];
    if (table === TRACE_TABLE) continue;
    if (kind === 'packet: ') {
      const { fields, flags } = packetFields(rest as string);
      cur = { traceId: id as string, fields, flags, events: [], line: i };
      blocks.push(cur);
      continue;
    }
    // A REJECT's verdict is reported after the hooks of the RST or ICMP error it sent: the
    // event belongs to the latest block of its own trace id (as in kernel-trace.ts).
    const owner: KernelBlock | null =
      cur && cur.traceId === id ? cur : (blocks.findLast((b) => b.traceId === id) ?? cur);
    if (!owner) continue;
    let ev: NftKernelEvent;
    if (kind === 'rule ') {
      const r = RULE_RE.exec(rest as string);
      if (!r) continue;
      ev = {
        family: family as string,
        table: table as string,
        chain: chain as string,
        type: 'rule',
        handle: r[2] !== undefined ? Number(r[2]) : null,
        verdict: r[3] as string,
        text: r[1] as string,
      };
    } else if (kind === 'policy ') {
      ev = {
        family: family as string,
        table: table as string,
        chain: chain as string,
        type: 'policy',
        handle: null,
        verdict: (rest as string).split(/\s+/)[0] as string,
        text: '',
      };
    } else continue;
    owner.events.push(ev);
  }
  return blocks;
}

/** The monitor printed the marker datagram with this nonce (see kernel-trace.ts). */
export function isNftMarkerLine(line: string, nonce?: number): boolean {
  if (!line.includes(' packet: ') || !line.includes('ip daddr 127.0.0.1 ')) return false;
  const sport = nonce === undefined ? '\\d+' : String(nonce);
  return new RegExp(`udp sport ${sport} udp dport ${MARK_PORT}(\\s|$)`).test(line);
}

function isXt(family: string, table: string): boolean {
  return family === 'ip' && XT_TABLES.has(table);
}

/** `ip kube-proxy services rule 41 goto service-web`, `ip filter INPUT rule @2 drop`. */
export function nftKernelNotation(e: KernelEvent, handles: HandleMap): string {
  const family = 'family' in e ? String(e.family) : 'ip';
  const where = `${family} ${e.table} ${e.chain}`;
  if (e.type === 'policy') return `${where} policy ${e.verdict}`;
  if (isXt(family, e.table)) {
    const pos = handles.positions.get(`${e.table}/${e.chain}/${e.handle}`);
    return `${where} rule @${pos ?? `handle-${e.handle ?? 0}`} ${e.verdict}`;
  }
  return `${where} rule ${e.handle ?? 0} ${e.verdict}`;
}

/** nft's verdict words for an iptables step (REJECT drops; DNAT, MASQUERADE accept). */
function xtVerdict(e: Extract<TraceEvent, { type: 'rule' }>): string {
  switch (e.verdict) {
    case 'JUMP':
      return `jump ${e.target ?? ''}`;
    case 'GOTO':
      return `goto ${e.target ?? ''}`;
    default:
      return e.verdict.toLowerCase();
  }
}

/**
 * The engine's steps of one host and packet in the same notation. Left out, as the kernel shows
 * nothing for them: the end of a regular chain (`return` events), misses, and the policy of an
 * iptables chain the dump did not declare (iptables-nft never created it).
 */
export function engineNftSequence(
  events: readonly TraceEvent[],
  host: string,
  packetId: number,
  handles: HandleMap,
): { seq: string[]; skipped: string[] } {
  const seq: string[] = [];
  const skipped: string[] = [];
  let implicit = false;
  for (const e of events) {
    if (e.host !== host || e.packetId !== packetId) continue;
    if (e.type === 'hook') implicit = e.implicit;
    if (e.type !== 'rule' && e.type !== 'policy') {
      if (e.type === 'return') skipped.push(`${e.table}:${e.chain}:return (implicit end of chain)`);
      continue;
    }
    const n = e.nft;
    if (n) {
      const where = `${n.family} ${n.table} ${n.chain}`;
      seq.push(
        e.type === 'policy'
          ? `${where} policy ${e.verdict.toLowerCase()}`
          : `${where} rule ${n.handle ?? 0} ${n.verdict ?? 'continue'}`,
      );
      continue;
    }
    if (e.packet.dst.includes(':')) continue;
    const where = `ip ${e.table} ${e.chain}`;
    if (e.type === 'policy') {
      if (implicit && !handles.chains.has(`${e.table}/${e.chain}`))
        skipped.push(`${where} policy (chain not declared, absent in iptables-nft)`);
      else seq.push(`${where} policy ${e.verdict.toLowerCase()}`);
    } else seq.push(`${where} rule @${e.rule} ${xtVerdict(e)}`);
  }
  return { seq, skipped };
}
