/**
 * Generated rules, evaluated by the netfilter engine, must move packets the way kube-proxy's own
 * unit tests expect (fixtures/cases.json, copied from the conformance corpus; the full corpus runs
 * with `npm run conformance`).
 */
import { describe, expect, it } from 'vitest';
import { runFlows, type Flow } from '../../conformance/flows.ts';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import { generateProxierRules } from './index.ts';

interface Case {
  readonly id: string;
  readonly ipFamily: 'IPv4' | 'IPv6';
  readonly nodeIPs: readonly string[];
  readonly localAddresses: readonly string[];
  readonly setup: Setup;
  readonly flows: readonly Flow[];
}

const cases = corpus.cases as unknown as readonly Case[];

describe('kube-proxy packet flows through generated rules', () => {
  it('has the cases it expects', () => {
    expect(cases.length).toBe(12);
    expect(cases.reduce((n, c) => n + c.flows.length, 0)).toBe(86);
  });

  for (const c of cases) {
    it(c.id, () => {
      const rules = generateProxierRules(setupToProxierInput(c.setup, c.nodeIPs, c.ipFamily));
      const family = c.ipFamily === 'IPv6' ? 6 : 4;
      const results = runFlows(rules.dump, c.localAddresses, c.flows, family);
      const got = results.map((r) => ({ name: r.flow.name, output: r.output, masq: r.masq }));
      const want = c.flows.map((f) => ({ name: f.name, output: f.output, masq: f.masq }));
      expect(got).toEqual(want);
    });
  }
});
