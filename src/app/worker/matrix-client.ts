/**
 * Main-thread side of the matrix worker: `compute(slot, input, listener)` streams a matrix's
 * layout and cells to the listener; a newer compute on the slot (or the returned stop) ends the
 * older. Without Worker support the same handler runs in this thread, between frames.
 */
import { workerChannel, type WorkerLike } from './channel.ts';
import { createMatrixHandler } from './matrix-handler.ts';
import type {
  MatrixInput,
  MatrixRequest,
  MatrixResponse,
  MatrixSlot,
  OpenMatrix,
} from './matrix-protocol.ts';

export type MatrixWorkerLike = WorkerLike<MatrixRequest, MatrixResponse>;

export interface MatrixClientOptions {
  createWorker: () => MatrixWorkerLike | null;
  loadInThread: () => Promise<OpenMatrix>;
}

export type MatrixListener = (r: MatrixResponse) => void;

export interface MatrixClient {
  /** Starts a matrix; returns a function that stops it. */
  compute(slot: MatrixSlot, input: MatrixInput, listener: MatrixListener): () => void;
  dispose(): void;
}

export function createMatrixClient(opts: MatrixClientOptions): MatrixClient {
  let nextId = 1;
  const listeners = new Map<number, MatrixListener>();
  const bySlot = new Map<MatrixSlot, number>();

  const deliver = (r: MatrixResponse) => {
    const l = listeners.get(r.id);
    if (!l) return;
    if (r.type === 'done' || r.type === 'cancelled' || r.type === 'error' || r.type === 'invalid')
      listeners.delete(r.id);
    l(r);
  };
  const channel = workerChannel<MatrixRequest, MatrixResponse>({
    createWorker: opts.createWorker,
    loadInThread: async (d) =>
      createMatrixHandler(await opts.loadInThread(), d, (fn) => setTimeout(fn, 16)),
    deliver,
    // Every waiting matrix is told; the next compute starts a new worker.
    crashed: () => {
      for (const id of [...listeners.keys()])
        deliver({ type: 'error', id, message: 'the matrix worker stopped' });
    },
  });

  return {
    compute(slot, input, listener) {
      const id = nextId++;
      const old = bySlot.get(slot);
      if (old !== undefined) listeners.delete(old);
      bySlot.set(slot, id);
      listeners.set(id, listener);
      channel.send({ type: 'matrix', id, slot, input });
      return () => {
        if (!listeners.has(id)) return;
        listeners.delete(id);
        channel.send({ type: 'cancel', id });
      };
    },
    dispose() {
      listeners.clear();
      channel.dispose();
    },
  };
}

/** The browser's matrix client: a module worker, or the handler in this thread. */
export function createBrowserMatrixClient(): MatrixClient {
  return createMatrixClient({
    createWorker: () =>
      typeof Worker === 'undefined'
        ? null
        : (new Worker(new URL('./matrix.worker.ts', import.meta.url), {
            type: 'module',
            name: 'hookpath-matrix',
          }) as unknown as MatrixWorkerLike),
    loadInThread: async () => (await import('../../cluster/matrix.ts')).openMatrix,
  });
}
