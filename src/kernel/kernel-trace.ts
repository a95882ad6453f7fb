/**
 * The kernel's own rule trace: `xtables-monitor --trace` in a namespace, with nftrace switched
 * on by a separate nft table (`hptrace`, priority -350 at prerouting and output, before raw)
 * so the loaded iptables ruleset stays exactly as written. Parses the monitor's lines into
 * per-hook blocks and maps nft rule handles to 1-based rule positions (the engine's notation).
 */
import { nsRun } from './netns.ts';

export const TRACE_TABLE = 'hptrace';
export const MARK_PORT = 1;

/**
 * Only the packets the comparisons read are traced: SYNs, SYN-ACKs, RSTs and every non-TCP
 * packet (UDP probes, ICMP errors, markers). The ACKs and data of a connection are left out:
 * with a ruleset as long as Felix's, tracing them too overflowed the monitor's netlink socket
 * on a loaded machine (xtables-monitor: "cannot receive from nfnetlink socket: No buffer space
 * available"), and the monitor exits.
 */
const TRACE_RULESET = `table ip ${TRACE_TABLE} {
  chain pre {
    type filter hook prerouting priority -350;
    meta l4proto != tcp meta nftrace set 1
    tcp flags & (syn | rst) != 0 meta nftrace set 1
  }
  chain out {
    type filter hook output priority -350;
    meta l4proto != tcp meta nftrace set 1
    tcp flags & (syn | rst) != 0 meta nftrace set 1
  }
}
`;

/** Adds the trace table to a namespace (it only sets nftrace; it never decides anything). */
export function installTraceTable(ns: string): void {
  nsRun(ns, 'nft', ['-f', '-'], TRACE_RULESET);
}

/** One event of `xtables-monitor --trace`. */
export interface KernelEvent {
  readonly table: string;
  readonly chain: string;
  readonly type: 'rule' | 'return' | 'policy';
  /** nft rule handle (rule events). */
  readonly handle: number | null;
  /** `ACCEPT`, `DROP`, `CONTINUE`, `RETURN`, `JUMP:X`, `GOTO:X`. */
  readonly verdict: string;
  /** The rule as iptables prints it, for reports. */
  readonly text: string;
}

/** One `PACKET:` header and the events of the base chain it precedes (one hook, one table). */
export interface KernelBlock {
  /** nftrace id; not unique over time, and it changes when a packet loops back through lo. */
  readonly traceId: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Bare words: SYN, ACK, RST, FIN, DF, LOOPBACK... */
  readonly flags: ReadonlySet<string>;
  readonly events: KernelEvent[];
  /** Index of the PACKET line in the monitor output. */
  readonly line: number;
}

const PACKET_RE = /^PACKET: \d+ ([0-9a-f]+) (.*)$/;
const TRACE_RE =
  /^\s*TRACE: \d+ ([0-9a-f]+) ([^:\s]+):([^:\s]+):(rule|return|policy):(\S*)\s*(.*)$/;

/** Parses monitor lines (from `from` on) into blocks, dropping events of the trace table. */
export function parseMonitor(lines: readonly string[], from = 0, to = lines.length): KernelBlock[] {
  const blocks: KernelBlock[] = [];
  let cur: KernelBlock | null = null;
  for (let i = from; i < to; i++) {
    const line = lines[i] as string;
    const pm = PACKET_RE.exec(line);
    if (pm) {
      const fields: Record<string, string> = {};
      const flags = new Set<string>();
      for (const tok of (pm[2] as string).trim().split(/\s+/)) {
        const eq = tok.indexOf('=');
        if (eq > 0) fields[tok.slice(0, eq)] = tok.slice(eq + 1);
        else if (tok) flags.add(tok);
      }
      cur = { traceId: pm[1] as string, fields, flags, events: [], line: i };
      blocks.push(cur);
      continue;
    }
    const tm = TRACE_RE.exec(line);
    if (!tm || !cur) continue;
    const [, id, table, chain, type, rest, text] = tm as unknown as string[];
    // An event belongs to the latest block of its trace id, not always to the current one: a
    // REJECT's own verdict is reported after the hooks of the ICMP error or RST it sent
    // (nf_send_unreach runs them synchronously, and the header is dumped once per chain run).
    const owner = cur.traceId === id ? cur : (blocks.findLast((b) => b.traceId === id) ?? cur);
    if (table === TRACE_TABLE) continue;
    let handle: number | null = null;
    let verdict = rest as string;
    if (type === 'rule') {
      const k = (rest as string).indexOf(':');
      handle = parseInt((rest as string).slice(0, k), 16);
      verdict = verdictName((rest as string).slice(k + 1));
    }
    owner.events.push({
      table: table as string,
      chain: chain as string,
      type: type as KernelEvent['type'],
      handle,
      verdict,
      text: (text as string).trim(),
    });
  }
  return blocks;
}

