/**
 * The matrix worker's logic, free of any worker API (Node tests call it): one job per slot, a
 * newer request on a slot replaces the older, and cells are computed in slices of about
 * `sliceMs` each, with a macrotask between slices so cancels and new requests get in.
 */
import type { MatrixOpen } from '../../cluster/matrix.ts';
import type {
  MatrixCell,
  MatrixRequest,
  MatrixResponse,
  MatrixSlot,
  OpenMatrix,
} from './matrix-protocol.ts';

export interface MatrixHandler {
  receive(msg: MatrixRequest): void;
}

interface Job {
  readonly id: number;
  readonly open: MatrixOpen & { ok: true };
  next: number;
  readonly started: number;
}

export function createMatrixHandler(
  openMatrix: OpenMatrix,
  post: (r: MatrixResponse) => void,
  defer: (fn: () => void) => void = (fn) => setTimeout(fn, 0),
  sliceMs = 40,
  now: () => number = () => performance.now(),
): MatrixHandler {
  const jobs = new Map<MatrixSlot, Job>();
  let scheduled = false;

  const schedule = () => {
    if (scheduled || !jobs.size) return;
    scheduled = true;
    defer(tick);
  };

  /** One slice of every job in turn, so a compared matrix fills in beside the lab's own. */
  function tick() {
    scheduled = false;
    const budget = sliceMs / Math.max(1, jobs.size);
    for (const [slot, job] of [...jobs]) {
      const t0 = now();
      const cells: MatrixCell[] = [];
      const from = job.next;
      try {
        while (
          job.next < job.open.layout.pairs.length &&
          (cells.length === 0 || now() - t0 < budget)
        )
          cells.push(job.open.cell(job.next++));
      } catch (e) {
        jobs.delete(slot);
        post({ type: 'error', id: job.id, message: e instanceof Error ? e.message : String(e) });
        continue;
      }
      if (cells.length) post({ type: 'cells', id: job.id, from, cells });
      if (job.next >= job.open.layout.pairs.length) {
        jobs.delete(slot);
        post({ type: 'done', id: job.id, ms: now() - job.started });
      }
    }
    schedule();
  }

  return {
    receive(msg) {
      if (msg.type === 'cancel') {
        for (const [slot, job] of jobs)
          if (job.id === msg.id) {
            jobs.delete(slot);
            post({ type: 'cancelled', id: msg.id });
          }
        return;
      }
      const old = jobs.get(msg.slot);
      if (old) {
        jobs.delete(msg.slot);
        post({ type: 'cancelled', id: old.id });
      }
      const started = now();
      let open: MatrixOpen;
      try {
        open = openMatrix(msg.input);
      } catch (e) {
        post({ type: 'error', id: msg.id, message: e instanceof Error ? e.message : String(e) });
        return;
      }
      if (!open.ok) {
        post({ type: 'invalid', id: msg.id, diagnostics: open.diagnostics });
        return;
      }
      post({ type: 'layout', id: msg.id, layout: open.layout });
      jobs.set(msg.slot, { id: msg.id, open, next: 0, started });
      schedule();
    },
  };
}
