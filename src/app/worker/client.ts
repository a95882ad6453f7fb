/**
 * Main-thread side of the simulation worker: one run in flight per lab, newer runs cancel older
 * ones, a worker that dies is restarted and the run retried once, and without Worker support the
 * same handler runs in this thread.
 *
 * Time: a run past `timeoutMs` is reported slow (the lab offers to keep waiting or to stop it); a
 * big valid cluster may need longer on a slow machine, so it is not killed then. Only past
 * `hardTimeoutMs` is a run nobody chose to wait for ended (the worker is terminated and started
 * afresh): what protects an embedded lab from a run that never ends.
 */
import { checkRequest, runRequest } from './handler.ts';
import type {
  CheckExercise,
  CheckInput,
  CheckOutcome,
  ChoicesQuery,
  ShownChoices,
  RunInput,
  RunView,
  RunOutcome,
  WorkerRequest,
  WorkerResponse,
} from './protocol.ts';

/** The part of the Worker API the client uses (tests pass a fake). */
export interface WorkerLike {
  postMessage(msg: WorkerRequest): void;
  terminate(): void;
  onmessage: ((e: MessageEvent<WorkerResponse>) => void) | null;
  onerror: ((e: ErrorEvent | Event) => void) | null;
}

export interface LabClientOptions {
  /** Creates the worker; null or a throw means "no workers here": run in this thread. */
  createWorker: () => WorkerLike | null;
  /** Loads runLab for the in-thread fallback (a dynamic import keeps it out of the main chunk). */
  loadInThread: () => Promise<RunView>;
  /** Loads the exercise checker for the in-thread fallback. */
  loadCheckInThread?: () => Promise<CheckExercise>;
  /** The path picker's filter in the in-thread fallback (the choices of runs made here). */
  answerInThread?: (query: ChoicesQuery) => ShownChoices | null;
  /** When a run is reported slow. */
  timeoutMs?: number;
  /** When a slow run nobody chose to wait for is stopped. */
  hardTimeoutMs?: number;
}

export interface RunOptions {
  /** The run passed `timeoutMs` and goes on. */
  readonly onSlow?: () => void;
  /** No hard limit: the user asked to run it to the end. */
  readonly noLimit?: boolean;
}

export interface LabClient {
  run(input: RunInput, opts?: RunOptions): Promise<RunOutcome>;
  /** The slow run goes on without a limit (the user chose to wait). */
  keepWaiting(): void;
  /** Ends the run in flight now (the user stopped a slow run): it answers `timeout`. */
  stop(): void;
  /**
   * Starts a run before anyone asks (at boot, before the app has loaded); the first `run` with
   * the same input gets its answer instead of starting again.
   */
  prefetch(input: RunInput): void;
  /** Checks an exercise answer; a newer check cancels an older one (runs are not affected). */
  check(input: CheckInput): Promise<CheckOutcome>;
  /**
   * The options of a result's path choices matching the picker's filter (the choices stay where
   * the result was made); null when that result's are no longer kept or a newer query came.
   */
  choices(query: ChoicesQuery): Promise<ShownChoices | null>;
  /** How many times the worker was (re)started; for tests and the status line. */
  readonly starts: number;
  readonly mode: 'worker' | 'in-thread';
  dispose(): void;
}

