/// <reference lib="webworker" />
/** The "Your host" worker: a thin shell around own-host-handler.ts. Nothing leaves the browser. */
import { createOwnHostHandler } from './own-host-handler.ts';
import type { OwnRequest, OwnResponse } from './own-host-protocol.ts';
import { runOwnHostView } from './own-host-run.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const handler = createOwnHostHandler(runOwnHostView, (r: OwnResponse) => scope.postMessage(r));
scope.onmessage = (e: MessageEvent<OwnRequest>) => handler.receive(e.data);
