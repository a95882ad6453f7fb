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
  LB_IP,
  NODE_IP,
  NODE_POD_IP,
  NAT_CORE_IPTABLES,
  NAT_CORE_NFT,
  NODE_PORT,
  nftNodeNetwork,
} from '../engine/testing/nft-node.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { KernelLab } from './lab.ts';
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
