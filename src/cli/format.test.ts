/** The terminal trace names nft steps as `nft monitor trace` does, iptables steps as xtables-monitor. */
import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate } from '../engine/index.ts';
import { CLUSTER_IP, nftNodeNetwork } from '../engine/testing/nft-node.ts';
import { traceLines } from './format.ts';

describe('traceLines with nft and iptables steps on one node', () => {
  const { network } = buildNetwork(nftNodeNetwork());
  const sim = simulate(
    network as NonNullable<typeof network>,
    { kind: 'connect', from: 'client', proto: 'tcp', dst: CLUSTER_IP, dport: 80 },
    { seed: 1 },
  );
  const lines = traceLines(sim.events).join('\n');

  it('base chains with their table, type and priority; rules with handle and verdict', () => {
    expect(lines).toContain(
      '-- ip kube-proxy filter-prerouting-pre-dnat PREROUTING (type filter, priority -110)',
    );
    expect(lines).toContain(
      'ip kube-proxy services rule ip daddr . meta l4proto . th dport vmap @service-ips # handle 41 (verdict goto service-web)',
    );
  });

  it('iptables steps of the same packet keep the xtables notation', () => {
    expect(lines).toContain('filter:FORWARD:policy:ACCEPT');
    expect(lines).not.toContain('null');
  });
});
