import { describe, expect, it } from 'vitest';
import { withResultCache } from './cached-runs.ts';
import { createLabHandler } from './handler.ts';
import type { InnerResponse, RunInput } from './protocol.ts';
import { createResultCache, inputText, memoryStore } from './result-cache.ts';
import {
  podWorkerView as podResult,
  sshdWorkerView as sshdResult,
} from '../testing/lab-fixtures.ts';

const base: RunInput = { scenario: 'scenario: 1', manifests: 'kind: Service', validate: false };
const opts = { max: 3, minMs: 300, minChars: 0 };
const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 2));
};

/** A worker as lab.worker.ts assembles it, on a store in memory; runLab takes `ms` each time. */
function setup(ms = 1000, build = 'lab.worker-abc.js', store = memoryStore()) {
  const posted: InnerResponse[] = [];
  const simulated: RunInput[] = [];
  const cache = createResultCache(store, build, opts);
  const runs = withResultCache(
    cache,
    () =>
      createLabHandler(
        (i) => {
          simulated.push(i);
          return i.manifests === 'lb' ? podResult() : sshdResult();
        },
        (r) => runs.posted(r.type === 'result' ? { ...r, ms } : r),
      ),
    (r) => posted.push(r),
  );
  const run = async (id: number, input: RunInput) => {
    runs.receive({ type: 'run', id, input });
    await until(() => posted.some((p) => p.id === id));
    // The result is kept after it is posted: let the write finish.
    await new Promise((r) => setTimeout(r, 10));
    return posted.find((p) => p.id === id) as InnerResponse;
  };
  return { posted, simulated, run, runs, store };
}

describe('results kept in the browser', () => {
  it('answer the same input again without simulating, with the same result', async () => {
    const { run, simulated } = setup();
    const first = await run(1, base);
    const again = await run(2, { ...base });
    expect(simulated).toHaveLength(1);
    expect(again.type === 'result' && again.cached).toBe(true);
    expect(again.type === 'result' && again.result).toEqual(
      first.type === 'result' && first.result,
    );
  });

  it('are never given for another input or another build', async () => {
    const store = memoryStore();
    const { run, simulated } = setup(1000, 'lab.worker-abc.js', store);
    await run(1, base);
    const others: RunInput[] = [
      { ...base, scenario: 'scenario: 2' },
      { ...base, manifests: 'kind: Service ' },
      { ...base, variant: 'lb' },
      { ...base, path: { from: 'client/laptop', to: 'vip:22' } },
      { ...base, validate: true },
    ];
    for (const [i, o] of others.entries()) {
      const r = await run(10 + i, o);
      expect(r.type === 'result' && r.cached).toBeFalsy();
    }
    expect(simulated).toHaveLength(1 + others.length);
    // The same store seen by another build of the lab: nothing of the first one is used.
    const next = setup(1000, 'lab.worker-def.js', store);
    const r = await next.run(1, base);
    expect(r.type === 'result' && r.cached).toBeFalsy();
    expect(next.simulated).toHaveLength(1);
  });

  it('are not used when the entry holds another input than the one its key is for', async () => {
    const store = memoryStore();
    const { run } = setup(1000, 'b', store);
    await run(1, base);
    // A damaged (or colliding) entry: the key of `base`, the input of something else.
    for (const [k, e] of store.entries)
      store.entries.set(k, { ...e, input: inputText('b', { ...base, manifests: 'other' }) });
    const { run: run2, simulated } = setup(1000, 'b', store);
    const r = await run2(2, base);
    expect(r.type === 'result' && r.cached).toBeFalsy();
    expect(simulated).toHaveLength(1);
  });

  it('keep a few entries, the newest, and only of slow runs', async () => {
    const { run, store } = setup();
    for (let i = 0; i < 5; i++) await run(i + 1, { ...base, manifests: `m${i}` });
    expect(store.entries.size).toBe(3);
    const fast = setup(5);
    await fast.run(1, base);
    expect(fast.store.entries.size).toBe(0);
  });

  it('compute only the newest of runs sent while older ones were looked up', async () => {
    const { runs, posted, simulated } = setup();
    runs.receive({ type: 'run', id: 1, input: { ...base, manifests: 'a' } });
    runs.receive({ type: 'run', id: 2, input: { ...base, manifests: 'b' } });
    runs.receive({ type: 'run', id: 3, input: { ...base, manifests: 'lb' } });
    runs.receive({ type: 'cancel', id: 2 });
    await until(() => posted.some((p) => p.id === 3));
    expect(simulated.map((s) => s.manifests)).toEqual(['lb']);
    expect(posted.map((p) => `${p.type}:${p.id}`).sort()).toEqual([
      'cancelled:1',
      'cancelled:2',
      'result:3',
    ]);
  });

  it('are not looked up nor kept for small inputs, which simulate fast anyway', async () => {
    const store = memoryStore();
    let reads = 0;
    const counted = { ...store, get: (k: string) => (reads++, store.get(k)) };
    const cache = createResultCache(counted, 'b', { ...opts, minChars: 1000 });
    expect(await cache.lookup(base)).toBeNull();
    await cache.save(base, sshdResult(), 5000);
    expect(reads).toBe(0);
    expect(store.entries.size).toBe(0);
    const big = { ...base, manifests: 'x'.repeat(1000) };
    await cache.save(big, sshdResult(), 5000);
    expect(await cache.lookup(big)).toEqual(sshdResult());
  });
});
