/**
 * Messages between the lab and its trace-replay worker (replay.worker.ts): a pasted real trace
 * and the lab's current run go in, the real packets and the chosen one's alignment come out.
 */
import type {
  AlignedRow,
  Alignment,
  Diagnostic,
  StageAlignment,
  StageRow,
  TraceEvent,
  TraceFormat,
} from '../../engine/index.ts';

export type { AlignedRow, Alignment, Diagnostic, StageAlignment, StageRow, TraceFormat };

export interface ReplayInput {
  readonly text: string;
  /** The run the lab shows (its events, in order). */
  readonly events: readonly TraceEvent[];
  /**
   * The real packet to compare (its trace id); otherwise, of the first 20 that ran a rule, the
   * one with the most steps in common with the run on the traced node (the first of equals).
   */
  readonly packet?: string;
}

export interface ReplayPacketView {
  readonly id: string;
  readonly line: number;
  readonly summary: string;
  /** Steps of the ruleset under test (tracing rules left out), or stages (pwru). */
  readonly steps: number;
  /** Where the kernel dropped it (a drop the tracer saw), or null. */
  readonly drop: { readonly line: number; readonly reason: string | null } | null;
}

export interface ReplayView {
  readonly format: TraceFormat;
  readonly errors: readonly Diagnostic[];
  readonly unknown: number;
  /** The packets that ran a rule of the ruleset under test (or, for pwru, passed a stage). */
  readonly packets: readonly ReplayPacketView[];
  /** The packet compared, or null when there is none. */
  readonly packet: string | null;
  readonly alignment: Alignment | null;
  /**
   * For a packet the tracer saw in kernel functions only (pwru; Retis without its nft
   * collector): the hooks it passed against the lab's, no rules.
   */
  readonly stages: StageAlignment | null;
  /** The tracer collected these verdicts only (Retis's default `--nft-verdicts drop,accept`). */
  readonly onlyVerdicts: readonly string[] | null;
}

export type ReplayRequest = {
  readonly type: 'replay';
  readonly id: number;
  readonly input: ReplayInput;
};

export type ReplayResponse =
  | { readonly type: 'replayed'; readonly id: number; readonly view: ReplayView }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
