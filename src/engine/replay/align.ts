/**
 * A real packet's steps beside the engine's, row by row: a global alignment (Needleman-Wunsch)
 * that pairs steps run in the same table and chain, preferring those with the same verdict (and
 * the same nft handle where both sides know it). The first row that is not the same step is the
 * first disagreement: a rule the lab ran and the kernel did not (missing), one the kernel ran
 * and the lab did not (extra), or the same place with another verdict or rule.
 */
import type { RealPacket, RealStep } from './types.ts';
import { simSteps, type SimStep } from './sim-steps.ts';
import type { TraceEvent } from '../trace.ts';
import { better, summarise, type Summary } from './summary.ts';

export type RowStatus =
  /** Same place, same verdict. */
  | 'same'
  /** Same table, chain and kind, another verdict. */
  | 'verdict'
  /** Same chain and verdict, another rule (nft handles differ). */
  | 'rule'
  /** The lab ran it, the kernel reported nothing. */
  | 'missing'
  /** The kernel ran it, the lab did not. */
  | 'extra'
  /** A real step that only switches tracing on: not compared. */
  | 'tracing'
  /** Either side's step the other may leave out (a chain's end, an undeclared chain's policy). */
  | 'optional';

export interface AlignedRow {
  readonly status: RowStatus;
  readonly real: RealStep | null;
  readonly sim: SimStep | null;
}

export type Alignment = Summary<AlignedRow>;

const DISAGREE: ReadonlySet<RowStatus> = new Set(['verdict', 'rule', 'missing', 'extra']);

export function isDisagreement(s: RowStatus): boolean {
  return DISAGREE.has(s);
}

function samePlace(r: RealStep, s: SimStep): boolean {
  // A tracer that names no family (Retis) matches the table of any family.
  return (
    (r.family === '' || r.family === s.family) &&
    r.table === s.table &&
    r.chain === s.chain &&
    r.kind === s.kind
  );
}

/** How a pair of steps compares, or null if they are not the same place. */
function pairStatus(r: RealStep, s: SimStep): RowStatus | null {
  if (!samePlace(r, s)) return null;
  if (r.verdict !== s.verdict) return 'verdict';
  // nft handles are the kernel's for nft tables (the engine allocates them as it does); an
  // iptables rule's handle depends on the node's history, its position is not printed.
  if (s.handle !== null && r.handle !== null && s.handle !== r.handle) return 'rule';
  return 'same';
}

const SCORE: Readonly<Record<string, number>> = { same: 4, rule: 2, verdict: 1 };

/** Aligns one real packet with one list of engine steps. */
export function alignSteps(real: readonly RealStep[], sim: readonly SimStep[]): AlignedRow[] {
  const n = real.length;
  const m = sim.length;
  // score[i][j]: best score aligning real[i..] with sim[j..]; filled backwards for a forward walk.
  const score: Float64Array[] = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = score[i] as Float64Array;
    const below = score[i + 1] as Float64Array;
    for (let j = m - 1; j >= 0; j--) {
      const st = pairStatus(real[i] as RealStep, sim[j] as SimStep);
      const diag = st ? (SCORE[st] ?? 0) + (below[j + 1] as number) : -1;
      row[j] = Math.max(diag, below[j] as number, row[j + 1] as number);
    }
  }
  const rows: AlignedRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const r = real[i];
    const s = sim[j];
    if (r && s) {
      const st = pairStatus(r, s);
      const here = (score[i] as Float64Array)[j] as number;
      if (st && here === (SCORE[st] ?? 0) + ((score[i + 1] as Float64Array)[j + 1] as number)) {
        rows.push({ status: st, real: r, sim: s });
        i++;
        j++;
        continue;
      }
      // Leave out the real step first where both ways score alike: its extra row comes first.
      if (here === ((score[i + 1] as Float64Array)[j] as number)) {
        rows.push(realOnly(r));
        i++;
      } else {
        rows.push(simOnly(s));
        j++;
      }
    } else if (r) {
      rows.push(realOnly(r));
      i++;
    } else if (s) {
      rows.push(simOnly(s));
      j++;
    }
  }
  return rows;
}

function realOnly(r: RealStep): AlignedRow {
  // Older kernels trace a chain's end too (NFT_TRACETYPE_RETURN); the engine may not show it.
  const status = r.tracing ? 'tracing' : r.kind === 'return' ? 'optional' : 'extra';
  return { status, real: r, sim: null };
}

function simOnly(s: SimStep): AlignedRow {
  return { status: s.optional ? 'optional' : 'missing', real: null, sim: s };
}

const summarised = (host: string, packetId: number, rows: AlignedRow[]): Alignment =>
  summarise(host, packetId, rows, isDisagreement);

export interface ReplayOptions {
  /** Compare with this host's steps only (the node the trace was taken on). */
  readonly host?: string;
  /** And this packet of the exchange (1 = the probe's first packet). */
  readonly packetId?: number;
  /**
   * The only verdicts the tracer collected (ParsedTrace.onlyVerdicts): the lab's other steps
   * are not compared.
   */
  readonly onlyVerdicts?: readonly string[];
}

function collected(steps: readonly SimStep[], only: readonly string[] | undefined): SimStep[] {
  if (!only) return [...steps];
  return steps.map((s) =>
    s.kind === 'return' || !only.includes(s.verdict.split(' ')[0] as string)
      ? { ...s, optional: 'not-collected' as const }
      : s,
  );
}

/**
 * The real packet against the engine run: against every host and packet of the run (or the
 * ones asked for), keeping the alignment with the most steps in common (then the fewest
 * disagreements): a trace says neither which node it was taken on nor which packet it is.
 */
export function replayPacket(
  packet: RealPacket,
  events: readonly TraceEvent[],
  opts: ReplayOptions = {},
): Alignment {
  let best: Alignment | null = null;
  for (const [key, steps] of simSteps(events)) {
    const [host = '', pid = '0'] = key.split(' ');
    if (opts.host !== undefined && host !== opts.host) continue;
    if (opts.packetId !== undefined && Number(pid) !== opts.packetId) continue;
    const a = summarised(
      host,
      Number(pid),
      alignSteps(packet.steps, collected(steps, opts.onlyVerdicts)),
    );
    if (better(a, best)) best = a;
  }
  return best ?? summarised(opts.host ?? '', opts.packetId ?? 1, alignSteps(packet.steps, []));
}
