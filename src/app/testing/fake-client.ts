/** Test doubles of the lab's worker client and of localStorage, shared by the store tests. */
import type { LabClient } from '../worker/client.ts';
import { localChoices } from '../worker/choice-server.ts';
import type { LabView, RunInput, RunOutcome } from '../worker/protocol.ts';
import type { KeyValue } from '../store/persist.ts';
import { brokenResult, podResult, sshdResult } from './lab-fixtures.ts';

/**
 * A client answering like runLab would: LB manifests land on the pod, "broken" fails, and a path
 * from `client/gone` cannot be resolved.
 */
export function fakeClient(): LabClient & { inputs: RunInput[] } {
  const inputs: RunInput[] = [];
  return {
    inputs,
    starts: 1,
    mode: 'worker',
    dispose() {},
    prefetch() {},
    keepWaiting() {},
    stop() {},
    async check() {
      return { kind: 'cancelled' };
    },
    async choices(query) {
      return localChoices.answer(query);
    },
    async run(input): Promise<RunOutcome> {
      inputs.push(input);
      const m = input.manifests ?? '';
      const result = m.includes('broken')
        ? brokenResult(2, 'bad')
        : input.path?.from === 'client/gone'
          ? pathError()
          : m.includes('LoadBalancer')
            ? podResult()
            : sshdResult();
      return { kind: 'result', result, ms: 1 };
    },
  };
}

function pathError(): LabView {
  return {
    ...sshdResult(),
    ok: false,
    diagnostics: [
      {
        severity: 'error',
        source: 'scenario',
        line: 0,
        column: 0,
        endLine: 0,
        endColumn: 0,
        field: 'path',
        message: 'no sender named client/gone',
      },
    ],
  };
}

/** localStorage in memory; `full` makes every write fail as a full quota does. */
export class MemoryStorage implements KeyValue {
  map = new Map<string, string>();
  full = false;
  getItem = (k: string) => this.map.get(k) ?? null;
  setItem = (k: string, v: string) => {
    if (this.full) throw new DOMException('full', 'QuotaExceededError');
    this.map.set(k, v);
  };
  removeItem = (k: string) => void this.map.delete(k);
}
