/**
 * Retis events (retis-org/retis): the JSON lines `retis collect -o FILE` writes (one event an
 * object a line; `retis sort -o` writes a series a line, an array), section names kebab-case
 * (retis-events/src/events.rs `Event`):
 *
 *   {"common":{...},"kernel":{"probe_type":"kprobe","symbol":"__nft_trace_packet"},
 *    "skb-tracking":{"orig_head":...,"timestamp":...,"skb":...},
 *    "nft":{"table_name":"nat","chain_name":"PREROUTING","verdict":"jump",
 *           "verdict_chain_name":"KUBE-SERVICES","table_handle":1,"chain_handle":2,
 *           "rule_handle":15,"policy":false}}
 *
 * - `nft` (retis-events/src/nft.rs NftEvent; retis/src/collect/collector/nft/bpf.rs): one per
 *   rule, chain end (no rule_handle: the BPF side reports -1 for NFT_TRACETYPE_RETURN with
 *   NFT_CONTINUE, nft_hook.bpf.c) or policy (`policy: true`); no family. Only the verdicts of
 *   `--nft-verdicts` are collected, `drop,accept` by default.
 * - `skb-tracking` (retis-events/src/skb_tracking.rs): the packet is `(timestamp << 64) |
 *   orig_head`, printed in hex as Retis prints it (`#{:x}`); clones share it.
 * - `skb-drop` (skb_drop.rs): `drop_reason` (enum skb_drop_reason without SKB_DROP_REASON_),
 *   `subsys` for non-core reasons. `ct` (ct.rs): `state` (`new`, `established`, `reply`...).
 * - `packet` (packet.rs, Retis >= 1.5): the bytes in base64; older files have the headers in
 *   `skb` (`saddr`, `daddr`, `sport`, `dport`, `protocol`, `tcp_flags`, as in
 *   retis-events/test_data/test_events.json) or nested (`skb.ip`, `skb.tcp`, `skb.udp`).
 *
 * nft events become the packet's steps (rule-level replay); the other kernel probes its stages
 * (stages.ts), so a trace without the nft collector still replays at the coarser level.
 */
import { PacketCollector } from './collect.ts';
import { fromBase64, packetFields, tcpFlagNames } from './packet-bytes.ts';
import { parseRetisText, RETIS_TEXT_RE, RETIS_TRACE_TABLE, terminalOnly } from './retis-text.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { ParsedTrace, RealStep } from './types.ts';
import { traceError, type TraceProblem } from '../replay-errors.ts';

type Json = Record<string, unknown>;

const obj = (v: unknown, k: string): Json | undefined => {
  const x = v && typeof v === 'object' ? (v as Json)[k] : undefined;
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : undefined;
};
const str = (v: Json | undefined, k: string): string | undefined => {
  const x = v?.[k];
  return typeof x === 'string' ? x : typeof x === 'number' ? String(x) : undefined;
};

