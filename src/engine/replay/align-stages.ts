/**
 * The coarser replay, for tracers that see kernel functions and not rules (pwru, Retis's kernel
 * probes): which hooks the real packet passed, where it was received, bridged, delivered to a
 * socket, sent or dropped, against the same stages of the engine's run. No rule is compared:
 * such a trace cannot say which rule ran.
 */
import type { TraceEvent } from '../trace.ts';
import type { RealPacket, RealStage, Stage } from './types.ts';
import { better, summarise, type Summary } from './summary.ts';

export interface SimStage {
  /** The `seq` of the stage's first event: where the lab moves when the row is picked. */
  readonly seq: number;
  readonly stage: Stage;
  /** The drop's reason in the engine's words, or null. */
  readonly reason: string | null;
}

export type StageStatus =
  /** Both passed it (both dropped it, for a drop). */
  | 'same'
  /** The lab passed it; the kernel was not seen there. */
  | 'missing'
  /** The kernel passed it; the lab did not. */
  | 'extra'
  /** The lab passed it where the trace could not see (a function the tracer did not probe). */
  | 'unseen';

export interface StageRow {
  readonly status: StageStatus;
  readonly real: RealStage | null;
  readonly sim: SimStage | null;
}

export type StageAlignment = Summary<StageRow>;

function stageOf(e: TraceEvent): Stage | null {
  if ('hook' in e) return e.hook;
  if (e.type === 'receive') return 'receive';
  if (e.type === 'socket') return 'socket';
  if (e.type === 'wire') return 'xmit';
  if (e.type === 'drop') return 'drop';
  // br_netfilter's passes show as the hooks' own events; the bridge's decisions as the bridge.
  if (e.type === 'bridge' && !e.action.startsWith('nf-')) return 'bridge';
  return null;
}

function push(list: SimStage[], seq: number, stage: Stage, reason: string | null = null): void {
  if (stage !== 'drop' && list[list.length - 1]?.stage === stage) return;
  list.push({ seq, stage, reason });
}

/**
 * The hooks a routing decision implies even on a host without any table (no hook event there):
 * NF_HOOK runs whether or not anything is registered. ip_rcv runs PRE_ROUTING before the input
 * route lookup (ip_rcv_finish → ip_route_input_noref), whose result calls ip_local_deliver
 * (LOCAL_IN) or ip_forward (FORWARD); a local packet passes __ip_local_out (LOCAL_OUT) after
 * its output route; both leave by ip_output (POST_ROUTING).
 */
function implied(list: SimStage[], e: TraceEvent): void {
  if (e.type === 'route') {
    const d = e.decision;
    const received = !list.some((s) => s.stage === 'OUTPUT');
    if (received && (d === 'local' || d === 'forward' || d === 'drop' || d === 'unreachable'))
      if (!list.some((s) => s.stage === 'PREROUTING')) push(list, e.seq, 'PREROUTING');
    if (d === 'local') push(list, e.seq, 'INPUT');
    if (d === 'forward') push(list, e.seq, 'FORWARD');
    if (d === 'output') push(list, e.seq, 'OUTPUT');
  }
  const last = list[list.length - 1]?.stage;
  if (e.type === 'wire' && (last === 'OUTPUT' || last === 'FORWARD'))
    push(list, e.seq, 'POSTROUTING');
}

/** The engine's stages per `host packetId`, consecutive events of one stage as one. */
export function simStages(events: readonly TraceEvent[]): Map<string, SimStage[]> {
  const out = new Map<string, SimStage[]>();
  for (const e of events) {
    const key = `${e.host} ${e.packetId}`;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    implied(list, e);
    const stage = stageOf(e);
    if (stage) push(list, e.seq, stage, e.type === 'drop' ? e.reason : null);
  }
  for (const [k, list] of out) if (list.length === 0) out.delete(k);
  return out;
}

/** Longest common subsequence of stages, walked forward; unmatched rows keep their order. */
export function alignStages(
  real: readonly RealStage[],
  sim: readonly SimStage[],
  probed: ReadonlySet<Stage>,
): StageRow[] {
  const n = real.length;
  const m = sim.length;
  const score: Int32Array[] = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) {
      const here = score[i] as Int32Array;
      const next = score[i + 1] as Int32Array;
      here[j] =
        real[i]?.stage === sim[j]?.stage
          ? 1 + (next[j + 1] as number)
          : Math.max(next[j] as number, here[j + 1] as number);
    }
  const rows: StageRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const r = real[i];
    const s = sim[j];
    if (r && s && r.stage === s.stage) {
      rows.push({ status: 'same', real: r, sim: s });
      i++;
      j++;
    } else if (r && (!s || (score[i + 1] as Int32Array)[j] === (score[i] as Int32Array)[j])) {
      rows.push({ status: 'extra', real: r, sim: null });
      i++;
    } else if (s) {
      rows.push({ status: probed.has(s.stage) ? 'missing' : 'unseen', real: null, sim: s });
      j++;
    }
  }
  return rows;
}

export function isStageDisagreement(s: StageStatus): boolean {
  return s === 'missing' || s === 'extra';
}

const summarised = (host: string, packetId: number, rows: StageRow[]): StageAlignment =>
  summarise(host, packetId, rows, isStageDisagreement);

/**
 * The real packet's stages against every host and packet of the run (or the host asked for),
 * keeping the alignment with the most stages in common, then the fewest disagreements.
 */
export function replayStages(
  packet: RealPacket,
  events: readonly TraceEvent[],
  probed: ReadonlySet<Stage>,
  host?: string,
): StageAlignment {
  let best: StageAlignment | null = null;
  for (const [key, stages] of simStages(events)) {
    const [h = '', pid = '0'] = key.split(' ');
    if (host !== undefined && h !== host) continue;
    const a = summarised(h, Number(pid), alignStages(packet.stages, stages, probed));
    if (better(a, best)) best = a;
  }
  return best ?? summarised(host ?? '', 1, alignStages(packet.stages, [], probed));
}
