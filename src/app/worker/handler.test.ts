import { describe, expect, it } from 'vitest';
import { createLabHandler, runRequest } from './handler.ts';
import type { RunInput, WorkerResponse } from './protocol.ts';
import { podResult, sshdResult } from '../testing/lab-fixtures.ts';

const input = (manifests: string): RunInput => ({ scenario: 'x', manifests });

function setup() {
  const posted: WorkerResponse[] = [];
  const tasks: (() => void)[] = [];
  const seen: string[] = [];
  const handler = createLabHandler(
    (i) => {
      seen.push(i.manifests ?? '');
      if (i.manifests === 'boom') throw new Error('bad input');
      return i.manifests === 'lb' ? podResult() : sshdResult();
    },
    (r) => posted.push(r),
    (fn) => tasks.push(fn),
  );
  const flush = () => tasks.splice(0).forEach((t) => t());
  return { posted, handler, flush, seen };
}

describe('worker handler', () => {
  it('answers a run with the result of runLab', () => {
    const { posted, handler, flush } = setup();
    handler.receive({ type: 'run', id: 1, input: input('lb') });
    flush();
    expect(posted).toHaveLength(1);
    const r = posted[0];
    expect(r?.type).toBe('result');
    if (r?.type === 'result') expect(r.result.runs[0]?.outcome.kind).toBe('answered');
  });

  it('computes only the newest of the runs that queued up while it was busy', () => {
    const { posted, handler, flush, seen } = setup();
    handler.receive({ type: 'run', id: 1, input: input('a') });
    handler.receive({ type: 'run', id: 2, input: input('b') });
    handler.receive({ type: 'run', id: 3, input: input('lb') });
    flush();
    expect(seen).toEqual(['lb']);
    expect(posted.map((p) => `${p.type}:${p.id}`)).toEqual([
      'cancelled:1',
      'cancelled:2',
      'result:3',
    ]);
  });

  it('drops a cancelled run before it starts', () => {
    const { posted, handler, flush, seen } = setup();
    handler.receive({ type: 'run', id: 4, input: input('a') });
    handler.receive({ type: 'cancel', id: 4 });
    flush();
    expect(seen).toEqual([]);
    expect(posted).toEqual([{ type: 'cancelled', id: 4 }]);
  });

  it('turns an exception into an error response', () => {
    const r = runRequest(
      () => {
        throw new Error('bad input');
      },
      7,
      input('boom'),
    );
    expect(r).toEqual({ type: 'error', id: 7, message: 'bad input' });
  });
});

describe('exercise checks in the worker', () => {
  const check = (i: { answer: string }) => ({
    ok: true,
    diagnostics: [],
    goals: [],
    solved: i.answer === 'right',
  });

  it('answers a check with the report, apart from runs: neither cancels the other', () => {
    const posted: WorkerResponse[] = [];
    const tasks: (() => void)[] = [];
    const handler = createLabHandler(
      () => sshdResult(),
      (r) => posted.push(r),
      (fn) => tasks.push(fn),
      check,
    );
    handler.receive({ type: 'run', id: 1, input: input('a') });
    handler.receive({ type: 'check', id: 2, input: { exercise: 'x', answer: 'wrong' } });
    handler.receive({ type: 'check', id: 3, input: { exercise: 'x', answer: 'right' } });
    tasks.splice(0).forEach((t) => t());
    expect(posted.map((p) => `${p.type}:${p.id}`)).toEqual([
      'result:1',
      'cancelled:2',
      'checked:3',
    ]);
    const last = posted[2];
    expect(last?.type === 'checked' && last.report.solved).toBe(true);
  });

  it('a worker without a checker says so instead of hanging', () => {
    const posted: WorkerResponse[] = [];
    const handler = createLabHandler(
      () => sshdResult(),
      (r) => posted.push(r),
      (fn) => fn(),
    );
    handler.receive({ type: 'check', id: 5, input: { exercise: 'x', answer: 'y' } });
    expect(posted).toEqual([
      { type: 'error', id: 5, message: 'this worker does not check exercises' },
    ]);
  });
});
