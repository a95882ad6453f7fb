/// <reference lib="webworker" />
/** The trace-replay worker: a thin shell around replay-handler.ts. */
import { handleReplay } from './replay-handler.ts';
import type { ReplayRequest } from './replay-protocol.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
scope.onmessage = (e: MessageEvent<ReplayRequest>) => scope.postMessage(handleReplay(e.data));
