/**
 * kube-proxy's nftables mode on a real node: the same rulesets loaded with `nft -f` (beside
 * an iptables-nft host firewall), real packets, and the rule sequence of `nft -a monitor trace`
 * against the engine's, rule by rule (nft tables by handle, iptables tables by position).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CLIENT_IP,
  CLUSTER_IP,
  EMPTY_IP,
  EQUAL_PRIORITY_IPTABLES,
  EQUAL_PRIORITY_NFT,
  LB_IP,
  NODE_IP,
  NODE_POD_IP,
  NAT_CORE_IPTABLES,
  NAT_CORE_NFT,
  NODE_PORT,
  nftNodeNetwork,
  REFUSED,
} from '../engine/testing/nft-node.ts';
import { parseNftRuleset } from '../engine/index.ts';
import { CommandError, deleteNamespace, nsRun, run, RUN_PREFIX } from './netns.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { KernelLab, nftTableNames } from './lab.ts';
import { verdictText } from './verdict.ts';
import { describeKernel } from './support.ts';

const probe = (dst: string, dport: number) =>
  ({ kind: 'connect', from: 'client', proto: 'tcp', dst, dport }) as const;

describeKernel('kube-proxy nftables mode beside an iptables host firewall', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(nftNodeNetwork(), { monitor: 'nft', trace: ['node'] });
  });
  afterAll(() => lab?.close());
  const l = () => lab as KernelLab;

  it('ClusterIP: service-ips vmap, numgen picks an endpoint, masquerade by mark', async () => {
    const c = await crossCheck(l(), probe(CLUSTER_IP, 80));
    expectAgreement(c);
    expect(['answered "pod-a" src=10.244.0.1', 'answered "pod-b" src=10.244.0.1']).toContain(
      `answered "${c.kernel.kind === 'answered' ? c.kernel.reply : ''}" src=${NODE_POD_IP}`,
    );
    const seq = traceOf(c, 'node');
    expect(
      seq.some((s) => /^ip kube-proxy service-web rule \d+ goto endpoint-web-[ab]$/.test(s)),
    ).toBe(true);
    expect(seq.some((s) => /^ip kube-proxy masquerading rule \d+ accept$/.test(s))).toBe(true);
  });

  it('NodePort on the node address: fib daddr type local, then the same endpoints', async () => {
    const c = await crossCheck(l(), probe(NODE_IP, NODE_PORT));
    expectAgreement(c);
    expect(c.kernel.kind).toBe('answered');
  });

  it('LoadBalancer source ranges: dropped in filter-prerouting-pre-dnat, before DNAT', async () => {
    const c = await crossCheck(l(), probe(LB_IP, 80));
    expectAgreement(c, 'timeout');
    expect(traceOf(c, 'node').at(-1)).toMatch(/^ip kube-proxy firewall-lb rule \d+ drop$/);
  });

  it('a Service without endpoints: reject-chain in filter-forward, ECONNREFUSED', async () => {
    expectAgreement(await crossCheck(l(), probe(EMPTY_IP, 80)), 'refused ECONNREFUSED');
  });

  it('an unknown port of a ClusterIP is rejected, an unallocated ClusterIP dropped', async () => {
    expectAgreement(await crossCheck(l(), probe(CLUSTER_IP, 81)), 'refused ECONNREFUSED');
    expectAgreement(await crossCheck(l(), probe('10.96.0.99', 80)), 'timeout');
  });

  it('accept in an nft base chain does not stop iptables filter INPUT: tcp-reset', async () => {
    const c = await crossCheck(l(), probe(NODE_IP, 2222));
    expectAgreement(c, 'refused ECONNREFUSED');
    const seq = traceOf(c, 'node');
    expect(seq).toContain('ip filter INPUT rule @1 drop');
    expect(seq.indexOf('ip filter INPUT rule @1 drop')).toBeGreaterThan(
      seq.findIndex((s) => s.startsWith('inet hostfw input rule')),
    );
  });

  it('drop in an nft base chain ends the packet before iptables would accept it', async () => {
    const c = await crossCheck(l(), probe(NODE_IP, 9001));
    expectAgreement(c, 'timeout');
    expect(traceOf(c, 'node').some((s) => s.startsWith('ip filter INPUT'))).toBe(false);
  });

  it('a port nobody filters: every base chain accepts, sshd answers', async () => {
    expectAgreement(
      await crossCheck(l(), probe(NODE_IP, 22)),
      `answered "d22@node" src=${CLIENT_IP}`,
    );
  });
});

describeKernel('the NAT core: nat chains by priority inside one NAT hook', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(nftNodeNetwork(NAT_CORE_NFT, NAT_CORE_IPTABLES), {
      monitor: 'nft',
      trace: ['node'],
    });
  });
  afterAll(() => lab?.close());
  const l = () => lab as KernelLab;

  it('a nat chain at priority -150 still runs after a filter chain at -120', async () => {
    const c = await crossCheck(l(), probe(NODE_IP, 7000));
    expectAgreement(c, `answered "pod-a" src=${CLIENT_IP}`);
    const seq = traceOf(c, 'node');
    const early = seq.findIndex((s) => s.startsWith('ip natlab early rule'));
    const dnat = seq.findIndex((s) => s.startsWith('ip natlab dnat-first rule'));
    expect(early).toBeGreaterThanOrEqual(0);
    expect(dnat).toBeGreaterThan(early);
  });

  it("once an nft nat chain binds, iptables' nat PREROUTING does not run", async () => {
    const c = await crossCheck(l(), probe(NODE_IP, 7000));
    expectAgreement(c);
    expect(traceOf(c, 'node').some((s) => s.startsWith('ip nat PREROUTING'))).toBe(false);
  });

  it("without a binding the next nat chain, iptables' nat table, decides", async () => {
    const c = await crossCheck(l(), probe(NODE_IP, 7001));
    expectAgreement(c, `answered "pod-b" src=${CLIENT_IP}`);
    expect(traceOf(c, 'node')).toContain('ip nat PREROUTING rule @2 accept');
  });
});

/**
 * Two nat chains at dstnat (-100), kube-proxy-style nft and iptables' nat PREROUTING, DNAT port
 * 7002 to pod-a and pod-b respectively. The kernel runs the later-registered first
 * (nf_hook_entries_grow, net/netfilter/core.c: a new hook goes before the first of equal or
 * higher priority; the NAT core's own list the same way, nf_nat_register_fn in nf_nat_core.c)
 * and the NAT core stops at the first binding (nf_nat_inet_fn). The engine assumes the iptables
 * tables were registered first (src/engine/nft/hooks.ts); KernelLab.load keeps the kernel so.
 */
