/**
 * Main-thread side of the replay worker: `replay(input)` answers with the view, or null when a
 * newer replay was asked for meanwhile (the user kept typing). Without Worker support the
 * handler runs in this thread (loaded on first use).
 */
import { workerChannel, type WorkerLike } from './channel.ts';
import type { ReplayInput, ReplayRequest, ReplayResponse, ReplayView } from './replay-protocol.ts';

export type ReplayWorkerLike = WorkerLike<ReplayRequest, ReplayResponse>;

export interface ReplayClient {
  replay(input: ReplayInput): Promise<ReplayView | { readonly error: string } | null>;
  dispose(): void;
}

type Handle = (msg: ReplayRequest) => ReplayResponse;

export function createReplayClient(opts: {
  createWorker: () => ReplayWorkerLike | null;
  loadInThread: () => Promise<Handle>;
}): ReplayClient {
  let latest = 0;
  const waiting = new Map<number, (r: ReplayResponse) => void>();

  const deliver = (r: ReplayResponse) => {
    const w = waiting.get(r.id);
    waiting.delete(r.id);
    w?.(r);
  };
  const channel = workerChannel<ReplayRequest, ReplayResponse>({
    createWorker: opts.createWorker,
    loadInThread: async (d) => {
      const handle = await opts.loadInThread();
      return { receive: (m) => d(handle(m)) };
    },
    deliver,
    crashed: () => {
      for (const id of [...waiting.keys()])
        deliver({ type: 'error', id, message: 'the replay worker stopped' });
    },
  });

  return {
    async replay(input) {
      const id = ++latest;
      const r = await new Promise<ReplayResponse>((resolve) => {
        waiting.set(id, resolve);
        channel.send({ type: 'replay', id, input });
      });
      if (id !== latest) return null;
      return r.type === 'replayed' ? r.view : { error: r.message };
    },
    dispose() {
      waiting.clear();
      channel.dispose();
    },
  };
}

export function createBrowserReplayClient(): ReplayClient {
  return createReplayClient({
    createWorker: () =>
      typeof Worker === 'undefined'
        ? null
        : (new Worker(new URL('./replay.worker.ts', import.meta.url), {
            type: 'module',
            name: 'hookpath-replay',
          }) as unknown as ReplayWorkerLike),
    loadInThread: async () => (await import('./replay-handler.ts')).handleReplay,
  });
}
