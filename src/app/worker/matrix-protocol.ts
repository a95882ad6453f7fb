/**
 * Messages between the lab and its matrix worker (src/app/worker/matrix.worker.ts). A matrix is
 * dozens of probes: the worker lays it out, then sends its cells a few at a time, so the table
 * fills in while the page stays responsive and a newer request (the user kept typing) stops an
 * older one between two cells. Two slots (`a`, `b`) run side by side: a compared variant's matrix
 * beside the lab's own.
 */
import type { MatrixCell, MatrixInput, MatrixLayout, MatrixOpen } from '../../cluster/matrix.ts';
import type { Diagnostic } from '../../engine/index.ts';

export type { MatrixCell, MatrixInput, MatrixLayout };

export type MatrixSlot = 'a' | 'b';

/** openMatrix as the worker calls it (tests pass a fake). */
export type OpenMatrix = (input: MatrixInput) => MatrixOpen;

export type MatrixRequest =
  | {
      readonly type: 'matrix';
      readonly id: number;
      readonly slot: MatrixSlot;
      readonly input: MatrixInput;
    }
  | { readonly type: 'cancel'; readonly id: number };

export type MatrixResponse =
  | { readonly type: 'layout'; readonly id: number; readonly layout: MatrixLayout }
  | {
      readonly type: 'invalid';
      readonly id: number;
      readonly diagnostics: readonly Diagnostic[];
    }
  /** Cells `from`…`from + cells.length - 1` of `layout.pairs`. */
  | {
      readonly type: 'cells';
      readonly id: number;
      readonly from: number;
      readonly cells: readonly MatrixCell[];
    }
  | { readonly type: 'done'; readonly id: number; readonly ms: number }
  | { readonly type: 'cancelled'; readonly id: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };
