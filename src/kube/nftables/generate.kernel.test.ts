/**
 * The generated nftables rulesets load into a real kernel: `nft -f` in a throwaway network
 * namespace, then `nft list table` holds every chain and rule. Needs root, `ip netns` and nft;
 * skipped otherwise, or failed when HOOKPATH_REQUIRE_KERNEL=1 (CI).
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import type { ProxierInput } from '../model.ts';
import { benchInput } from '../proxier/bench.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { generateNftProxierRules } from './index.ts';

const NS = `hp${process.pid}-nftgen`;

function run(args: readonly string[], input = ''): { ok: boolean; out: string } {
  const r = spawnSync(args[0] as string, args.slice(1), {
    input,
    encoding: 'utf8',
    timeout: 60000,
  });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function unsupported(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  if (!run(['ip', 'netns', 'list']).ok) return 'no `ip netns`';
  if (!run(['nft', '--version']).ok) return 'no nft';
  return null;
}

const reason = unsupported();
const required = process.env.HOOKPATH_REQUIRE_KERNEL === '1';
const suite = reason && !required ? describe.skip : describe;

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

suite(`generated nftables rulesets load into the kernel${reason ? ` [${reason}]` : ''}`, () => {
  beforeAll(() => {
    if (reason) throw new Error(`real-kernel test cannot run: ${reason}`);
    run(['ip', 'netns', 'del', NS]);
    const add = run(['ip', 'netns', 'add', NS]);
    if (!add.ok) throw new Error(add.out);
  });
  afterAll(() => {
    run(['ip', 'netns', 'del', NS]);
  });

  for (const [name, make] of RULESETS) {
    it(name, () => {
      const rules = generateNftProxierRules(make());
      run(['ip', 'netns', 'exec', NS, 'nft', 'flush', 'ruleset']);
      const load = run(['ip', 'netns', 'exec', NS, 'nft', '-f', '-'], rules.dump);
      expect(load.out).toBe('');
      expect(load.ok).toBe(true);
      const listed = run([
        'ip',
        'netns',
        'exec',
        NS,
        'nft',
        'list',
        'table',
        rules.nftFamily,
        'kube-proxy',
      ]);
      expect(listed.ok).toBe(true);
      const chains = listed.out.split('\n').filter((l) => /^\tchain /.test(l)).length;
      expect(chains).toBe(rules.counts.chains);
      // Rules: the lines inside chains but a base chain's header and a chain's comment.
      const ruleLines = listed.out
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
