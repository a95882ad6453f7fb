/**
 * Main-thread side of the "Your host" worker: `run(input)` answers with the newest result only
 * (an older request's answer is dropped). Without Worker support the same code runs in this
 * thread. A crashed worker answers every waiting run with an error; the next run starts a new one.
 */
import { workerChannel, type WorkerLike } from './channel.ts';
import { createOwnHostHandler } from './own-host-handler.ts';
import type { OwnHostInput, OwnHostView, OwnRequest, OwnResponse } from './own-host-protocol.ts';

export type OwnWorkerLike = WorkerLike<OwnRequest, OwnResponse>;

export type OwnOutcome =
  | { readonly kind: 'result'; readonly result: OwnHostView; readonly ms: number }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'superseded' };

export interface OwnHostClient {
  run(input: OwnHostInput): Promise<OwnOutcome>;
  dispose(): void;
}

export function createOwnHostClient(opts: {
  createWorker: () => OwnWorkerLike | null;
  loadInThread: () => Promise<(input: OwnHostInput) => OwnHostView>;
}): OwnHostClient {
  let nextId = 1;
  const waiting = new Map<number, (o: OwnOutcome) => void>();
  const deliver = (r: OwnResponse) => {
    const done = waiting.get(r.id);
    if (!done) return;
    waiting.delete(r.id);
    // Answers come in order: every older request is now superseded.
    for (const [id, older] of waiting)
      if (id < r.id) {
        waiting.delete(id);
        older({ kind: 'superseded' });
      }
    done(
      r.type === 'own'
        ? { kind: 'result', result: r.result, ms: r.ms }
        : { kind: 'error', message: r.message },
    );
  };
  const channel = workerChannel<OwnRequest, OwnResponse>({
    createWorker: opts.createWorker,
    loadInThread: async (d) => createOwnHostHandler(await opts.loadInThread(), d),
    deliver,
    crashed: () => {
      for (const id of [...waiting.keys()])
        deliver({ type: 'error', id, message: 'the worker stopped' });
    },
  });
  return {
    run(input) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        channel.send({ type: 'own', id, input });
      });
    },
    dispose() {
      for (const done of waiting.values()) done({ kind: 'superseded' });
      waiting.clear();
      channel.dispose();
    },
  };
}

/** The browser's client: a module worker, or the same code in this thread. */
export function createBrowserOwnHostClient(): OwnHostClient {
  return createOwnHostClient({
    createWorker: () =>
      typeof Worker === 'undefined'
        ? null
        : (new Worker(new URL('./own-host.worker.ts', import.meta.url), {
            type: 'module',
            name: 'hookpath-own-host',
          }) as unknown as OwnWorkerLike),
    loadInThread: async () => (await import('./own-host-run.ts')).runOwnHostView,
  });
}
