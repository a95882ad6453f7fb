/**
 * The generated dumps load into a real kernel: `iptables-restore` / `ip6tables-restore` in a
 * throwaway network namespace, then `iptables-save` holds every rule. Needs root, `ip netns` and
 * iptables-nft; skipped otherwise, or failed when HOOKPATH_REQUIRE_KERNEL=1 (CI).
 * nfacct is off: the counters kube-proxy matches do not exist in a fresh namespace.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import type { ProxierInput } from '../model.ts';
import { benchInput } from './bench.ts';
import corpus from './fixtures/cases.json' with { type: 'json' };
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { generateProxierRules } from './index.ts';

const NS = `hp${process.pid}-gen`;

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
  if (!run(['iptables-restore', '--version']).ok) return 'no iptables-restore';
  return null;
}

const reason = unsupported();
const required = process.env.HOOKPATH_REQUIRE_KERNEL === '1';
const suite = reason && !required ? describe.skip : describe;

const noAcct = (i: ProxierInput): ProxierInput => ({
  ...i,
  config: { ...i.config, nfacct: false },
});
const caseInput = (id: string): ProxierInput => {
  const c = corpus.cases.find((x) => x.id === id);
  if (!c) throw new Error(`no fixture case ${id}`);
  return setupToProxierInput(c.setup as Setup, c.nodeIPs, c.ipFamily as 'IPv4' | 'IPv6');
};

const DUMPS: readonly [string, () => ProxierInput][] = [
  ['reference setup', () => setupToProxierInput(reference.setup as Setup, ['192.168.0.2'], 'IPv4')],
  ['LoadBalancer source ranges', () => caseInput('iptables/TestLoadBalancer')],
  [
    'IPv6 NodePorts on selected addresses',
    () =>
      caseInput(
        'iptables/TestNodePorts/ipv6, localhost-nodeports disabled, multiple nodeport-addresses',
      ),
  ],
  ['300 Services x 3 endpoints', () => benchInput(300, 3)],
];

suite(`generated rules load into the kernel${reason ? ` [${reason}]` : ''}`, () => {
  beforeAll(() => {
    if (reason) throw new Error(`real-kernel test cannot run: ${reason}`);
    run(['ip', 'netns', 'del', NS]);
    const add = run(['ip', 'netns', 'add', NS]);
    if (!add.ok) throw new Error(add.out);
  });
  afterAll(() => {
    run(['ip', 'netns', 'del', NS]);
  });

  for (const [name, make] of DUMPS) {
    it(name, () => {
      const rules = generateProxierRules(noAcct(make()));
      const tool = rules.family === 6 ? 'ip6tables' : 'iptables';
      for (const table of ['filter', 'nat']) {
        run(['ip', 'netns', 'exec', NS, tool, '-t', table, '-F']);
        run(['ip', 'netns', 'exec', NS, tool, '-t', table, '-X']);
      }
      const restore = run(['ip', 'netns', 'exec', NS, `${tool}-restore`], rules.dump);
      expect(restore.out).toBe('');
      expect(restore.ok).toBe(true);
      const saved = run(['ip', 'netns', 'exec', NS, `${tool}-save`]);
      const count = (text: string) => text.split('\n').filter((l) => l.startsWith('-A ')).length;
      expect(count(saved.out)).toBe(count(rules.dump));
    });
  }
});
