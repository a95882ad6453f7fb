/** The replay worker's logic, free of any worker API so Node tests call it directly. */
import { parseRealTrace, replayPacket } from '../../engine/index.ts';
import type { ReplayInput, ReplayRequest, ReplayResponse, ReplayView } from './replay-protocol.ts';

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
    alignment: packet ? replayPacket(packet, input.events) : null,
  };
}

/** Answers one request; an exception becomes an error response. */
export function handleReplay(msg: ReplayRequest): ReplayResponse {
  try {
    return { type: 'replayed', id: msg.id, view: replayView(msg.input) };
  } catch (e) {
    return { type: 'error', id: msg.id, message: e instanceof Error ? e.message : String(e) };
  }
}
