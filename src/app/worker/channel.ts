/**
 * One worker behind a main-thread client, started on first use: messages go to it, its answers
 * to `deliver`. Where the browser has no Worker (or it fails to start) the same handler runs in
 * this thread, loaded on first use. A worker that crashes is terminated and `crashed` is told
 * (the client answers whoever is waiting); the next send starts a new one.
 */

/** What the clients need of a Worker (tests pass fakes). */
export interface WorkerLike<Req, Res> {
  postMessage(msg: Req): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<Res>) => void) | null;
  onerror: ((e: ErrorEvent | Event) => void) | null;
}

/** The handler that runs in this thread instead: it receives requests, answers via deliver. */
export interface InThread<Req> {
  receive(msg: Req): void;
}

export interface Channel<Req> {
  send(msg: Req): void;
  dispose(): void;
}

export function workerChannel<Req, Res>(opts: {
  createWorker: () => WorkerLike<Req, Res> | null;
  loadInThread: (deliver: (r: Res) => void) => Promise<InThread<Req>>;
  deliver: (r: Res) => void;
  crashed: () => void;
}): Channel<Req> {
  let worker: WorkerLike<Req, Res> | null = null;
  let local: Promise<InThread<Req>> | null = null;

  const start = (): WorkerLike<Req, Res> | null => {
    let w: WorkerLike<Req, Res> | null = null;
    try {
      w = opts.createWorker();
    } catch {
      w = null;
    }
    if (!w) return null;
    w.onmessage = (e) => opts.deliver(e.data);
    w.onerror = (e) => {
      if ('preventDefault' in e) e.preventDefault();
      w?.terminate();
      worker = null;
      opts.crashed();
    };
    return w;
  };

  return {
    send(msg) {
      if (!worker && !local) {
        worker = start();
        if (!worker) local = opts.loadInThread(opts.deliver);
      }
      if (worker) worker.postMessage(msg);
      else void local?.then((h) => h.receive(msg));
    },
    dispose() {
      worker?.terminate();
      worker = null;
    },
  };
}
