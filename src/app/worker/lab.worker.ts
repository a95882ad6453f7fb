/// <reference lib="webworker" />
/** The simulation worker: a thin shell; the logic is in handler.ts, which Node tests call. */
import { runLab } from '../../cluster/lab.ts';
import { checkInput } from '../../exercise/check.ts';
import { withResultCache } from './cached-runs.ts';
import { createChoiceServer } from './choice-server.ts';
import { createLabHandler, type LabHandler, type RunRequest } from './handler.ts';
import type { InnerResponse, WorkerRequest, WorkerResponse } from './protocol.ts';
import { createResultCache, idbStore } from './result-cache.ts';
import { workerView } from './view.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
// The path choices stay here; the page gets their summary and asks for a filter's matches.
const choices = createChoiceServer();
const send = (r: WorkerResponse) => scope.postMessage(r);
const post = (r: InnerResponse) =>
  send(r.type === 'result' ? { ...r, result: choices.forPage(r.result) } : r);
const makeHandler = (out: (r: InnerResponse) => void): LabHandler =>
  createLabHandler((input) => workerView(runLab(input)), out, undefined, checkInput);

// The worker's address names its build (its file name carries the hash of its code). A dev
// server's does not: no cache there, where the code changes under the same address.
const store = import.meta.env.DEV || !globalThis.crypto?.subtle ? null : idbStore();
let receive: (msg: RunRequest) => void;
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
scope.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const msg = e.data;
  if (msg.type === 'choices')
    send({ type: 'choices', id: msg.id, shown: choices.answer(msg.query) });
  else receive(msg);
};
