/**
 * Test helper: the flows of corpus cases (fixtures copied from the shared conformance corpus) through
 * rules generated for each case, one test per case, compared as kube-proxy's tests compare them
 * (the output and whether the packet was masqueraded).
 */
import { describe, expect, it } from 'vitest';
import type { CorpusCase } from './corpus.ts';
import type { FlowResult } from './flows.ts';

export function describeFlowCases(
  title: string,
  cases: readonly CorpusCase[],
  counts: { readonly cases: number; readonly flows: number },
  flowsOf: (
    c: CorpusCase & { readonly setup: NonNullable<CorpusCase['setup']> },
  ) => readonly FlowResult[],
): void {
  describe(title, () => {
    it('has the cases it expects', () => {
      expect(cases.length).toBe(counts.cases);
      expect(cases.reduce((n, c) => n + c.flows.length, 0)).toBe(counts.flows);
    });

    for (const c of cases) {
      it(c.id, () => {
        if (!c.setup) throw new Error(`${c.id}: the fixture case has no setup to generate from`);
        const got = flowsOf({ ...c, setup: c.setup }).map((r) => ({
          name: r.flow.name,
          output: r.output,
          masq: r.masq,
        }));
        const want = c.flows.map((f) => ({ name: f.name, output: f.output, masq: f.masq }));
        expect(got).toEqual(want);
      });
    }
  });
}
