/**
 * `nft monitor trace` output (nftables 1.0, src/netlink.c netlink_events_trace):
 *
 *   trace id 5f44d0a7 ip kube-proxy nat-prerouting packet: iif "eth0" ip saddr 10.0.0.1 ...
 *   trace id 5f44d0a7 ip kube-proxy nat-prerouting rule jump services # handle 20 (verdict jump services)
 *   trace id 5f44d0a7 ip kube-proxy masquerading verdict continue
 *   trace id 5f44d0a7 ip kube-proxy nat-postrouting policy accept meta mark 0x00004000
 *
 * `rule` lines carry `# handle N` under `nft -a monitor trace` only; `verdict` lines are a
 * chain's end (NFT_TRACETYPE_RETURN), `policy` a base chain's policy.
 */
import { PacketCollector, isTracingRule } from './collect.ts';
import { TCP_BITS } from './packet-bytes.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { ParsedTrace } from './types.ts';
import { traceError } from '../replay-errors.ts';

const HEAD_RE = /^trace id ([0-9a-f]+) (\S+) (\S+) (\S+) (\S+)( |:|$)/;
const RULE_RE = /^(.*?)(?: # handle (\d+))? \(verdict ([^)]*)\)/;
const KINDS = new Set(['packet:', 'rule', 'policy', 'verdict']);

/** The packet line's fields under xtables-monitor's names, so both read alike. */
function packetFields(text: string): Record<string, string> {
  const f: Record<string, string> = {};
  const w = text.trim().split(/\s+/);
  for (let i = 0; i < w.length; i++) {
    const a = w[i] as string;
    const b = w[i + 1] ?? '';
    const v = (w[i + 2] ?? '').replace(/"/g, '');
    if (a === 'iif') f.IN = b.replace(/"/g, '');
    else if (a === 'oif') f.OUT = b.replace(/"/g, '');
    else if ((a === 'ip' || a === 'ip6') && b === 'saddr') f.SRC = v;
    else if ((a === 'ip' || a === 'ip6') && b === 'daddr') f.DST = v;
    else if (['tcp', 'udp', 'sctp'].includes(a) && (b === 'sport' || b === 'dport')) {
      f.PROTO = a;
      f[b.toUpperCase()] = v;
    } else if ((a === 'icmp' || a === 'icmpv6') && b === 'type') {
      f.PROTO = a;
      f.ICMPTYPE = w[i + 2] ?? '';
    } else if (a === 'tcp' && b === 'flags' && v === '==') {
      // `tcp flags == syn`, `== syn | ack`, or a number: `== 0x12`.
      let bits = 0;
      for (let j = i + 3; j < w.length; j++) {
        const x = (w[j] as string).replace(/,$/, '');
        if (x === '|') continue;
        const named = TCP_BITS.find(([n]) => n === x.toUpperCase());
        if (/^0x[0-9a-f]+$/.test(x)) bits |= parseInt(x, 16);
        else if (named) bits |= named[1];
        else break;
      }
      const names = TCP_BITS.filter(([, bit]) => bits & bit).map(([n]) => n);
      if (names.length) f.FLAGS = names.join(',');
    }
  }
  return f;
}

export function looksLikeNft(lines: readonly string[]): boolean {
  return lines.some((l) => l.startsWith('trace id '));
}

export function parseNftTrace(lines: readonly string[]): ParsedTrace {
  const out = new PacketCollector();
  const errors: Diagnostic[] = [];
  let unknown = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    const text = raw.replace(/\r$/, '').trimStart();
    if (!text.startsWith('trace id')) {
      unknown++;
      return;
    }
    const m = HEAD_RE.exec(text);
    if (!m) {
      errors.push(traceError(line, raw.length - text.length + 1, { key: 'nft.head' }));
      return;
    }
    const [head, id, family, table, chain, kindRaw] = m as unknown as string[];
    const kind = (kindRaw as string) + (m[6] === ':' ? ':' : '');
    if (!KINDS.has(kind)) {
      // A kind this parser does not know (a newer nft): tolerated, counted.
      unknown++;
      return;
    }
    const rest = text.slice((head as string).length).trim();
    const at = raw.length - text.length + (head as string).length + 1;
    if (kind === 'packet:') {
      out.hop(id as string, {
        line,
        table: table as string,
        chain: chain as string,
        fields: packetFields(rest),
      });
      return;
    }
    const base = { line, family: family as string, table: table as string, chain: chain as string };
    if (kind === 'rule') {
      const r = RULE_RE.exec(rest);
      if (!r) {
        errors.push(traceError(line, at, { key: 'nft.rule-verdict' }));
        return;
      }
      const body = r[1] as string;
      out.step(id as string, {
        ...base,
        kind: 'rule',
        handle: r[2] !== undefined ? Number(r[2]) : null,
        verdict: (r[3] as string).trim(),
        text: body,
        tracing: isTracingRule(body),
      });
      return;
    }
    const verdict = rest.split(/\s+/)[0] ?? '';
    if (!verdict) {
      errors.push(traceError(line, at, { key: 'nft.names-verdict', params: { kind } }));
      return;
    }
    out.step(id as string, {
      ...base,
      kind: kind === 'policy' ? 'policy' : 'return',
      handle: null,
      verdict,
      text: '',
      tracing: false,
    });
  });
  return { format: 'nft', packets: out.packets(), errors, unknown };
}
