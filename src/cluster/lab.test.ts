/** What runLab hands the lab for a small and for a big cluster. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from './lab.ts';
import { bigManifests } from '../bench/big-manifests.ts';

const scenario = readFileSync(
  new URL('../../scenarios/vip22-sshd-or-service.yaml', import.meta.url),
  'utf8',
);
// client/laptop to cp-1's sshd: the packet never reaches worker-1.
const path = { from: 'client/laptop', to: 'node/cp-1:22' };

describe('runLab', () => {
  it('gives the rules of every node of a small cluster', () => {
    const r = runLab({ scenario, validate: false, path });
    expect(r.ok).toBe(true);
    expect(Object.keys(r.rules).sort()).toEqual(['cp-1', 'worker-1']);
  });

  it('gives only the rules of the nodes on the path of a big cluster, same answer', () => {
    // 2 nodes x (2,600 Services + 7,800 endpoints) is past ALL_NODES_RULES_MAX.
    const r = runLab({ scenario, validate: false, path, manifests: bigManifests(2600, 3) });
    expect(r.ok, JSON.stringify(r.diagnostics.slice(0, 3))).toBe(true);
    expect(Object.keys(r.rules)).toEqual(['cp-1']);
    expect(r.rules['cp-1']).toContain('KUBE-SVC-');
    expect(r.runs.map((x) => x.outcome.kind)).toEqual(['answered']);
    // A big cluster on purpose: alone it takes a few seconds, the whole suite at once on two
    // cores several times that.
  }, 120_000);

  it('in nftables mode too: only the path’s nodes get their nft table, same answer', () => {
    const big = bigManifests(2600, 3);
    const r = runLab({ scenario, validate: false, path, manifests: big, mode: 'nftables' });
    expect(r.ok, JSON.stringify(r.diagnostics.slice(0, 3))).toBe(true);
    expect(Object.keys(r.nftables ?? {})).toEqual(['cp-1']);
    expect(r.nftables?.['cp-1']).toContain('add chain ip kube-proxy service-');
    expect(r.rules['cp-1']).not.toContain('KUBE-');
    expect(r.runs.map((x) => x.outcome.kind)).toEqual(['answered']);
    // The packet crossed kube-proxy's base chains on cp-1 (its services lookup found nothing).
    const chains = new Set(
      r.runs[0]?.events.flatMap((e) => (e.type === 'rule' && e.nft ? [e.chain] : [])),
    );
    expect(chains.has('nat-prerouting')).toBe(true);
  }, 120_000);
  it('gives rules that follow every edit that changes them, and only those', () => {
    const text = bigManifests(30, 1);
    const first = runLab({ scenario, validate: false, path, manifests: text });
    // A label changes nothing kube-proxy writes: the same text.
    const label = runLab({
      scenario,
      validate: false,
      path,
      manifests: text.replace('name: svc-7\n', 'name: svc-7\n  labels: { edit: "1" }\n'),
    });
    expect(label.rules).toEqual(first.rules);
    // A port does: the node's rules say so on the very next run, and again once undone.
    const port = runLab({
      scenario,
      validate: false,
      path,
      manifests: text.replace(/(name: svc-7\n[\s\S]*?port: )80,/, '$18007,'),
    });
    expect(port.rules['cp-1']).toContain('--dport 8007');
    expect(first.rules['cp-1']).not.toContain('--dport 8007');
    expect(runLab({ scenario, validate: false, path, manifests: text }).rules).toEqual(first.rules);
  });
});
