/**
 * The worker behind the matrix, Your host and replay clients: started on first use, replaced
 * after a crash (whoever waits is told), and the same handler in this thread where there is no
 * Worker or it cannot start.
 */
import { describe, expect, it, vi } from 'vitest';
import { workerChannel, type WorkerLike } from './channel.ts';

class FakeWorker implements WorkerLike<string, string> {
  onmessage: ((e: MessageEvent<string>) => void) | null = null;
  onerror: ((e: ErrorEvent | Event) => void) | null = null;
  sent: string[] = [];
  terminated = false;
  postMessage(m: string) {
    this.sent.push(m);
  }
  terminate() {
    this.terminated = true;
  }
  answer(r: string) {
    this.onmessage?.({ data: r } as MessageEvent<string>);
  }
  crash() {
    this.onerror?.(new Event('error'));
  }
}

function setup(create: () => FakeWorker | null) {
  const got: string[] = [];
  const crashed = vi.fn();
  const loadInThread = vi.fn(async (deliver: (r: string) => void) => ({
    receive: (m: string) => deliver(`local:${m}`),
  }));
  const channel = workerChannel<string, string>({
    createWorker: create,
    loadInThread,
    deliver: (r) => got.push(r),
    crashed,
  });
  return { channel, got, crashed, loadInThread };
}

describe('workerChannel', () => {
  it('starts one worker on first use and hands its answers over', () => {
    const workers: FakeWorker[] = [];
    const { channel, got, loadInThread } = setup(() => {
      workers.push(new FakeWorker());
      return workers.at(-1) ?? null;
    });
    expect(workers).toHaveLength(0);
    channel.send('a');
    channel.send('b');
    expect(workers).toHaveLength(1);
    expect(workers[0]?.sent).toEqual(['a', 'b']);
    workers[0]?.answer('A');
    expect(got).toEqual(['A']);
    expect(loadInThread).not.toHaveBeenCalled();
  });

  it('a crashed worker is terminated, the client told, the next send starts a new one', () => {
    const workers: FakeWorker[] = [];
    const { channel, crashed } = setup(() => {
      workers.push(new FakeWorker());
      return workers.at(-1) ?? null;
    });
    channel.send('a');
    workers[0]?.crash();
    expect(workers[0]?.terminated).toBe(true);
    expect(crashed).toHaveBeenCalledTimes(1);
    channel.send('b');
    expect(workers).toHaveLength(2);
    expect(workers[1]?.sent).toEqual(['b']);
  });

  it('without Worker, or when it throws, the handler runs in this thread', async () => {
    for (const create of [
      () => null,
      () => {
        throw new Error('blocked by CSP');
      },
    ]) {
      const { channel, got, loadInThread } = setup(create);
      channel.send('a');
      channel.send('b');
      await vi.waitFor(() => expect(got).toEqual(['local:a', 'local:b']));
      expect(loadInThread).toHaveBeenCalledTimes(1);
    }
  });

  it('dispose terminates the worker', () => {
    const w = new FakeWorker();
    const { channel } = setup(() => w);
    channel.send('a');
    channel.dispose();
    expect(w.terminated).toBe(true);
  });
});
