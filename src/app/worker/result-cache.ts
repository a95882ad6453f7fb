/**
 * Results of slow simulations kept in this browser (IndexedDB, written and read by the worker),
 * so reopening the lab with a saved 5,000-Service edit draws its diagram without simulating it
 * again (a cold run of that edit is 2-3 s of CPU). A result is only ever given back for exactly
 * the input it was computed from: the key is a SHA-256 of the build and the whole input, and the
 * entry holds the input itself, compared in full before the result is used. The build is the
 * worker's own address, which carries the hash of its code: another version of the lab (another
 * engine) never sees this one's results. At most `max` entries are kept, the oldest dropped.
 */
import type { RunInput } from './protocol.ts';
import type { WorkerView } from './view.ts';

export interface CacheEntry {
  readonly key: string;
  /** The build and input the result is for, as `inputText` writes them. */
  readonly input: string;
  readonly view: WorkerView;
  /** When it was saved (ms since the epoch). */
  readonly at: number;
}

/** Where entries live: IndexedDB in the browser, a Map in tests. */
export interface ResultStore {
  get(key: string): Promise<CacheEntry | undefined>;
  put(entry: CacheEntry): Promise<void>;
  /** Every entry's key and time, without the results. */
  list(): Promise<{ key: string; at: number }[]>;
  delete(key: string): Promise<void>;
}

export interface ResultCache {
  /** The result saved for exactly this input, or null. */
  lookup(input: RunInput): Promise<WorkerView | null>;
  /** Keeps a result that took `ms` to compute (fast ones are not worth a write). */
  save(input: RunInput, view: WorkerView, ms: number): Promise<void>;
}

export interface ResultCacheOptions {
  /** Entries kept at most. */
  readonly max?: number;
  /** Results computed faster than this are not kept. */
  readonly minMs?: number;
  /**
   * Inputs shorter than this (scenario and manifests) are neither looked up nor kept: they
   * simulate in well under a second, and a lookup would add an IndexedDB read to every edit.
   */
  readonly minChars?: number;
}

export function inputText(build: string, i: RunInput): string {
  return JSON.stringify([
    build,
    i.scenario,
    i.manifests ?? null,
    i.variant ?? null,
    i.mode ?? null,
    i.path ?? null,
    i.validate ?? true,
  ]);
}

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function createResultCache(
  store: ResultStore,
  build: string,
  opts: ResultCacheOptions = {},
): ResultCache {
  const max = opts.max ?? 6;
  const minMs = opts.minMs ?? 1000;
  const minChars = opts.minChars ?? 100_000;
  const small = (i: RunInput) => i.scenario.length + (i.manifests?.length ?? 0) < minChars;
  return {
    async lookup(input) {
      if (small(input)) return null;
      const text = inputText(build, input);
      const hit = await store.get(await sha256Hex(text));
      return hit && hit.input === text ? hit.view : null;
    },
    async save(input, view, ms) {
      if (ms < minMs || small(input)) return;
      const text = inputText(build, input);
      const key = await sha256Hex(text);
      await store.put({ key, input: text, view, at: Date.now() });
      const all = await store.list();
      all.sort((a, b) => b.at - a.at);
      for (const old of all.slice(max)) await store.delete(old.key);
    },
  };
}

export function memoryStore(): ResultStore & { readonly entries: Map<string, CacheEntry> } {
  const entries = new Map<string, CacheEntry>();
  return {
    entries,
    get: async (key) => structuredClone(entries.get(key)),
    put: async (e) => void entries.set(e.key, structuredClone(e)),
    list: async () => [...entries.values()].map((e) => ({ key: e.key, at: e.at })),
    delete: async (key) => void entries.delete(key),
  };
}

const DB = 'hookpath-results';
const STORE = 'results';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

/** The store in IndexedDB, or null where there is none. */
export function idbStore(): ResultStore | null {
  if (typeof indexedDB === 'undefined') return null;
  let db: Promise<IDBDatabase> | null = null;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => {
        const s = r.result.createObjectStore(STORE, { keyPath: 'key' });
        s.createIndex('at', 'at');
      };
      r.onsuccess = () => {
        // Another page deleting or upgrading the database is not kept waiting for this one.
        r.result.onversionchange = () => {
          r.result.close();
          db = null;
        };
        resolve(r.result);
      };
      r.onerror = () => reject(r.error);
    }));
  const tx = async (mode: IDBTransactionMode) =>
    (await open()).transaction(STORE, mode).objectStore(STORE);
  return {
    get: async (key) => (await request((await tx('readonly')).get(key))) as CacheEntry | undefined,
    put: async (e) => void (await request((await tx('readwrite')).put(e))),
    list: async () => {
      const index = (await tx('readonly')).index('at');
      // A key cursor on the time index: keys and times, never the results themselves.
      return new Promise((resolve, reject) => {
        const out: { key: string; at: number }[] = [];
        const r = index.openKeyCursor();
        r.onsuccess = () => {
          const c = r.result;
          if (!c) return resolve(out);
          out.push({ key: String(c.primaryKey), at: Number(c.key) });
          c.continue();
        };
        r.onerror = () => reject(r.error);
      });
    },
    delete: async (key) => void (await request((await tx('readwrite')).delete(key))),
  };
}
