/**
 * pwru (cilium/pwru) output: one line per kernel function an skb passed through. It names
 * functions, not rules: the packets become stages (stages.ts), never steps.
 *
 * Text (internal/pwru/output.go output.Print, PrintHeader; since pwru 1.0.7 the columns are
 * `SKB CPU PROCESS [TIMESTAMP] [NETNS MARK/x IFACE PROTO MTU LEN] [TUPLE] FUNC [CALLER]`):
 *
 *   0xffff8b7f0331f800 0   ~/bin/ping:18515 4026531840 0               0         0x0800 1500  84    192.168.232.62:0->8.8.8.8:0(icmp) nf_hook_slow
 *
 * older releases printed `SKB CPU [PROCESS] FUNC netns=... mark=... 10.0.0.1:1->10.0.0.2:80(tcp)`
 * (cilium/pwru#148, #194). `--output-json` (output.PrintJson, jsonPrinter) prints an object a
 * line: `{"skb":"0xffff...","cpu":0,"process":"...","func":"ip_rcv","netns":4026531840,
 * "iface":"eth0:2","tuple":{"saddr":"10.0.0.1","daddr":"10.0.0.2","sport":40100,"dport":80,
 * "proto":6,"flags":"SYN"}}`. kfree_skb_reason and sk_skb_reason_drop carry their reason:
 * `kfree_skb_reason(SKB_DROP_REASON_NETFILTER_DROP)`, or `kfree_skb_reason (5)` when pwru
 * cannot name it (getOutFuncName). Tuples print IPv6 addresses in brackets (addrToStr) and TCP
 * flags as `SYN|ACK` (tcpFlag.String).
 *
 * Packets are grouped by skb address and network namespace (a pod's namespace is its own lab
 * host); an address seen again after its skb was freed is a new packet.
 */
import { PacketCollector } from './collect.ts';
import { baseFunc } from './stages.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { ParsedTrace } from './types.ts';
import { traceError, type TraceProblem } from '../replay-errors.ts';

const LINE_RE = /^\s*(?:\d{4}-\d\d-\d\dT[\d:.]+\s+)?(0x[0-9a-f]+)\s+(\d+)\s+(\S+)(.*)$/;
const TUPLE_RE = /^(\[[^\]]*\]|[^:\s]*):(\d+)->(\[[^\]]*\]|[^:\s]*):(\d+)\(([^)]*)\)$/;
const FUNC_RE = /^[A-Za-z_][\w.]*(?:\([A-Z0-9_]*\))?(?:\((?:tc|xdp)\))?$/;
const FREES =
  /^(kfree_skb|consume_skb|__kfree_skb|kfree_skbmem|napi_consume_skb|skb_release_|skb_free_head|sk_skb_reason_drop|__consume_stateless_skb|skb_attempt_defer_free|napi_skb_cache_put)/;
const PROTOS: Readonly<Record<string, string>> = {
  '1': 'icmp',
  '6': 'tcp',
  '17': 'udp',
  '58': 'icmp6',
};

