/** Text rendering of traces and outcomes for the terminal. */
import {
  explainText,
  limitText,
  nftNotation,
  packetText,
  xtablesNotation,
  type Choice,
  type Enumeration,
  type Outcome,
  type TraceEvent,
} from '../engine/index.ts';

/** `10.0.0.1:22`, `[fd00::1]:22`. */
function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function outcomeText(o: Outcome): string {
  switch (o.kind) {
    case 'answered':
      return `answered by ${o.process} on ${o.host} ("${o.reply}"); it saw source ${hostPort(o.srcSeen, o.srcPortSeen)}, destination ${hostPort(o.dstSeen, o.dstPortSeen)}`;
    case 'delivered':
      return `delivered to ${o.process} on ${o.host}; it sees source ${hostPort(o.srcSeen, o.srcPortSeen)}, destination ${hostPort(o.dstSeen, o.dstPortSeen)}`;
    case 'refused':
      return `refused (${o.via} from ${o.from})`;
    case 'timeout':
      return `timeout: ${o.reason}${o.host ? ` (on ${o.host})` : ''}`;
    case 'unreachable':
      return `unreachable: ${o.reason} (on ${o.host})`;
    case 'forwarded':
      return `forwarded out of ${o.iface} on ${o.host} towards ${o.nextHop} as ${packetText(o.packet)}`;
    case 'dropped':
      return `dropped on ${o.host}: ${o.reason}`;
    case 'unsupported':
      return `cannot decide: ${o.what} (line ${o.line} on ${o.host}) is not supported by the lab`;
  }
}

export interface TraceFormat {
  /** Show the ranges of rules that did not match. */
  readonly misses?: boolean;
  /** Add the plain-language explanation of each step. */
  readonly explain?: boolean;
}

export function traceLines(events: readonly TraceEvent[], fmt: TraceFormat = {}): string[] {
  const out: string[] = [];
  let lastPacket = '';
  for (const e of events) {
    if (e.type === 'miss' && !fmt.misses) continue;
    const head = `#${e.packetId} ${e.host}`.padEnd(16);
    let what: string;
    switch (e.type) {
      case 'rule':
        // nft steps as `nft monitor trace` prints them; iptables steps as xtables-monitor does.
        what = nftNotation(e) ?? `${xtablesNotation(e)}  ${e.text}`;
        break;
      case 'return':
        what = e.nft
          ? `${e.nft.family} ${e.nft.table} ${e.nft.chain} return (end of chain)`
          : `${xtablesNotation(e) ?? e.type}${e.explain.key === 'chain.repeat' ? '  (walked before with this same packet, same result: said in one step)' : ''}`;
        break;
      case 'policy':
        what = nftNotation(e) ?? xtablesNotation(e) ?? e.type;
        break;
      case 'hook':
        what = e.nft
          ? `-- ${e.nft.family} ${e.nft.table} ${e.nft.chain} ${e.hook} (type ${e.nft.type ?? 'filter'}, priority ${e.nft.priority ?? 0})`
          : `-- ${e.table} ${e.hook}${e.implicit ? ' (implicit)' : ''}`;
        break;
      case 'miss':
        what = e.nft
          ? `${e.nft.family} ${e.nft.table} ${e.nft.chain}: rules ${e.from}-${e.to} do not match`
          : `${e.table}:${e.chain}: rules ${e.from}-${e.to} do not match`;
        break;
      case 'route':
        what = `route ${e.decision}${e.dev ? ` dev ${e.dev}` : ''}${e.via ? ` via ${e.via}` : ''}${e.routeText ? `  (${e.routeText})` : ''}`;
        break;
      case 'conntrack':
        what = `conntrack ${e.action} ${e.state}${e.connId ? ` #${e.connId}` : ''}`;
        break;
      case 'socket':
        what = `socket ${e.result}${e.process ? ` ${e.process}` : ''}${e.bind ? ` (${e.bind})` : ''}`;
        break;
      case 'wire':
        what = `wire ${e.fromIf} -> ${e.toHost}/${e.toIf} on ${e.segment}`;
        break;
      case 'receive':
        what = `receive on ${e.iface}`;
        break;
      case 'bridge':
        what = `bridge ${e.bridge} ${e.action}${e.inPort ? ` in ${e.inPort}` : ''}${e.outPort ? ` out ${e.outPort}` : ''}`;
        break;
      case 'send':
        what = `send by ${e.process} (${e.reason})`;
        break;
      case 'nat-skip':
        what = `nat ${e.hook} skipped (${e.reason})`;
        break;
      case 'log':
        what = `log "${e.prefix}"`;
        break;
      case 'ipvs':
        what = `ipvs ${e.hook} ${e.action}${e.service ? ` ${e.service}` : ''}${e.realServer ? ` -> ${e.realServer}` : ''}  [modelled, not kernel-checked]`;
        break;
      case 'unsupported':
        what = `UNSUPPORTED ${e.what}${e.line ? ` at line ${e.line}` : ''}`;
        break;
      case 'drop':
        what = `drop: ${e.reason}`;
        break;
    }
    const pkt = packetText(e.packet);
    const pktCol = pkt === lastPacket ? '' : `   ${pkt}`;
    lastPacket = pkt;
    out.push(`${head}${what}${pktCol}`);
    if (fmt.explain) out.push(`${' '.repeat(18)}${explainText(e.explain)}`);
  }
  return out;
}

/**
 * A share of the probability: `50.0%`. A share known to be above zero (computed branches, whose
 * product of many small probabilities may underflow to 0) is never `0.0%`, and a part never `100.0%`.
 */
export function shareText(p: number, positive = false, part = false): string {
  if ((p > 0 || positive) && p < 0.0005) return '<0.1%';
  if ((p < 1 || part) && p > 0.9995) return '>99.9%';
  return `${(p * 100).toFixed(1)}%`;
}

/**
 * `--all`: each outcome with its share. When the enumeration stopped at a limit, the shares are
 * lower bounds and the lines say so, with what was and was not computed.
 */
export function enumerationLines(
  en: Enumeration,
  groups: readonly { readonly label: string; readonly p: number }[],
): string[] {
  if (!en.truncated) return groups.map((g) => `${shareText(g.p).padStart(6)}  ${g.label}`);
  const limit = limitText(en.stoppedBy ?? { limit: 'branches', count: en.runs.length });
  const some = en.runs.length > 0;
  return [
    `Not every branch was computed: hookpath stopped at its limit of ${limit}.`,
    `The ${en.runs.length} branches computed cover ${shareText(en.covered, some, true)} of the probability; at least ${en.notComputed.toLocaleString('en')} more branches (${shareText(1 - en.covered, true, some)}) were not computed, so each share below is a lower bound.`,
    ...groups.map((g) => `  at least ${shareText(g.p, true, true).padStart(6)}  ${g.label}`),
  ];
}

/** The random decisions of one run, the first `max` of them spelled out. */
export function choicesText(choices: readonly Choice[], seed: number, max = 12): string {
  const shown = choices
    .slice(0, max)
    .map((c) => `${c.label} -> option ${c.index + 1} (p=${c.probability.toFixed(4)})`);
  const more = choices.length > max ? `, and ${choices.length - max} more` : '';
  return `random branches taken (seed ${seed}): ${shown.join(', ')}${more}`;
}