/** nf_tables verdict codes xtables-monitor 1.8.9 prints as numbers (include/uapi/linux/netfilter/nf_tables.h). */
const NFT_VERDICTS: Readonly<Record<string, string>> = {
  '0xffffffff': 'CONTINUE',
  '0xfffffffe': 'BREAK',
  '0xfffffffd': 'JUMP',
  '0xfffffffc': 'GOTO',
  '0xfffffffb': 'RETURN',
};

function verdictName(v: string): string {
  return NFT_VERDICTS[v] ?? v;
}

/** Marker datagrams go to 127.0.0.1:MARK_PORT; their source port is a nonce. */
export function isMarker(b: KernelBlock): boolean {
  return b.fields.DST === '127.0.0.1' && b.fields.DPORT === String(MARK_PORT);
}

export function isMarkerLine(line: string, nonce?: number): boolean {
  if (!line.startsWith('PACKET:') || !line.includes('DST=127.0.0.1 ')) return false;
  const sport = nonce === undefined ? '\\d+' : String(nonce);
  return new RegExp(`SPORT=${sport} DPORT=${MARK_PORT}(\\s|$)`).test(line);
}

/** `table/chain/handle` -> 1-based position of the rule in its chain; also which chains exist. */
export interface HandleMap {
  readonly positions: ReadonlyMap<string, number>;
  /** `table/chain` of every chain the kernel has (iptables-nft creates only declared or used ones). */
  readonly chains: ReadonlySet<string>;
}

interface NftJson {
  nftables: {
    rule?: { family: string; table: string; chain: string; handle: number };
    chain?: { family: string; table: string; name: string };
  }[];
}

/** Reads `nft -j -a list ruleset` in a namespace. */
export function readHandles(ns: string): HandleMap {
  const json = JSON.parse(nsRun(ns, 'nft', ['-j', '-a', 'list', 'ruleset'])) as NftJson;
  const positions = new Map<string, number>();
  const chains = new Set<string>();
  const count = new Map<string, number>();
  for (const item of json.nftables) {
    if (item.chain && item.chain.family === 'ip')
      chains.add(`${item.chain.table}/${item.chain.name}`);
    const r = item.rule;
    if (!r || r.family !== 'ip') continue;
    const key = `${r.table}/${r.chain}`;
    const n = (count.get(key) ?? 0) + 1;
    count.set(key, n);
    positions.set(`${key}/${r.handle}`, n);
  }
  return { positions, chains };
}

/** `nat:KUBE-SERVICES:rule:3:JUMP:KUBE-SVC-X`, the engine's xtablesNotation for a kernel event. */
export function kernelNotation(e: KernelEvent, handles: HandleMap): string {
  if (e.type === 'rule') {
    const pos = handles.positions.get(`${e.table}/${e.chain}/${e.handle}`);
    return `${e.table}:${e.chain}:rule:${pos ?? `handle-0x${(e.handle ?? 0).toString(16)}`}:${e.verdict}`;
  }
  if (e.type === 'return') return `${e.table}:${e.chain}:return:`;
  return `${e.table}:${e.chain}:policy:${e.verdict}`;
}
