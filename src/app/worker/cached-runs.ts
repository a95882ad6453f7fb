/**
 * The worker's runs in front of the result cache (result-cache.ts): a run is first looked up
 * (off the page's thread, a few ms plus reading the entry) and only simulated when no result was
 * kept for exactly its input; a computed result that took long enough is kept afterwards. The
 * handler's rule holds across the lookup: only the newest run is computed, older ones are
 * answered `cancelled`.
 */
import type { LabHandler, RunRequest } from './handler.ts';
import type { InnerResponse, RunInput } from './protocol.ts';
import type { ResultCache } from './result-cache.ts';

export interface CachedRuns {
  receive(msg: RunRequest): void;
  /** What the inner handler posts goes through here (results are kept on their way out). */
  posted(r: InnerResponse): void;
}

export function withResultCache(
  cache: ResultCache,
  inner: () => LabHandler,
  post: (r: InnerResponse) => void,
): CachedRuns {
  let latest = 0;
  const looking = new Set<number>();
  const inputs = new Map<number, RunInput>();
  const compute = (msg: Extract<RunRequest, { type: 'run' }>) => {
    looking.delete(msg.id);
    if (msg.id !== latest) return post({ type: 'cancelled', id: msg.id });
    inputs.set(msg.id, msg.input);
    inner().receive(msg);
  };
  return {
    receive(msg) {
      if (msg.type === 'cancel' && looking.delete(msg.id)) {
        post({ type: 'cancelled', id: msg.id });
        return;
      }
      if (msg.type !== 'run') return inner().receive(msg);
      latest = Math.max(latest, msg.id);
      looking.add(msg.id);
      const t0 = performance.now();
      cache.lookup(msg.input).then(
        (view) => {
          if (!looking.has(msg.id)) return; // cancelled meanwhile
          if (!view) return compute(msg);
          looking.delete(msg.id);
          post({
            type: 'result',
            id: msg.id,
            result: view,
            ms: performance.now() - t0,
            cached: true,
          });
        },
        // No cache after all (storage refused, quota): simulate as if there were none.
        () => looking.has(msg.id) && compute(msg),
      );
    },
    posted(r) {
      const input = inputs.get(r.id);
      inputs.delete(r.id);
      post(r);
      if (input && r.type === 'result') void cache.save(input, r.result, r.ms).catch(() => {});
    },
  };
}
