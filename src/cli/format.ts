/** Text rendering of traces and outcomes for the terminal. */
import {
  explainText,
  packetText,
  xtablesNotation,
  type Outcome,
  type TraceEvent,
} from '../engine/index.ts';

export function outcomeText(o: Outcome): string {
  switch (o.kind) {
    case 'answered':
      return `answered by ${o.process} on ${o.host} ("${o.reply}"); it saw source ${o.srcSeen}:${o.srcPortSeen}, destination ${o.dstSeen}:${o.dstPortSeen}`;
    case 'delivered':
      return `delivered to ${o.process} on ${o.host}; it sees source ${o.srcSeen}:${o.srcPortSeen}, destination ${o.dstSeen}:${o.dstPortSeen}`;
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
        what = `${xtablesNotation(e)}  ${e.text}`;
        break;
      case 'return':
      case 'policy':
        what = xtablesNotation(e) ?? e.type;
        break;
      case 'hook':
        what = `-- ${e.table} ${e.hook}${e.implicit ? ' (implicit)' : ''}`;
        break;
      case 'miss':
        what = `${e.table}:${e.chain}: rules ${e.from}-${e.to} do not match`;
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
      case 'send':
        what = `send by ${e.process} (${e.reason})`;
        break;
      case 'nat-skip':
        what = `nat ${e.hook} skipped (${e.reason})`;
        break;
      case 'log':
        what = `log "${e.prefix}"`;
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
