/// <reference lib="webworker" />
/** The simulation worker: a thin shell; the logic is in handler.ts, which Node tests call. */
import { runLab } from '../../cluster/lab.ts';
import { checkInput } from '../../exercise/check.ts';
import { createLabHandler } from './handler.ts';
import type { WorkerRequest, WorkerResponse } from './protocol.ts';
import { labView } from './view.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const handler = createLabHandler(
  (input) => labView(runLab(input)),
  (r: WorkerResponse) => scope.postMessage(r),
  undefined,
  checkInput,
);
scope.onmessage = (e: MessageEvent<WorkerRequest>) => handler.receive(e.data);
