/** Assertions shared by the kernel suites: the kernel and the engine must tell the same story. */
import { expect } from 'vitest';
import { comparisonText, type CrossCheck } from './compare.ts';
import { verdictText, type Verdict } from './verdict.ts';

/** Outcome, source address seen, and every traced rule sequence agree; `expected` pins the outcome. */
export function expectAgreement(c: CrossCheck, expected?: string): void {
  const why = `\n${comparisonText(c)}`;
  expect(verdictText(c.engine), `engine and kernel outcomes differ${why}`).toBe(
    verdictText(c.kernel),
  );
  if (expected !== undefined)
    expect(verdictText(c.kernel), `unexpected kernel outcome${why}`).toBe(expected);
  expectSameErrno(c.kernel, c.engine, why);
  for (const t of c.traces) {
    expect(t.engine, `${t.host} ${t.packet} packet: rule trace differs${why}`).toEqual(t.kernel);
  }
}

function expectSameErrno(k: Verdict, e: Verdict, why: string): void {
  if (k.kind === 'refused' && e.kind === 'refused')
    expect(e.errno, `errno differs${why}`).toBe(k.errno);
}

/** The traced sequence of one host and packet, for assertions on the path itself. */
export function traceOf(
  c: CrossCheck,
  host: string,
  packet: 'first' | 'reply' = 'first',
): readonly string[] {
  return c.traces.find((t) => t.host === host && t.packet === packet)?.kernel ?? [];
}
