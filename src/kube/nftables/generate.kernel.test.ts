/**
 * The generated nftables rulesets load into a real kernel: `nft -f` in a throwaway network
 * namespace, then `nft list table` holds every chain and rule. Needs root, `ip netns` and nft;
 * skipped otherwise, or failed when HOOKPATH_REQUIRE_KERNEL=1 (CI).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import { run } from '../../kernel/netns.ts';
import { describeKernel } from '../../kernel/support.ts';
import type { ProxierInput } from '../model.ts';
import { benchInput } from '../proxier/bench.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { generateNftProxierRules } from './index.ts';

const NS = `hp${process.pid}-nftgen`;
const inNs = (args: readonly string[], input?: string) =>
  run('ip', ['netns', 'exec', NS, ...args], input, 60000);

const caseInput = (id: string): ProxierInput => {
  const c = corpus.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no fixture case ${id}`);
  return setupToProxierInput(
    c.setup as unknown as Setup,
    c.nodeIPs,
    c.ipFamily as 'IPv4' | 'IPv6',
    'nftables',
  );
};

const RULESETS: readonly [string, () => ProxierInput][] = [
  [
    'reference setup (affinity, source ranges, eTP Local)',
    () =>
      setupToProxierInput(reference.setup as unknown as Setup, ['192.168.0.2'], 'IPv4', 'nftables'),
  ],
  ['LoadBalancer source ranges', () => caseInput('nftables/TestLoadBalancer')],
  [
    'IPv6 NodePorts on selected addresses',
    () => caseInput('nftables/TestNodePorts/ipv6, multiple nodeport-addresses'),
  ],
  [
    'NodePorts on every address',
    () => {
      const i = caseInput('nftables/TestNodePorts/ipv4');
      return { ...i, config: { ...i.config, nodePortAddresses: ['0.0.0.0/0'] } };
    },
  ],
  ['300 Services x 3 endpoints', () => benchInput(300, 3)],
];

describeKernel('generated nftables rulesets load into the kernel', () => {
  beforeAll(() => {
    run('sh', ['-c', `ip netns del ${NS} 2>/dev/null; ip netns add ${NS}`]);
  });
  afterAll(() => {
    run('sh', ['-c', `ip netns del ${NS} 2>/dev/null || true`]);
  });

  for (const [name, make] of RULESETS) {
    it(name, () => {
      const rules = generateNftProxierRules(make());
      inNs(['nft', 'flush', 'ruleset']);
      // nft -f prints nothing and exits 0 when it accepts the whole transaction (run throws).
      expect(inNs(['nft', '-f', '-'], rules.dump)).toBe('');
      const listed = inNs(['nft', 'list', 'table', rules.nftFamily, 'kube-proxy']);
      const chains = listed.split('\n').filter((l) => /^\tchain /.test(l)).length;
      expect(chains).toBe(rules.counts.chains);
      // Rules: the lines inside chains but a base chain's header and a chain's comment.
      const ruleLines = listed
        .split(/\n\tchain /)
        .slice(1)
        .flatMap((c) => c.split('\n').slice(1))
        .filter(
          (l) => l.startsWith('\t\t') && !l.includes(' hook ') && !l.startsWith('\t\tcomment '),
        );
      expect(ruleLines.length).toBe(rules.counts.rules);
    });
  }
});
