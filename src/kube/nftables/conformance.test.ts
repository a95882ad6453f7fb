/**
 * The generator against kube-proxy's own expectations: TestOverallNFTablesRules
 * (fixtures/reference-dump.json) compared line by line after the only normalisation the test
 * itself applies, `sortNFTablesTransaction` on both sides, and the tests' mark string; and the
 * packet flows of kube-proxy's nftables tests (fixtures/cases.json, copied from the conformance
 * corpus; the full corpus runs with `npm run conformance`) through the generated rules and the
 * engine's nft evaluation.
 */
import { describe, expect, it } from 'vitest';
import type { CorpusCase } from '../../conformance/corpus.ts';
import { describeFlowCases } from '../../conformance/flow-cases.ts';
import { runNftFlows } from '../../conformance/nft-flows.ts';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import ref from './fixtures/reference-dump.json' with { type: 'json' };
import { generateNftProxierRules, sortNftablesTransaction } from './index.ts';

const generated = () =>
  generateNftProxierRules(
    setupToProxierInput(ref.setup as unknown as Setup, ['192.168.0.2'], 'IPv4', 'nftables'),
  );

describe('TestOverallNFTablesRules (kubernetes/kubernetes@81810de6)', () => {
  it('gives kube-proxy’s transaction line for line', () => {
    const got = sortNftablesTransaction(
      generated().transaction.replaceAll('0x00004000', '0x4000'),
    ).split('\n');
    const want = sortNftablesTransaction(ref.dump).split('\n');
    expect(want.length).toBe(122);
    expect(got).toEqual(want);
  });

  it('writes the mark as kube-proxy formats it (%#08x), not as the tests set it', () => {
    const t = generated().transaction;
    expect(t).toContain('add rule ip kube-proxy mark-for-masquerade mark set mark or 0x00004000\n');
    expect(t).not.toContain('0x4000 ');
  });

  it('declares every chain, set and map before a rule or element refers to it', () => {
    const declared = new Set<string>();
    for (const line of generated().transaction.trimEnd().split('\n')) {
      const w = line.split(' ');
      if (w[1] === 'chain' || w[1] === 'set' || w[1] === 'map') declared.add(w[4] as string);
      const refs = [...line.replace(/"[^"]*"/g, '').matchAll(/(?:goto|jump) (\S+)|@(\S+)/g)].map(
        (m) => m[1] ?? m[2],
      );
      if (w[1] === 'rule' || w[1] === 'element') refs.push(w[4]);
      for (const r of refs) expect(declared, `${r} in: ${line}`).toContain(r);
    }
  });
});

describeFlowCases(
  'kube-proxy nftables packet flows through generated rules',
  corpus.cases as unknown as readonly CorpusCase[],
  { cases: 15, flows: 145 },
  (c) => {
    const rules = generateNftProxierRules(
      setupToProxierInput(c.setup, c.nodeIPs, c.ipFamily, 'nftables'),
    );
    return runNftFlows(rules.transaction, c.localAddresses, c.flows, rules.family);
  },
);
