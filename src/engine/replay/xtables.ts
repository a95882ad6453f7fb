/**
 * `xtables-monitor --trace` output (iptables-nft 1.8, iptables/xtables-monitor.c):
 *
 *   PACKET: 2 4a102771 IN=eth0 ... SRC=192.168.50.10 DST=192.168.50.100 ... SPORT=40100 DPORT=22 SYN
 *    TRACE: 2 4a102771 nat:PREROUTING:rule:0xf:JUMP:KUBE-SERVICES  -4 -t nat -A PREROUTING ...
 *    TRACE: 2 4a102771 nat:KUBE-SEP-X:rule:0x27:ACCEPT  -4 -t nat -A KUBE-SEP-X ... -j DNAT ...
 *    TRACE: 2 4a102771 filter:INPUT:return:
 *    TRACE: 2 4a102771 filter:INPUT:policy:ACCEPT
 *
 * The number after PACKET/TRACE is the address family (2 = AF_INET, 10 = AF_INET6), then the
 * trace id, shared by every event of one skb.
 */
import { PacketCollector, isTracingRule } from './collect.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { ParsedTrace } from './types.ts';
import { traceError } from '../replay-errors.ts';

const FAMILIES: Readonly<Record<string, string>> = {
  '2': 'ip',
  '10': 'ip6',
  '7': 'bridge',
  '3': 'arp',
};

/** nf_tables verdict codes xtables-monitor 1.8.9 prints as numbers (uapi nf_tables.h). */
const CODES: Readonly<Record<string, string>> = {
  '0xffffffff': 'continue',
  '0xfffffffe': 'break',
  '0xfffffffd': 'jump',
  '0xfffffffc': 'goto',
  '0xfffffffb': 'return',
};

const HEAD_RE = /^(\s*)(PACKET|TRACE): (\d+) ([0-9a-f]+)(?: |$)/;
const EVENT_RE = /^([^:\s]+):(\S+?):(rule|return|policy):(\S*)(?:\s+(.*))?$/;
const FLAG_WORDS = new Set(['SYN', 'ACK', 'RST', 'FIN', 'PSH', 'URG']);

/** `JUMP:KUBE-SERVICES` → `jump KUBE-SERVICES`; `0xfffffffb` → `return`. */
function verdictOf(v: string): string {
  const k = v.indexOf(':');
  const word = k < 0 ? v : v.slice(0, k);
  const target = k < 0 ? '' : v.slice(k + 1);
  const name = CODES[word.toLowerCase()] ?? word.toLowerCase();
  return target ? `${name} ${target}` : name;
}

function headerFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const flags: string[] = [];
  for (const tok of text.trim().split(/\s+/)) {
    const eq = tok.indexOf('=');
    if (eq > 0) fields[tok.slice(0, eq)] = tok.slice(eq + 1);
    else if (FLAG_WORDS.has(tok)) flags.push(tok);
  }
  if (flags.length) {
    fields.FLAGS = flags.join(',');
    fields.PROTO ??= 'tcp';
  }
  return fields;
}

/** Is this xtables-monitor output (a PACKET: or TRACE: line among the first lines)? */
export function looksLikeXtables(lines: readonly string[]): boolean {
  return lines.some((l) => /^\s*(PACKET|TRACE):/.test(l));
}

export function parseXtablesTrace(lines: readonly string[]): ParsedTrace {
  const out = new PacketCollector();
  const errors: Diagnostic[] = [];
  let unknown = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    const text = raw.replace(/\r$/, '');
    const head = HEAD_RE.exec(text);
    if (!head) {
      const kw = /^\s*(PACKET|TRACE):/.exec(text);
      if (kw)
        errors.push(
          traceError(line, kw[0].length + 2, {
            key: 'xtables.head',
            params: { keyword: kw[1] as string },
          }),
        );
      else unknown++;
      return;
    }
    const [all, indent, kind, fam, id] = head as unknown as string[];
    const family = FAMILIES[fam as string] ?? 'ip';
    const rest = text.slice((all as string).length);
    if (kind === 'PACKET') {
      out.hop(id as string, { line, table: '', chain: null, fields: headerFields(rest) });
      return;
    }
    const ev = EVENT_RE.exec(rest);
    if (!ev) {
      errors.push(traceError(line, (all as string).length + 1, { key: 'xtables.event' }));
      return;
    }
    void indent;
    const [, table, chain, type, tail, ruleText] = ev as unknown as string[];
    let handle: number | null = null;
    let verdict: string;
    if (type === 'rule') {
      const m = /^(0x[0-9a-f]+|\d+):(.+)$/i.exec(tail as string);
      if (!m) {
        errors.push(
          traceError(
            line,
            (all as string).length + (table as string).length + (chain as string).length + 8,
            { key: 'xtables.rule' },
          ),
        );
        return;
      }
      handle = parseInt(m[1] as string, (m[1] as string).startsWith('0x') ? 16 : 10);
      verdict = verdictOf(m[2] as string);
    } else if (type === 'policy') verdict = verdictOf((tail as string) || 'accept');
    else verdict = 'return';
    const body = (ruleText ?? '').trim();
    out.step(id as string, {
      line,
      family,
      table: table as string,
      chain: chain as string,
      kind: type as 'rule' | 'return' | 'policy',
      handle,
      verdict,
      text: body,
      tracing: type === 'rule' && isTracingRule(body),
    });
  });
  return { format: 'xtables', packets: out.packets(), errors, unknown };
}
