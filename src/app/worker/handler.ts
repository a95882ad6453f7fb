/**
 * The worker's logic, free of any worker API so Node tests call it directly: requests queue up
 * while a run is busy, and when the worker is free again only the newest run is computed; the
 * superseded ones are answered `cancelled` (the user kept typing, nobody wants them).
 */
import type { Answer, CheckExercise, CheckInput, RunInput, WorkerRequest } from './protocol.ts';

/** Requests for runs and checks (the picker's filter is answered apart, choice-server.ts). */
export type RunRequest = Exclude<WorkerRequest, { readonly type: 'choices' }>;

export interface LabHandler {
  receive(msg: RunRequest): void;
}

/** Runs one request; exceptions become error responses (errors are data, not crashes). */
export function runRequest<V>(
  runLab: (input: RunInput) => V,
  id: number,
  input: RunInput,
): Answer<V> {
  const t0 = performance.now();
  try {
    const result = runLab(input);
    return { type: 'result', id, result, ms: performance.now() - t0 };
  } catch (e) {
    return { type: 'error', id, message: e instanceof Error ? e.message : String(e) };
  }
}

/** Checks one exercise answer; exceptions become error responses. */
export function checkRequest(check: CheckExercise, id: number, input: CheckInput): Answer<never> {
  const t0 = performance.now();
  try {
    return { type: 'checked', id, report: check(input), ms: performance.now() - t0 };
  } catch (e) {
    return { type: 'error', id, message: e instanceof Error ? e.message : String(e) };
  }
}

/** Takes the newest entry of a queue; the others are answered `cancelled`. */
function newest<T>(queue: Map<number, T>, post: (r: Answer<never>) => void): [number, T] | null {
  if (!queue.size) return null;
  const latest = Math.max(...queue.keys());
  for (const id of queue.keys()) if (id !== latest) post({ type: 'cancelled', id });
  const input = queue.get(latest) as T;
  queue.clear();
  return [latest, input];
}

export function createLabHandler<V>(
  runLab: (input: RunInput) => V,
  post: (r: Answer<V>) => void,
  // A macrotask lets messages already waiting in the port arrive (and cancel) before we run.
  defer: (fn: () => void) => void = (fn) => setTimeout(fn, 0),
  checkExercise?: CheckExercise,
): LabHandler {
  const pending = new Map<number, RunInput>();
  // Exercise checks queue apart from runs: a run never cancels a check, nor the other way.
  const checks = new Map<number, CheckInput>();
  let scheduled = false;

  const drain = () => {
    scheduled = false;
    const run = newest(pending, post);
    if (run) post(runRequest(runLab, ...run));
    const check = newest(checks, post);
    if (check)
      post(
        checkExercise
          ? checkRequest(checkExercise, ...check)
          : { type: 'error', id: check[0], message: 'this worker does not check exercises' },
      );
  };

  return {
    receive(msg) {
      if (msg.type === 'cancel') {
        if (pending.delete(msg.id) || checks.delete(msg.id))
          post({ type: 'cancelled', id: msg.id });
        return;
      }
      if (msg.type === 'check') checks.set(msg.id, msg.input);
      else pending.set(msg.id, msg.input);
      if (!scheduled) {
        scheduled = true;
        defer(drain);
      }
    },
  };
}
