/**
 * The worker's logic, free of any worker API so Node tests call it directly: requests queue up
 * while a run is busy, and when the worker is free again only the newest run is computed; the
 * superseded ones are answered `cancelled` (the user kept typing, nobody wants them).
 */
import type { RunInput, RunLab, WorkerRequest, WorkerResponse } from './protocol.ts';

export interface LabHandler {
  receive(msg: WorkerRequest): void;
}

/** Runs one request; exceptions become error responses (errors are data, not crashes). */
export function runRequest(runLab: RunLab, id: number, input: RunInput): WorkerResponse {
  const t0 = performance.now();
  try {
    const result = runLab(input);
    return { type: 'result', id, result, ms: performance.now() - t0 };
  } catch (e) {
    return { type: 'error', id, message: e instanceof Error ? e.message : String(e) };
  }
}

export function createLabHandler(
  runLab: RunLab,
  post: (r: WorkerResponse) => void,
  // A macrotask lets messages already waiting in the port arrive (and cancel) before we run.
  defer: (fn: () => void) => void = (fn) => setTimeout(fn, 0),
): LabHandler {
  const pending = new Map<number, RunInput>();
  let scheduled = false;

  const drain = () => {
    scheduled = false;
    if (!pending.size) return;
    const latest = Math.max(...pending.keys());
    for (const id of pending.keys()) if (id !== latest) post({ type: 'cancelled', id });
    const input = pending.get(latest) as RunInput;
    pending.clear();
    post(runRequest(runLab, latest, input));
  };

  return {
    receive(msg) {
      if (msg.type === 'cancel') {
        if (pending.delete(msg.id)) post({ type: 'cancelled', id: msg.id });
        return;
      }
      pending.set(msg.id, msg.input);
      if (!scheduled) {
        scheduled = true;
        defer(drain);
      }
    },
  };
}
