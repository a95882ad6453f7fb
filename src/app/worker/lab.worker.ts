/// <reference lib="webworker" />
/** The simulation worker: a thin shell; the logic is in handler.ts, which Node tests call. */
import { runLab } from '../../cluster/lab.ts';
import { checkInput } from '../../exercise/check.ts';
import { withResultCache } from './cached-runs.ts';
import { createLabHandler, type LabHandler } from './handler.ts';
import type { WorkerRequest, WorkerResponse } from './protocol.ts';
import { createResultCache, idbStore } from './result-cache.ts';
import { labView } from './view.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (r: WorkerResponse) => scope.postMessage(r);
const makeHandler = (out: (r: WorkerResponse) => void): LabHandler =>
  createLabHandler((input) => labView(runLab(input)), out, undefined, checkInput);

// The worker's address names its build (its file name carries the hash of its code). A dev
// server's does not: no cache there, where the code changes under the same address.
const store = import.meta.env.DEV || !globalThis.crypto?.subtle ? null : idbStore();
let receive: (msg: WorkerRequest) => void;
if (store) {
  let handler: LabHandler | null = null;
  const cached = withResultCache(
    createResultCache(store, import.meta.url),
    () => (handler ??= makeHandler((r) => cached.posted(r))),
    post,
  );
  receive = (msg) => cached.receive(msg);
} else {
  const handler = makeHandler(post);
  receive = (msg) => handler.receive(msg);
}
scope.onmessage = (e: MessageEvent<WorkerRequest>) => receive(e.data);
