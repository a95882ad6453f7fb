/** The alignment of a real packet's steps with the engine's, on hand-made steps. */
import { describe, expect, it } from 'vitest';
import { alignSteps } from './align.ts';
import type { SimStep } from './sim-steps.ts';
import type { RealStep } from './types.ts';

let line = 0;
function real(where: string, verdict: string, more: Partial<RealStep> = {}): RealStep {
  const [table = '', chain = ''] = where.split(':');
  return {
    line: ++line,
    family: 'ip',
    table,
    chain,
    kind: 'rule',
    handle: null,
    verdict,
    text: '',
    tracing: false,
    ...more,
  };
}
let seq = 0;
function sim(where: string, verdict: string, more: Partial<SimStep> = {}): SimStep {
  const [table = '', chain = ''] = where.split(':');
  return {
    seq: seq++,
    host: 'n',
    packetId: 1,
    family: 'ip',
    table,
    chain,
    kind: 'rule',
    rule: 1,
    handle: null,
    verdict,
    text: '',
    optional: null,
    ...more,
  };
}
const statuses = (rows: ReturnType<typeof alignSteps>) => rows.map((r) => r.status);

describe('alignSteps', () => {
  const engine = [
    sim('nat:PREROUTING', 'jump KUBE-SERVICES'),
    sim('nat:KUBE-SERVICES', 'jump KUBE-SVC-A'),
    sim('nat:KUBE-SVC-A', 'return', { kind: 'return', optional: 'end-of-chain' }),
    sim('filter:INPUT', 'accept', { kind: 'policy' }),
  ];

  it('pairs the same steps and lets the chain end the kernel does not trace go', () => {
    const rows = alignSteps(
      [
        real('nat:PREROUTING', 'jump KUBE-SERVICES'),
        real('nat:KUBE-SERVICES', 'jump KUBE-SVC-A'),
        real('filter:INPUT', 'accept', { kind: 'policy' }),
      ],
      engine,
    );
    expect(statuses(rows)).toEqual(['same', 'same', 'optional', 'same']);
  });

  it('a rule only the kernel ran is extra, at its place', () => {
    const rows = alignSteps(
      [
        real('nat:PREROUTING', 'jump KUBE-SERVICES'),
        real('nat:CALICO-PRE', 'continue'),
        real('nat:KUBE-SERVICES', 'jump KUBE-SVC-A'),
        real('filter:INPUT', 'accept', { kind: 'policy' }),
      ],
      engine,
    );
    expect(statuses(rows)).toEqual(['same', 'extra', 'same', 'optional', 'same']);
    expect(rows[1]?.real?.chain).toBe('CALICO-PRE');
  });

  it('the same chain with another verdict is one row, not a missing and an extra one', () => {
    const rows = alignSteps(
      [
        real('nat:PREROUTING', 'jump KUBE-SERVICES'),
        real('nat:KUBE-SERVICES', 'jump KUBE-SVC-B'),
        real('filter:INPUT', 'drop', { kind: 'policy' }),
      ],
      engine,
    );
    expect(statuses(rows)).toEqual(['same', 'verdict', 'optional', 'verdict']);
  });

  it('nft rules with the same verdict but other handles are other rules', () => {
    const rows = alignSteps(
      [real('kube-proxy:services', 'goto svc-x', { handle: 46 })],
      [sim('kube-proxy:services', 'goto svc-x', { handle: 45 })],
    );
    expect(statuses(rows)).toEqual(['rule']);
  });

  it('a rule the kernel never reported is missing; tracing rules are not compared', () => {
    const rows = alignSteps(
      [
        real('raw:PREROUTING', 'continue', { tracing: true }),
        real('nat:PREROUTING', 'jump KUBE-SERVICES'),
        real('filter:INPUT', 'accept', { kind: 'policy' }),
      ],
      engine,
    );
    expect(statuses(rows)).toEqual(['tracing', 'same', 'missing', 'optional', 'same']);
  });
});
