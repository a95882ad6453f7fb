/**
 * The trace rows of nftables-mode steps (components/trace-text.ts), from a real run: nft's own
 * words (family, table, chain, handle, base chain type and priority), not the iptables table
 * the diagram row stands for. Here beside the worker: only it may run the simulation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { detailOf, verdictOfEvent, whereOf } from '../components/trace-text.ts';

const text = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');
const events = (mode: 'iptables' | 'nftables') =>
  runLab({ scenario: text, variant: 'lb-service', mode }).runs[0]?.events ?? [];

describe('trace rows of nftables steps', () => {
  const ev = events('nftables');

  it('name the base chain with its type and priority where a hook enters it', () => {
    const hook = ev.find((e) => e.type === 'hook' && e.nft?.chain === 'nat-prerouting');
    expect(hook && whereOf(hook)).toBe(
      'PREROUTING · ip kube-proxy nat-prerouting (type nat, priority -100)',
    );
  });

  it('write a rule with its handle and its verdict in nft words', () => {
    const vmap = ev.find((e) => e.type === 'rule' && e.nft?.chain === 'services');
    if (!vmap || vmap.type !== 'rule') throw new Error('no services rule');
    expect(whereOf(vmap)).toBe('PREROUTING · ip kube-proxy services');
    expect(detailOf(vmap)).toBe(
      `ip daddr . meta l4proto . th dport vmap @service-ips # handle ${vmap.nft?.handle}`,
    );
    expect(verdictOfEvent(vmap)).toMatch(/^goto external-/);
    const policy = ev.find((e) => e.type === 'policy' && e.nft);
    expect(policy && verdictOfEvent(policy)).toBe('policy accept');
  });

  it('leave iptables steps as they were', () => {
    const rule = events('iptables').find((e) => e.type === 'rule');
    expect(rule && whereOf(rule)).toMatch(/^PREROUTING · (raw|mangle|nat) · /);
    expect(rule && verdictOfEvent(rule)).not.toMatch(/^(jump|goto|accept)/);
  });
});
