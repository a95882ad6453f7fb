import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLabClient, type WorkerLike } from './client.ts';
import { createLabHandler } from './handler.ts';
import type { CheckExercise, RunView, WorkerRequest, WorkerResponse } from './protocol.ts';
import { podResult } from '../testing/lab-fixtures.ts';
import { localChoices } from './choice-server.ts';

/** A fake worker running the real handler; `mode` makes it hang or crash. */
class FakeWorker implements WorkerLike {
  onmessage: ((e: MessageEvent<WorkerResponse>) => void) | null = null;
  onerror: ((e: ErrorEvent | Event) => void) | null = null;
  terminated = false;
  received: WorkerRequest[] = [];
  private handler;
  constructor(
    runLab: RunView,
    private mode: 'ok' | 'hang' | 'crash' | 'slow',
    check?: CheckExercise,
  ) {
    this.handler = createLabHandler(
      runLab,
      // Cloned, as the real worker's postMessage does (a value that cannot be cloned fails here).
      (r) =>
        setTimeout(
          () => this.onmessage?.({ data: structuredClone(r) } as MessageEvent<WorkerResponse>),
          1,
        ),
      (fn) => setTimeout(fn, 0),
      check,
    );
  }
  postMessage(msg: WorkerRequest) {
    this.received.push(msg);
    if (this.mode === 'hang') return;
    // As lab.worker.ts does: a filter is answered at once, from the choices of runs made here.
    if (msg.type === 'choices') {
      const shown = localChoices.answer(msg.query);
      const data: WorkerResponse = { type: 'choices', id: msg.id, shown };
      return void setTimeout(() => this.onmessage?.({ data } as MessageEvent<WorkerResponse>), 1);
    }
    // A big cluster: the answer comes, later than the time limit.
    if (this.mode === 'slow') return void setTimeout(() => this.handler.receive(msg), 120);
    if (this.mode === 'crash' && msg.type === 'run') {
      setTimeout(() => this.onerror?.(new Event('error')), 1);
      return;
    }
    this.handler.receive(msg);
  }
  terminate() {
    this.terminated = true;
  }
}

const runLab: RunView = () => podResult();
const input = { scenario: 's', manifests: 'm' };

afterEach(() => vi.useRealTimers());

describe('lab client', () => {
  it('runs in the worker and returns the result', async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'ok'),
      loadInThread: async () => runLab,
    });
    const o = await client.run(input);
    expect(o.kind).toBe('result');
    expect(client.mode).toBe('worker');
    expect(client.starts).toBe(1);
  });

  it('cancels a stale run when a newer one starts', async () => {
    const workers: FakeWorker[] = [];
    const client = createLabClient({
      createWorker: () => (workers.push(new FakeWorker(runLab, 'ok')), workers.at(-1) ?? null),
      loadInThread: async () => runLab,
    });
    const first = client.run(input);
    const second = client.run({ ...input, manifests: 'm2' });
    expect((await first).kind).toBe('cancelled');
    expect((await second).kind).toBe('result');
    expect(workers[0]?.received.map((m) => m.type)).toEqual(['run', 'cancel', 'run']);
  });

  it('says a run is slow, and stops it past the hard limit when nobody chose to wait', async () => {
    const workers: FakeWorker[] = [];
    let hang = true;
    const client = createLabClient({
      createWorker: () => {
        workers.push(new FakeWorker(runLab, hang ? 'hang' : 'ok'));
        return workers.at(-1) ?? null;
      },
      loadInThread: async () => runLab,
      timeoutMs: 20,
      hardTimeoutMs: 60,
    });
    let slow = 0;
    const o = await client.run(input, { onSlow: () => slow++ });
    expect(slow).toBe(1);
    expect(o).toMatchObject({ kind: 'error', reason: 'timeout' });
    expect(o.kind === 'error' && o.message).toMatch(/^stopped after \d+ s$/);
    expect(workers[0]?.terminated).toBe(true);
    hang = false;
    expect((await client.run(input)).kind).toBe('result');
    expect(client.starts).toBe(2);
  });

  it('gets the answer of a slow run the user chose to wait for', async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'slow'),
      loadInThread: async () => runLab,
      timeoutMs: 20,
      hardTimeoutMs: 60,
    });
    const o = await client.run(input, { onSlow: () => client.keepWaiting() });
    expect(o.kind).toBe('result');
  });

  it('runs to the end a run asked to have no limit', async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'slow'),
      loadInThread: async () => runLab,
      timeoutMs: 20,
      hardTimeoutMs: 60,
    });
    expect((await client.run(input, { noLimit: true })).kind).toBe('result');
  });

  it('stops a slow run when the user says so', async () => {
    const workers: FakeWorker[] = [];
    const client = createLabClient({
      createWorker: () => (workers.push(new FakeWorker(runLab, 'hang')), workers.at(-1) ?? null),
      loadInThread: async () => runLab,
      timeoutMs: 20,
    });
    const o = await client.run(input, { onSlow: () => client.stop() });
    expect(o).toMatchObject({ kind: 'error', reason: 'timeout' });
    expect(workers[0]?.terminated).toBe(true);
  });

  it('restarts a worker that dies and retries the run once', async () => {
    const modes: ('crash' | 'ok')[] = ['crash', 'ok'];
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, modes.shift() ?? 'ok'),
      loadInThread: async () => runLab,
    });
    expect((await client.run(input)).kind).toBe('result');
    expect(client.starts).toBe(2);
  });

  it('reports a crash when the restarted worker dies too', async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'crash'),
      loadInThread: async () => runLab,
    });
    expect(await client.run(input)).toMatchObject({ kind: 'error', reason: 'crash' });
  });

  it('falls back to this thread without Worker support', async () => {
    const client = createLabClient({
      createWorker: () => {
        throw new Error('no Worker');
      },
      loadInThread: async () => runLab,
    });
    const o = await client.run(input);
    expect(o.kind).toBe('result');
    expect(client.mode).toBe('in-thread');
  });
});

describe('exercise checks through the client', () => {
  const checker = (i: { answer: string }) => ({
    ok: true,
    diagnostics: [],
    goals: [],
    solved: i.answer === 'right',
  });
  it('checks in the worker; a newer check cancels the older, a run in between is untouched', async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'ok', checker),
      loadInThread: async () => runLab,
    });
    const a = client.check({ exercise: 'x', answer: 'wrong' });
    const r = client.run(input);
    const b = client.check({ exercise: 'x', answer: 'right' });
    expect(await a).toEqual({ kind: 'cancelled' });
    expect((await r).kind).toBe('result');
    const o = await b;
    expect(o.kind === 'report' && o.report.solved).toBe(true);
  });

  it('falls back to this thread without Worker support', async () => {
    const client = createLabClient({
      createWorker: () => null,
      loadInThread: async () => runLab,
      loadCheckInThread: async () => checker,
    });
    const o = await client.check({ exercise: 'x', answer: 'right' });
    expect(o.kind === 'report' && o.report.solved).toBe(true);
  });

  it("asks the worker for a filter's options; a newer filter drops the older's answer", async () => {
    const client = createLabClient({
      createWorker: () => new FakeWorker(runLab, 'ok'),
      loadInThread: async () => runLab,
    });
    const o = await client.run(input);
    const key = o.kind === 'result' ? (o.result.choices?.key ?? -1) : -1;
    const q = { key, filter: 'nettest', from: '', to: '' };
    const older = client.choices({ ...q, filter: 'cp-1' });
    const newer = client.choices(q);
    expect(await older).toBeNull();
    expect((await newer)?.senders.shown.map((s) => s.id)).toEqual(['pod/nettest']);
  });
});
