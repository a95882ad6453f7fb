/**
 * The rows of the diagram's hook boxes come from the host's hook plan: what a user reads in a
 * node's PREROUTING box is what the engine runs there, in that order.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Hook } from '../engine/index.ts';
import { runLab } from './lab.ts';
import type { HookRowsView } from './types.ts';

const scenario = (id: string) => readFileSync(`scenarios/${id}.yaml`, 'utf8');

function rowsOf(id: string, node: string, mode?: 'iptables' | 'nftables' | 'ipvs'): HookRowsView {
  const r = runLab({ scenario: scenario(id), validate: false, ...(mode ? { mode } : {}) });
  const rows = r.hooks?.[node];
  if (!rows) throw new Error(`${id}: no rows for ${node} (${Object.keys(r.hooks ?? {}).join()})`);
  return rows;
}

const keys = (rows: HookRowsView, hook: Hook) => rows[hook].map((r) => r.key);

describe('hook rows', () => {
  it('draw an iptables-mode node as before: every table, conntrack, reroute and confirm', () => {
    const rows = rowsOf('nodeport-open-on-every-node', 'edge-1', 'iptables');
    expect(keys(rows, 'PREROUTING')).toEqual(['raw', 'conntrack', 'mangle', 'nat']);
    expect(keys(rows, 'INPUT')).toEqual(['mangle', 'filter', 'nat', 'confirm']);
    expect(keys(rows, 'FORWARD')).toEqual(['mangle', 'filter']);
    expect(keys(rows, 'OUTPUT')).toEqual([
      'raw',
      'conntrack',
      'mangle',
      'nat',
      'reroute',
      'filter',
    ]);
    expect(keys(rows, 'POSTROUTING')).toEqual(['mangle', 'nat', 'confirm']);
    // kube-proxy writes nat and filter only: raw and mangle are drawn pale.
    expect(rows.PREROUTING.filter((r) => r.present).map((r) => r.key)).toEqual([
      'conntrack',
      'nat',
    ]);
  });

  it("give each nft base chain its own row at its priority (kube-proxy's -110 before dstnat)", () => {
    const rows = rowsOf('nodeport-open-on-every-node', 'edge-1', 'nftables');
    expect(rows.PREROUTING.map((r) => [r.key, r.priority])).toEqual([
      ['conntrack', -200],
      ['nft ip kube-proxy filter-prerouting-pre-dnat', -110],
      ['nft ip kube-proxy nat-prerouting', -100],
    ]);
    expect(rows.PREROUTING[1]?.nft).toEqual({
      family: 'ip',
      table: 'kube-proxy',
      chain: 'filter-prerouting-pre-dnat',
      type: 'filter',
    });
    // No iptables tables on this node, and no nat chain at input: the NAT core has its own row.
    expect(keys(rows, 'INPUT')).toEqual(['nft ip kube-proxy filter-input', 'nat-core', 'confirm']);
    expect(keys(rows, 'OUTPUT')).toEqual([
      'conntrack',
      'nft ip kube-proxy filter-output-pre-dnat',
      'nft ip kube-proxy nat-output',
      'reroute',
      'nft ip kube-proxy filter-output',
    ]);
    expect(keys(rows, 'POSTROUTING')).toEqual(['nft ip kube-proxy nat-postrouting', 'confirm']);
  });

  it('put IPVS where ip_vs_core.c hooks: LOCAL_IN before nat, FORWARD, LOCAL_OUT before filter', () => {
    const rows = rowsOf('ipvs-local-lb-from-inside', 'xs4773');
    expect(keys(rows, 'INPUT')).toEqual(['filter', 'ipvs', 'nat', 'confirm']);
    expect(keys(rows, 'FORWARD')).toEqual(['filter', 'ipvs']);
    expect(keys(rows, 'OUTPUT')).toEqual(['conntrack', 'nat', 'reroute', 'ipvs', 'filter']);
    expect(keys(rows, 'PREROUTING')).toEqual(['conntrack', 'nat']);
  });
});
