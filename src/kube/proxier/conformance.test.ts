/**
 * Generated rules, evaluated by the netfilter engine, must move packets the way kube-proxy's own
 * unit tests expect (fixtures/cases.json, copied from the conformance corpus; the full corpus runs
 * with `npm run conformance`).
 */
import { familyOf, type CorpusCase } from '../../conformance/corpus.ts';
import { describeFlowCases } from '../../conformance/flow-cases.ts';
import { runFlows } from '../../conformance/flows.ts';
import { setupToProxierInput } from '../../conformance/setup.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import { generateProxierRules } from './index.ts';

describeFlowCases(
  'kube-proxy packet flows through generated rules',
  corpus.cases as unknown as readonly CorpusCase[],
  { cases: 12, flows: 86 },
  (c) => {
    const rules = generateProxierRules(setupToProxierInput(c.setup, c.nodeIPs, c.ipFamily));
    return runFlows(rules.dump, c.localAddresses, c.flows, familyOf(c));
  },
);
