/**
 * Retis's text output (`retis collect` without `-o`, `retis print`, `retis sort`), as its
 * README and docs/events/*.md show it (retis-events/src/events.rs Event::event_fmt):
 *
 *   12313349514683 (1) [isc-net-0000] 26822/26823 [k] ip6_output #b32ecd2e5bbffff8ca00f0c6100 (skb ffff8ca396cf4600)
 *     [redacted].43366 > 2606:4700:4700::1111.53 ttl 64 label 0x10c7e len 59 proto UDP (17) len 51
 *     ct_state NEW status 0x100 udp orig [...] reply [...] zone 0 mark 0
 *   53529978701985 [swapper/0] 0 [k] __nft_trace_packet
 *     table firewalld (2) chain filter_INPUT (165) handle 169 accept
 *
 * The first line: timestamp, (cpu), [comm], pid/tgid, [probe type] symbol, `#tracking-id (skb
 * address)`, ` n INDEX` after `retis sort` (whose later events start with `↳`), `drop (reason
 * X)`. The nft section (docs/events/nft.md): `table T (h) chain C (h) [handle N] VERDICT
 * [(policy)] [chain TARGET]`. The packet line (docs/events/packet.md): `SRC.SPORT > DST.DPORT
 * ... proto TCP (6) flags [S]`.
 */
import { PacketCollector } from './collect.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { ParsedTrace } from './types.ts';
import { traceError } from '../replay-errors.ts';

/** The table Retis adds to switch nf_tables tracing on (retis/src/collect/collector/nft/nft.rs). */
export const RETIS_TRACE_TABLE = 'Retis_Table';

/**
 * Retis collects only the `--nft-verdicts` asked for, `drop,accept` by default: when the trace
 * has no other verdict, the lab's jumps and chain ends are not compared.
 */
export function terminalOnly(verdicts: ReadonlySet<string>): { onlyVerdicts?: string[] } {
  const terminal = ['accept', 'drop'];
  return verdicts.size > 0 && [...verdicts].every((v) => terminal.includes(v))
    ? { onlyVerdicts: terminal }
    : {};
}

export const RETIS_TEXT_RE =
  /^\s*(?:↳\s+)?\d+ (?:\(\d+\) )?\[[^\]]*\] \d+(?:\/\d+)? \[(?:k|kr|tp|u)\] (\S+)(.*)$/;
const NFT_RE =
  /^\s*table (\S+) \(-?\d+\) chain (\S+) \(-?\d+\)(?: handle (\d+))? (\w+)( \(policy\))?(?: chain (\S+))?\s*$/;
/** tcpdump's letters (docs/events/packet.md): S syn, . ack, F fin, R rst, P push, U urg. */
const FLAG_LETTERS: readonly [string, string][] = [
  ['F', 'FIN'],
  ['S', 'SYN'],
  ['R', 'RST'],
  ['P', 'PSH'],
  ['.', 'ACK'],
  ['U', 'URG'],
];

function ipFields(text: string): Record<string, string> | null {
  const proto = /\bproto (\w+) \(\d+\)/.exec(text)?.[1]?.toLowerCase();
  const ported = proto === 'tcp' || proto === 'udp' || proto === 'sctp';
  const m = ported
    ? /^\s*(\S+)\.(\d+) > (\S+)\.(\d+) /.exec(text)
    : /^\s*(\S+) > (\S+) (?:tos|ttl|label)/.exec(text);
  if (!m || /\bethertype\b/.test(text)) return null;
  const f: Record<string, string> = { PROTO: proto ?? 'ip' };
  if (ported) Object.assign(f, { SRC: m[1], SPORT: m[2], DST: m[3], DPORT: m[4] });
  else Object.assign(f, { SRC: m[1], DST: m[2] });
  const letters = /\bflags \[([^\]]*)\]/.exec(text)?.[1];
  if (proto === 'tcp' && letters) {
    const names = FLAG_LETTERS.filter(([l]) => letters.includes(l)).map(([, n]) => n);
    if (names.length) f.FLAGS = names.join(',');
  }
  return f;
}

/** The event's `ct_state` line, among the lines after its packet line. */
function ctState(lines: readonly string[], from: number): string | undefined {
  for (let k = from; k < Math.min(lines.length, from + 4); k++) {
    const l = lines[k] as string;
    if (!/^\s/.test(l) || RETIS_TEXT_RE.test(l)) return undefined;
    const m = /\bct_state (\w+)/.exec(l);
    if (m) return m[1];
  }
  return undefined;
}

interface Current {
  id: string;
  line: number;
  symbol: string;
  hasFields: boolean;
}

export function parseRetisText(lines: readonly string[]): ParsedTrace {
  const out = new PacketCollector();
  const errors: Diagnostic[] = [];
  const verdicts = new Set<string>();
  const withHop = new Set<string>();
  let cur: Current | null = null;
  let unknown = 0;
  lines.forEach((raw, i) => {
    const line = i + 1;
    const head = RETIS_TEXT_RE.exec(raw);
    if (head) {
      const rest = head[2] as string;
      const id = /#([0-9a-f]+)/.exec(rest)?.[1] ?? 'untracked';
      const reason = /\bdrop \(reason ([^)]+)\)/.exec(rest)?.[1] ?? null;
      cur = { id, line, symbol: head[1] as string, hasFields: withHop.has(id) };
      if (head[1] !== '__nft_trace_packet') out.func(id, line, head[1] as string, reason);
      return;
    }
    if (!cur || !/^\s/.test(raw) || !raw.trim()) {
      unknown++;
      return;
    }
    const c: Current = cur;
    const nft = NFT_RE.exec(raw);
    if (nft) {
      const [, table, chain, handle, verdict, policy, target] = nft as unknown as string[];
      const kind = policy ? 'policy' : handle === undefined ? 'return' : 'rule';
      verdicts.add(verdict as string);
      out.step(c.id, {
        line,
        family: '',
        table: table as string,
        chain: chain as string,
        kind,
        handle: kind === 'rule' ? Number(handle) : null,
        verdict: target ? `${verdict} ${target}` : (verdict as string),
        text: '',
        tracing: table === RETIS_TRACE_TABLE,
      });
      return;
    }
    if (/^\s*table /.test(raw)) {
      errors.push(
        traceError(line, raw.length - raw.trimStart().length + 1, { key: 'retis.nft-text' }),
      );
      return;
    }
    const f = ipFields(raw);
    if (f && !c.hasFields) {
      const ct = ctState(lines, i + 1);
      if (ct) f.CT = ct.toLowerCase();
      c.hasFields = true;
      withHop.add(c.id);
      out.hop(c.id, { line, table: '', chain: null, fields: f });
    }
  });
  return {
    format: 'retis',
    packets: out.packets(),
    errors,
    unknown,
    ...terminalOnly(verdicts),
  };
}
