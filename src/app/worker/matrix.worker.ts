/// <reference lib="webworker" />
/**
 * The matrix worker: a thin shell around matrix-handler.ts. A worker of its own, beside the lab's
 * (lab.worker.ts): dozens of probes never hold up the trace the user is looking at.
 */
import { openMatrix } from '../../cluster/matrix.ts';
import { createMatrixHandler } from './matrix-handler.ts';
import type { MatrixRequest, MatrixResponse } from './matrix-protocol.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const handler = createMatrixHandler(openMatrix, (r: MatrixResponse) => scope.postMessage(r));
scope.onmessage = (e: MessageEvent<MatrixRequest>) => handler.receive(e.data);
