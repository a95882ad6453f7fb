/**
 * Main-thread side of the replay worker: `replay(input)` answers with the view, or null when a
 * newer replay was asked for meanwhile (the user kept typing). Without Worker support the
 * handler runs in this thread (loaded on first use).
 */
import type { ReplayInput, ReplayRequest, ReplayResponse, ReplayView } from './replay-protocol.ts';

export interface ReplayWorkerLike {
  postMessage(msg: ReplayRequest): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<ReplayResponse>) => void) | null;
  onerror: ((e: ErrorEvent | Event) => void) | null;
}

export interface ReplayClient {
  replay(input: ReplayInput): Promise<ReplayView | { readonly error: string } | null>;
  dispose(): void;
}

type Handle = (msg: ReplayRequest) => ReplayResponse;

export function createReplayClient(opts: {
  createWorker: () => ReplayWorkerLike | null;
  loadInThread: () => Promise<Handle>;
}): ReplayClient {
  let worker: ReplayWorkerLike | null = null;
  let tried = false;
  let latest = 0;
  const waiting = new Map<number, (r: ReplayResponse) => void>();

  const deliver = (r: ReplayResponse) => {
    const w = waiting.get(r.id);
    waiting.delete(r.id);
    w?.(r);
  };

  const ensure = (): ReplayWorkerLike | null => {
    if (worker || tried) return worker;
    tried = true;
    try {
      worker = opts.createWorker();
    } catch {
      worker = null;
    }
    if (worker) {
      worker.onmessage = (e) => deliver(e.data);
      worker.onerror = (e) => {
        if ('preventDefault' in e) e.preventDefault();
        worker?.terminate();
        worker = null;
        tried = false;
        for (const id of [...waiting.keys()])
          deliver({ type: 'error', id, message: 'the replay worker stopped' });
      };
    }
    return worker;
  };

  return {
    async replay(input) {
      const id = ++latest;
      const msg: ReplayRequest = { type: 'replay', id, input };
      const w = ensure();
      const r = w
        ? await new Promise<ReplayResponse>((resolve) => {
            waiting.set(id, resolve);
            w.postMessage(msg);
          })
        : (await opts.loadInThread())(msg);
      if (id !== latest) return null;
      return r.type === 'replayed' ? r.view : { error: r.message };
    },
    dispose() {
      waiting.clear();
      worker?.terminate();
      worker = null;
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
