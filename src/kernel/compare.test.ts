/** The part of the kernel comparison that needs no kernel: telling lost monitor lines apart. */
import { describe, expect, it } from 'vitest';
import { onlyLostKernelLines } from './compare.ts';
import type { Verdict } from './verdict.ts';

const answered: Verdict = { kind: 'answered', reply: 'pod-a', srcSeen: '10.0.0.1', srcPortSeen: 1 };
const engine = [
  'raw:PREROUTING:rule:1:CONTINUE',
  'nat:PREROUTING:rule:1:JUMP',
  'filter:FORWARD:policy:ACCEPT',
];
const check = (kernel: readonly string[], k: Verdict = answered, e: Verdict = answered) => ({
  kernel: k,
  engine: e,
  traces: [
    { host: 'core-1', packet: 'first' as const, kernel: engine, engine, skipped: [] },
    { host: 'core-2', packet: 'reply' as const, kernel, engine, skipped: [] },
  ],
});

describe('onlyLostKernelLines', () => {
  it('is true when the kernel trace is the engine trace with lines left out', () => {
    expect(onlyLostKernelLines(check([engine[1] as string]))).toBe(true);
    expect(onlyLostKernelLines(check([]))).toBe(true);
  });

  it('is false when the traces agree: nothing to run again', () => {
    expect(onlyLostKernelLines(check(engine))).toBe(false);
  });

  it('is false for a line the engine does not have, a different order or an extra line', () => {
    expect(onlyLostKernelLines(check(['mangle:PREROUTING:policy:ACCEPT']))).toBe(false);
    expect(onlyLostKernelLines(check([engine[1] as string, engine[0] as string]))).toBe(false);
    expect(onlyLostKernelLines(check([...engine, 'filter:INPUT:policy:ACCEPT']))).toBe(false);
  });

  it('is false when the outcomes differ, whatever the traces', () => {
    expect(onlyLostKernelLines(check([], answered, { kind: 'timeout' }))).toBe(false);
  });
});