describeKernel('equal priority: the later-registered nat chain binds first', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(nftNodeNetwork(EQUAL_PRIORITY_NFT, EQUAL_PRIORITY_IPTABLES), {
      monitor: 'nft',
      trace: ['node'],
    });
  });
  afterAll(() => lab?.close());
  const l = () => lab as KernelLab;
  /** The kernel's handle of a table: a table deleted and created anew gets a new one. */
  const tableHandle = (table: string) =>
    /# handle (\d+)/.exec(
      nsRun(l().ns('node'), 'nft', ['-a', 'list', 'table', ...table.split(' ')]),
    )?.[1];
  const podA = `answered "pod-a" src=${CLIENT_IP}`;
  const podB = `answered "pod-b" src=${CLIENT_IP}`;

  it("iptables loaded first, nft second (the engine's order): the nft chain binds", async () => {
    expect(nftTableNames(EQUAL_PRIORITY_NFT)).toEqual(['ip tie']);
    const c = await crossCheck(l(), probe(NODE_IP, 7002));
    expectAgreement(c, podA);
    expect(traceOf(c, 'node').some((s) => s.startsWith('ip nat PREROUTING'))).toBe(false);
  });

  it("a plain iptables-restore re-creates its tables: now iptables' nat binds first", async () => {
    const before = tableHandle('ip nat');
    nsRun(l().ns('node'), 'iptables-restore', [], EQUAL_PRIORITY_IPTABLES);
    expect(tableHandle('ip nat')).not.toBe(before);
    await l().refreshTrace('node');
    const c = await crossCheck(l(), probe(NODE_IP, 7002));
    // The same rules, the other order: the kernel now disagrees with the engine's assumption.
    expect(verdictText(c.kernel)).toBe(podB);
    expect(verdictText(c.engine)).toBe(podA);
  });

  it('KernelLab.load after new iptables rules loads the nft tables again, after them', async () => {
    const tie = tableHandle('ip tie');
    l().setRules('node', EQUAL_PRIORITY_IPTABLES);
    expect(tableHandle('ip tie')).not.toBe(tie);
    await l().refreshTrace('node');
    expectAgreement(await crossCheck(l(), probe(NODE_IP, 7002)), podA);
  });
});

describeKernel('what nf_tables refuses at load, the reader refuses too', () => {
  const ns = `${RUN_PREFIX}-refuse`;
  beforeAll(() => {
    run('ip', ['netns', 'add', ns]);
  });
  afterAll(() => deleteNamespace(ns));

  for (const [name, text] of Object.entries(REFUSED)) {
    it(name, () => {
      let kernel = '';
      try {
        nsRun(ns, 'nft', ['-f', '-'], text);
      } catch (e) {
        kernel = e instanceof CommandError ? e.stderr : String(e);
      }
      expect(kernel).toContain('Operation not supported');
      const engine = parseNftRuleset(text).diagnostics.filter((d) => d.severity === 'error');
      expect(engine.length, JSON.stringify(engine)).toBe(1);
      expect(engine[0]?.message).toMatch(/^the kernel refuses this rule/);
    });
  }
});
