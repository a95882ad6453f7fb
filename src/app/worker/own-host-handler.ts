/**
 * The "Your host" worker's logic, free of any worker API (Node tests call it): requests waiting
 * while one is computed are dropped but the newest (the user kept typing), and an exception is an
 * error answer, never a dead worker.
 */
import type { OwnHostInput, OwnRequest, OwnResponse, RunOwnHost } from './own-host-protocol.ts';

export function createOwnHostHandler(
  run: RunOwnHost,
  post: (r: OwnResponse) => void,
  defer: (fn: () => void) => void = (fn) => setTimeout(fn, 0),
): { receive(msg: OwnRequest): void } {
  let waiting: { id: number; input: OwnHostInput } | null = null;
  const drain = () => {
    const job = waiting;
    waiting = null;
    if (!job) return;
    const t0 = performance.now();
    try {
      post({ type: 'own', id: job.id, result: run(job.input), ms: performance.now() - t0 });
    } catch (e) {
      post({ type: 'error', id: job.id, message: e instanceof Error ? e.message : String(e) });
    }
  };
  return {
    receive(msg) {
      const scheduled = waiting !== null;
      waiting = { id: msg.id, input: msg.input };
      if (!scheduled) defer(drain);
    },
  };
}
