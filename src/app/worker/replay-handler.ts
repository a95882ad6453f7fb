/** The replay worker's logic, free of any worker API so Node tests call it directly. */
import { parseRealTrace, replayPacket, type RealPacket } from '../../engine/index.ts';
import type { ReplayInput, ReplayRequest, ReplayResponse, ReplayView } from './replay-protocol.ts';

/** Packets looked at to tell which node the trace was taken on. */
const HOST_SAMPLE = 20;

/**
 * A trace is taken on one node: the host whose steps the trace's packets match best, all
 * together. One packet alone can fit several (a SYN-ACK forwarded alike by two nodes).
 */
function tracedHost(
  packets: readonly RealPacket[],
  events: ReplayInput['events'],
): string | undefined {
  const hosts = [...new Set(events.map((e) => e.host))];
  let best: { host: string; same: number } | undefined;
  for (const host of hosts) {
    const same = packets
      .slice(0, HOST_SAMPLE)
      .reduce((n, p) => n + replayPacket(p, events, { host }).same, 0);
    if (!best || same > best.same) best = { host, same };
  }
  return best?.host;
}

export function replayView(input: ReplayInput): ReplayView {
  const parsed = parseRealTrace(input.text);
  const compared = parsed.packets.filter((p) => p.steps.some((s) => !s.tracing));
  const packet = compared.find((p) => p.id === input.packet) ?? compared[0] ?? null;
  return {
    format: parsed.format,
    errors: parsed.errors,
    unknown: parsed.unknown,
    packets: compared.map((p) => ({
      id: p.id,
      line: p.line,
      summary: p.summary,
      steps: p.steps.filter((s) => !s.tracing).length,
    })),
    packet: packet?.id ?? null,
    alignment: packet ? replayPacket(packet, input.events, hostOpt(compared, input.events)) : null,
  };
}

function hostOpt(packets: readonly RealPacket[], events: ReplayInput['events']) {
  const host = tracedHost(packets, events);
  return host === undefined ? {} : { host };
}

/** Answers one request; an exception becomes an error response. */
export function handleReplay(msg: ReplayRequest): ReplayResponse {
  try {
    return { type: 'replayed', id: msg.id, view: replayView(msg.input) };
  } catch (e) {
    return { type: 'error', id: msg.id, message: e instanceof Error ? e.message : String(e) };
  }
}