export function looksLikeRetis(lines: readonly string[]): boolean {
  return lines.some(
    (l) =>
      (/^\s*\[?\s*\{/.test(l) &&
        /"common"\s*:/.test(l) &&
        /"(kernel|startup|skb-tracking|nft)"\s*:/.test(l)) ||
      RETIS_TEXT_RE.test(l),
  );
}

/** Kernel addresses and timestamps pass 2^53: kept as strings, not rounded by JSON.parse. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/([:,[]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
  } catch {
    return JSON.parse(text);
  }
}

export function trackingId(t: Json | undefined): string | null {
  const ts = str(t, 'timestamp');
  const head = str(t, 'orig_head');
  if (ts === undefined || head === undefined || !/^\d+$/.test(ts) || !/^\d+$/.test(head))
    return null;
  return ((BigInt(ts) << 64n) | BigInt(head)).toString(16);
}

/** An nft section as a step, or the field it lacks. */
export function nftStep(n: Json, line: number): RealStep | TraceProblem {
  const table = str(n, 'table_name');
  const chain = str(n, 'chain_name');
  const verdict = str(n, 'verdict');
  if (!table || !chain || !verdict)
    return {
      key: 'retis.nft-field',
      params: { field: !table ? 'table_name' : !chain ? 'chain_name' : 'verdict' },
    };
  const rh = str(n, 'rule_handle');
  const handle = rh !== undefined && /^\d+$/.test(rh) ? Number(rh) : null;
  const kind = n.policy === true ? 'policy' : handle === null ? 'return' : 'rule';
  const target = str(n, 'verdict_chain_name');
  return {
    line,
    family: '',
    table,
    chain,
    kind,
    handle: kind === 'rule' ? handle : null,
    verdict:
      (verdict === 'jump' || verdict === 'goto') && target ? `${verdict} ${target}` : verdict,
    text: '',
    tracing: table === RETIS_TRACE_TABLE,
  };
}

/** The packet's headers from whichever section this Retis version put them in. */
function headerFields(ev: Json): Record<string, string> {
  const raw = str(obj(ev, 'packet'), 'data') ?? str(obj(obj(ev, 'skb'), 'packet'), 'raw');
  const bytes = raw !== undefined ? fromBase64(raw) : null;
  const f: Record<string, string> = bytes ? packetFields(bytes) : {};
  const skb = obj(ev, 'skb');
  const ip = obj(skb, 'ip') ?? skb;
  const l4 = obj(skb, 'tcp') ?? obj(skb, 'udp') ?? skb;
  const set = (k: string, v: string | undefined) =>
    v !== undefined && f[k] === undefined && (f[k] = v);
  set('SRC', str(ip, 'saddr'));
  set('DST', str(ip, 'daddr'));
  const proto = str(ip, 'protocol');
  set('PROTO', proto === '6' ? 'tcp' : proto === '17' ? 'udp' : proto === '1' ? 'icmp' : proto);
  set('SPORT', str(l4, 'sport'));
  set('DPORT', str(l4, 'dport'));
  const flags = str(obj(skb, 'tcp'), 'flags') ?? str(skb, 'tcp_flags');
  if (flags !== undefined && f.FLAGS === undefined && tcpFlagNames(Number(flags)))
    f.FLAGS = tcpFlagNames(Number(flags));
  set('CT', str(obj(ev, 'ct'), 'state'));
  return f;
}

interface Ctx {
  readonly out: PacketCollector;
  readonly errors: Diagnostic[];
  readonly withHop: Set<string>;
  readonly verdicts: Set<string>;
}

function readEvent(ev: Json, line: number, ctx: Ctx): boolean {
  const symbol = str(obj(ev, 'kernel'), 'symbol');
  const nft = obj(ev, 'nft');
  if (!symbol && !nft) return obj(ev, 'startup') !== undefined || obj(ev, 'common') !== undefined;
  const tracking = obj(ev, 'skb-tracking') ?? obj(obj(ev, 'tracking'), 'skb');
  const id = trackingId(tracking) ?? 'untracked';
  if (!ctx.withHop.has(id)) {
    const fields = headerFields(ev);
    if (Object.keys(fields).length) {
      ctx.withHop.add(id);
      ctx.out.hop(id, { line, table: '', chain: null, fields });
    }
  }
  if (nft) {
    const step = nftStep(nft, line);
    if ('key' in step) ctx.errors.push(traceError(line, 1, step));
    else {
      ctx.verdicts.add(step.verdict.split(' ')[0] as string);
      ctx.out.step(id, step);
    }
  } else if (symbol) {
    const drop = obj(ev, 'skb-drop');
    const why = str(drop, 'drop_reason');
    const sub = str(drop, 'subsys');
    ctx.out.func(id, line, symbol, why === undefined ? null : sub ? `${sub}/${why}` : why);
  }
  return true;
}

function readLine(raw: string, line: number, ctx: Ctx): boolean {
  let v: unknown;
  try {
    v = parseJson(raw);
  } catch (e) {
    const at = /position (\d+)/.exec(e instanceof Error ? e.message : '');
    ctx.errors.push(traceError(line, at ? Number(at[1]) + 1 : 1, { key: 'retis.json' }));
    return true;
  }
  const events = Array.isArray(v) ? v : [v];
  let known = false;
  for (const ev of events)
    if (ev && typeof ev === 'object' && readEvent(ev as Json, line, ctx)) known = true;
  return known;
}

export function parseRetisTrace(lines: readonly string[]): ParsedTrace {
  if (!lines.some((l) => /^\s*\[?\s*\{/.test(l)) && lines.some((l) => RETIS_TEXT_RE.test(l)))
    return parseRetisText(lines);
  const ctx: Ctx = {
    out: new PacketCollector(),
    errors: [],
    withHop: new Set(),
    verdicts: new Set(),
  };
  let unknown = 0;
  lines.forEach((raw, i) => {
    const text = raw.trim();
    if (!/^[[{]/.test(text) || !readLine(text, i + 1, ctx)) unknown++;
  });
  return {
    format: 'retis',
    packets: ctx.out.packets(),
    errors: ctx.errors,
    unknown,
    ...terminalOnly(ctx.verdicts),
  };
}
