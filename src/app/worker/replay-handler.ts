/** The replay worker's logic, free of any worker API so Node tests call it directly. */
import {
  parseRealTrace,
  probedStages,
  replayPacket,
  replayStages,
  type RealPacket,
} from '../../engine/index.ts';
import type { ReplayInput, ReplayRequest, ReplayResponse, ReplayView } from './replay-protocol.ts';

/** Packets looked at to tell which node the trace was taken on, and which to show first. */
const HOST_SAMPLE = 20;

const ruleSteps = (p: RealPacket) => p.steps.filter((s) => !s.tracing).length;

/** Which score tells the host: rule steps in common, or stages for a functions-only trace. */
type Score = (p: RealPacket, host: string) => number;

/**
 * A trace is taken on one node: the host whose steps the trace's packets match best, all
 * together. One packet alone can fit several (a SYN-ACK forwarded alike by two nodes). Also
 * that host's score of each packet looked at, which picks the packet shown first.
 */
function tracedHost(
  packets: readonly RealPacket[],
  events: ReplayInput['events'],
  score: Score,
): { host: string; scores: number[] } | undefined {
  const hosts = [...new Set(events.map((e) => e.host))];
  const sample = packets.slice(0, HOST_SAMPLE);
  let best: { host: string; scores: number[]; same: number } | undefined;
  for (const host of hosts) {
    const scores = sample.map((p) => score(p, host));
    const same = scores.reduce((n, x) => n + x, 0);
    if (!best || same > best.same) best = { host, scores, same };
  }
  return best;
}

/**
 * The packet shown first: of the packets looked at, the one with the most steps in common with
 * the lab's run on the traced node (the first of equals). A real capture carries packets the
 * probe never sent (a bridge's IGMP report, another connection's SYN); the first may be one.
 */
function bestFit(scores: readonly number[]): number {
  let at = 0;
  scores.forEach((x, i) => {
    if (x > (scores[at] as number)) at = i;
  });
  return at;
}

export function replayView(input: ReplayInput): ReplayView {
  const parsed = parseRealTrace(input.text);
  const ruled = parsed.packets.filter((p) => ruleSteps(p) > 0);
  // A trace with rules compares rules; one without (pwru, Retis's kernel probes) its stages.
  const byStage = ruled.length === 0;
  const compared = byStage ? parsed.packets.filter((p) => p.stages.length > 0) : ruled;
  const probed = probedStages(parsed.packets.map((p) => p.stages));
  const only = parsed.onlyVerdicts ? { onlyVerdicts: parsed.onlyVerdicts } : {};
  const score: Score = byStage
    ? (p, host) => replayStages(p, input.events, probed, host).same
    : (p, host) => replayPacket(p, input.events, { host, ...only }).same;
  const traced = compared.length ? tracedHost(compared, input.events, score) : undefined;
  const host = traced?.host;
  const packet =
    compared.find((p) => p.id === input.packet) ??
    compared[traced ? bestFit(traced.scores) : 0] ??
    null;
  const opts = host === undefined ? {} : { host };
  return {
    format: parsed.format,
    errors: parsed.errors,
    unknown: parsed.unknown,
    packets: compared.map((p) => {
      const drop = p.stages.find((s) => s.stage === 'drop');
      return {
        id: p.id,
        line: p.line,
        summary: p.summary,
        steps: byStage ? p.stages.length : ruleSteps(p),
        drop: drop ? { line: drop.line, reason: drop.reason } : null,
      };
    }),
    packet: packet?.id ?? null,
    alignment: packet && !byStage ? replayPacket(packet, input.events, { ...opts, ...only }) : null,
    stages: packet && byStage ? replayStages(packet, input.events, probed, host) : null,
    onlyVerdicts: parsed.onlyVerdicts ?? null,
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
