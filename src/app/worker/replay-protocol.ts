/**
 * Messages between the lab and its trace-replay worker (replay.worker.ts): a pasted real trace
 * and the lab's current run go in, the real packets and the chosen one's alignment come out.
 */
import type { AlignedRow, Alignment, TraceEvent, TraceParseError } from '../../engine/index.ts';

export type { AlignedRow, Alignment, TraceParseError };

export interface ReplayInput {
  readonly text: string;
  /** The run the lab shows (its events, in order). */
  readonly events: readonly TraceEvent[];
  /** The real packet to compare (its trace id); the first one that ran a rule otherwise. */
  readonly packet?: string;
}

export interface ReplayPacketView {
  readonly id: string;
  readonly line: number;
  readonly summary: string;
  /** Steps of the ruleset under test (tracing rules left out). */
  readonly steps: number;
}

export interface ReplayView {
  readonly format: 'xtables' | 'nft' | 'unknown';
  readonly errors: readonly TraceParseError[];
  readonly unknown: number;
  /** The packets that ran a rule of the ruleset under test. */
  readonly packets: readonly ReplayPacketView[];
  /** The packet compared, or null when there is none. */
  readonly packet: string | null;
  readonly alignment: Alignment | null;
}

export type ReplayRequest = {
  readonly type: 'replay';
  readonly id: number;
  readonly input: ReplayInput;
};

export type ReplayResponse =
  | { readonly type: 'replayed'; readonly id: number; readonly view: ReplayView }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