interface Pending {
  readonly id: number;
  readonly input: RunInput;
  readonly resolve: (o: RunOutcome) => void;
  readonly opts: RunOptions;
  timer: ReturnType<typeof setTimeout> | null;
  retried: boolean;
  started: number;
}

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createLabClient(opts: LabClientOptions): LabClient {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const hardTimeoutMs = Math.max(opts.hardTimeoutMs ?? 60_000, timeoutMs);
  let worker: WorkerLike | null = null;
  let inThread = false;
  let starts = 0;
  let nextId = 1;
  let pending: Pending | null = null;
  let primed: { key: string; promise: Promise<RunOutcome> } | null = null;
  let checking: {
    readonly id: number;
    readonly resolve: (o: CheckOutcome) => void;
    timer: ReturnType<typeof setTimeout> | null;
  } | null = null;

  let finding: { readonly id: number; readonly resolve: (s: ShownChoices | null) => void } | null =
    null;
  const settleFind = (s: ShownChoices | null) => {
    const f = finding;
    finding = null;
    f?.resolve(s);
  };

  const settleCheck = (o: CheckOutcome) => {
    const c = checking;
    if (!c) return;
    if (c.timer) clearTimeout(c.timer);
    checking = null;
    c.resolve(o);
  };

  const settle = (p: Pending, o: RunOutcome) => {
    if (p.timer) clearTimeout(p.timer);
    if (pending === p) pending = null;
    p.resolve(o);
  };

  const kill = () => {
    settleCheck({ kind: 'error', message: 'the simulation worker stopped' });
    settleFind(null);
    if (!worker) return;
    worker.onmessage = null;
    worker.onerror = null;
    worker.terminate();
    worker = null;
  };

  const ensureWorker = (): WorkerLike | null => {
    if (worker || inThread) return worker;
    let w: WorkerLike | null = null;
    try {
      w = opts.createWorker();
    } catch {
      w = null;
    }
    if (!w) {
      inThread = true;
      return null;
    }
    starts++;
    w.onmessage = (e) => {
      const msg = e.data;
      if (msg.type === 'choices') {
        if (finding?.id === msg.id) settleFind(msg.shown);
        return;
      }
      if (checking && msg.id === checking.id) {
        if (msg.type === 'checked') settleCheck({ kind: 'report', report: msg.report, ms: msg.ms });
        else if (msg.type === 'cancelled') settleCheck({ kind: 'cancelled' });
        else if (msg.type === 'error') settleCheck({ kind: 'error', message: msg.message });
        return;
      }
      const p = pending;
      if (!p || msg.id !== p.id) return; // an answer for a run nobody waits for any more
      if (msg.type === 'result')
        settle(p, {
          kind: 'result',
          result: msg.result,
          ms: msg.ms,
          ...(msg.cached ? { cached: true } : {}),
        });
      else if (msg.type === 'cancelled') settle(p, { kind: 'cancelled' });
      else if (msg.type === 'error')
        settle(p, { kind: 'error', reason: 'exception', message: msg.message });
    };
    w.onerror = (e) => {
      if ('preventDefault' in e) e.preventDefault();
      kill();
      const p = pending;
      if (!p) return;
      if (p.retried) {
        settle(p, { kind: 'error', reason: 'crash', message: 'the simulation worker stopped' });
        return;
      }
      p.retried = true;
      send(p);
    };
    worker = w;
    return w;
  };

  const send = (p: Pending) => {
    const w = ensureWorker();
    if (!w) {
      void opts.loadInThread().then((runLab) => {
        if (pending !== p) return settle(p, { kind: 'cancelled' });
        const r = runRequest(runLab, p.id, p.input);
        if (r.type === 'result') settle(p, { kind: 'result', result: r.result, ms: r.ms });
        else
          settle(p, {
            kind: 'error',
            reason: 'exception',
            message: r.type === 'error' ? r.message : '',
          });
      });
      return;
    }
    if (p.timer) clearTimeout(p.timer);
    p.started = Date.now();
    p.timer = setTimeout(() => {
      p.timer = p.opts.noLimit ? null : setTimeout(() => end(p), hardTimeoutMs - timeoutMs);
      p.opts.onSlow?.();
    }, timeoutMs);
    w.postMessage({ type: 'run', id: p.id, input: p.input });
  };

  /** runLab is synchronous: the only way to stop it is to end the worker. */
  const end = (p: Pending) => {
    kill();
    settle(p, {
      kind: 'error',
      reason: 'timeout',
      message: `stopped after ${Math.round((Date.now() - p.started) / 1000)} s`,
    });
  };

  const keyOf = (i: RunInput) =>
    JSON.stringify([
      i.scenario,
      i.manifests ?? null,
      i.variant ?? null,
      i.mode ?? null,
      i.path ?? null,
    ]);

  const run = (input: RunInput, runOpts: RunOptions = {}): Promise<RunOutcome> => {
    const p = primed;
    primed = null;
    if (p && p.key === keyOf(input)) return p.promise;
    const old = pending;
    if (old) {
      worker?.postMessage({ type: 'cancel', id: old.id });
      settle(old, { kind: 'cancelled' });
    }
    return new Promise<RunOutcome>((resolve) => {
      const next: Pending = {
        id: nextId++,
        input,
        resolve,
        opts: runOpts,
        timer: null,
        retried: false,
        started: Date.now(),
      };
      pending = next;
      send(next);
    });
  };

  const check = (input: CheckInput): Promise<CheckOutcome> => {
    if (checking) {
      worker?.postMessage({ type: 'cancel', id: checking.id });
      settleCheck({ kind: 'cancelled' });
    }
    return new Promise<CheckOutcome>((resolve) => {
      const id = nextId++;
      checking = { id, resolve, timer: null };
      const w = ensureWorker();
      if (!w) {
        const load = opts.loadCheckInThread;
        if (!load)
          return settleCheck({ kind: 'error', message: 'exercises cannot be checked here' });
        void load().then((fn) => {
          if (checking?.id !== id) return;
          const r = checkRequest(fn, id, input);
          settleCheck(
            r.type === 'checked'
              ? { kind: 'report', report: r.report, ms: r.ms }
              : { kind: 'error', message: r.type === 'error' ? r.message : '' },
          );
        });
        return;
      }
      (checking as { timer: ReturnType<typeof setTimeout> | null }).timer = setTimeout(() => {
        // A check that hangs holds the worker: end it; a run waiting behind it is sent again.
        const run = pending;
        settleCheck({ kind: 'error', message: `the check took longer than ${timeoutMs / 1000} s` });
        kill();
        if (run) send(run);
      }, timeoutMs);
      w.postMessage({ type: 'check', id, input });
    });
  };

  const choices = (query: ChoicesQuery): Promise<ShownChoices | null> => {
    settleFind(null); // a newer filter: the older one's answer is not wanted
    return new Promise((resolve) => {
      const w = ensureWorker();
      if (!w) return resolve(opts.answerInThread?.(query) ?? null);
      const id = nextId++;
      finding = { id, resolve };
      w.postMessage({ type: 'choices', id, query });
    });
  };

  return {
    run,
    choices,
    keepWaiting() {
      const p = pending;
      if (!p?.timer || !worker) return;
      clearTimeout(p.timer);
      p.timer = null;
    },
    stop() {
      const p = pending;
      if (p && worker) end(p);
    },
    check,
    prefetch(input) {
      const promise = run(input);
      primed = { key: keyOf(input), promise };
    },
    get starts() {
      return starts;
    },
    get mode() {
      return inThread ? 'in-thread' : 'worker';
    },
    dispose() {
      if (pending) settle(pending, { kind: 'cancelled' });
      kill();
    },
  };
}