export function looksLikePwru(lines: readonly string[]): boolean {
  return lines.some(
    (l) =>
      /^\s*(?:\d{4}-\d\d-\d\dT[\d:.]+\s+)?0x[0-9a-f]{8,}\s+\d+\s+\S/.test(l) ||
      (/"skb"\s*:\s*"0x/.test(l) && /"func"\s*:/.test(l)),
  );
}

interface Event {
  skb: string;
  netns: string | null;
  func: string;
  reason: string | null;
  fields: Record<string, string>;
}

const unbracket = (a: string) => a.replace(/^\[|\]$/g, '');

type TupleText = Partial<
  Record<'saddr' | 'daddr' | 'sport' | 'dport' | 'proto' | 'flags', string | undefined>
>;

function tupleFields(t: TupleText): Record<string, string> {
  const f: Record<string, string> = {};
  if (t.saddr) f.SRC = unbracket(t.saddr);
  if (t.daddr) f.DST = unbracket(t.daddr);
  if (t.proto) f.PROTO = PROTOS[t.proto] ?? t.proto;
  if (t.sport && t.sport !== '0') f.SPORT = t.sport;
  if (t.dport && t.dport !== '0') f.DPORT = t.dport;
  if (t.flags) f.FLAGS = t.flags.split('|').join(',');
  return f;
}

/** `kfree_skb_reason(SKB_DROP_REASON_NO_SOCKET)` → the function and its reason. */
function splitReason(
  tok: string,
  next: string | undefined,
): { func: string; reason: string | null } {
  const m = /^([\w.]+)\(([A-Z0-9_]+)\)/.exec(tok);
  if (m) return { func: m[1] as string, reason: m[2] as string };
  if (next && /^\(\d+\)$/.test(next)) return { func: tok, reason: next.slice(1, -1) };
  return { func: tok, reason: null };
}

function textEvent(m: RegExpExecArray, caller: boolean): Event | TraceProblem {
  const toks = (m[4] as string).trim().split(/\s+/).filter(Boolean);
  const process = m[3] as string;
  let netns: string | null = null;
  const kv = toks.find((t) => t.startsWith('netns='));
  if (kv) netns = kv.slice(6);
  const proto = toks.findIndex((t) => /^0x[0-9a-f]{4}$/.test(t));
  if (!kv && proto >= 3 && /^\d+$/.test(toks[proto - 3] ?? '')) netns = toks[proto - 3] as string;
  const ti = toks.findIndex((t) => TUPLE_RE.test(t));
  let fi: number;
  if (process.startsWith('[')) fi = 0;
  else if (ti >= 0) fi = ti + 1;
  else {
    const idx = toks.map((t, i) => (FUNC_RE.test(t) ? i : -1)).filter((i) => i >= 0);
    fi = (caller && idx.length > 1 ? idx[idx.length - 2] : idx[idx.length - 1]) ?? -1;
  }
  const tok = toks[fi];
  if (!tok || !FUNC_RE.test(tok.replace(/\(\d+\)$/, ''))) return { key: 'pwru.func' };
  const t = ti >= 0 ? TUPLE_RE.exec(toks[ti] as string) : null;
  const [l4, flags] = (t?.[5] ?? '').split(':');
  const fields = t
    ? tupleFields({ saddr: t[1], daddr: t[3], sport: t[2], dport: t[4], proto: l4, flags })
    : {};
  return { skb: m[1] as string, netns, ...splitReason(tok, toks[fi + 1]), fields };
}

function jsonEvent(text: string): Event | TraceProblem | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { key: 'pwru.json' };
  }
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o.skb !== 'string' || typeof o.func !== 'string') return null;
  const t = (o.tuple && typeof o.tuple === 'object' ? o.tuple : {}) as Record<string, unknown>;
  const s = (k: string) => (t[k] === undefined ? undefined : String(t[k]));
  return {
    skb: o.skb,
    netns: o.netns === undefined ? null : String(o.netns),
    ...splitReason(o.func, undefined),
    fields: tupleFields({
      saddr: s('saddr'),
      daddr: s('daddr'),
      sport: s('sport'),
      dport: s('dport'),
      proto: s('proto'),
      flags: s('flags'),
    }),
  };
}

function readLine(raw: string, caller: boolean): Event | TraceProblem | null {
  const text = raw.trim();
  if (text.startsWith('{')) return jsonEvent(text);
  const m = LINE_RE.exec(raw);
  return m ? textEvent(m, caller) : null;
}

export function parsePwruTrace(lines: readonly string[]): ParsedTrace {
  const out = new PacketCollector();
  const errors: Diagnostic[] = [];
  // skb@netns → its current packet id, and whether that skb was freed since.
  const current = new Map<string, { id: string; freed: boolean; n: number }>();
  const withHop = new Set<string>();
  let caller = false;
  let unknown = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (/^\s*(TIME\s+)?SKB\s+CPU\s+PROCESS\b/.test(raw)) caller = /\bCALLER\b/.test(raw);
    const ev = readLine(raw.replace(/\r$/, ''), caller);
    if (ev === null) {
      unknown++;
      return;
    }
    if ('key' in ev) {
      errors.push(traceError(line, raw.length - raw.trimStart().length + 1, ev));
      return;
    }
    const key = ev.netns ? `${ev.skb}@${ev.netns}` : ev.skb;
    const free = FREES.test(baseFunc(ev.func));
    let cur = current.get(key);
    if (!cur || (cur.freed && !free)) {
      const n = (cur?.n ?? 0) + 1;
      current.set(key, (cur = { id: n > 1 ? `${key}#${n}` : key, freed: false, n }));
    }
    if (free) cur.freed = true;
    if (!withHop.has(cur.id) && Object.keys(ev.fields).length && withHop.add(cur.id))
      out.hop(cur.id, { line, table: '', chain: null, fields: ev.fields });
    out.func(cur.id, line, ev.func, ev.reason);
  });
  return { format: 'pwru', packets: out.packets(), errors, unknown };
}
