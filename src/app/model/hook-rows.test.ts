/**
 * The diagram's rows in nftables and IPVS mode: each step lights the row of the nft base chain
 * or IPVS hook it comes from, and the token stands on that row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { labView } from '../worker/view.ts';
import { buildTimeline } from './timeline.ts';
import { buildScene } from './scene.ts';
import { HOOK_TITLE_H } from './geometry.ts';

function lab(id: string, mode?: 'nftables') {
  const text = readFileSync(`scenarios/${id}.yaml`, 'utf8');
  const r = labView(runLab({ scenario: text, validate: false, ...(mode ? { mode } : {}) }));
  const run = r.runs[0];
  if (!run) throw new Error(`${id}: no run`);
  const steps = buildTimeline(run, r.hooks);
  const scene = buildScene(r, steps);
  if (!scene) throw new Error(`${id}: no scene`);
  return { r, steps, scene };
}

describe('hook rows in the diagram', () => {
  it('nftables mode: rules of jumped-to chains light their base chain, never an iptables row', () => {
    const { steps, scene } = lab('nodeport-open-on-every-node', 'nftables');
    const nftSteps = steps.filter((s) => 'nft' in s.event && s.event.nft);
    expect(nftSteps.length).toBeGreaterThan(5);
    for (const s of nftSteps) {
      const box = scene.layout.hosts.find((h) => h.name === s.host);
      const row = s.slot.kind === 'hook' ? s.slot.row : null;
      expect(row, `step ${s.index}`).toMatch(/^nft ip kube-proxy /);
      const hook = box?.hooks.find((k) => s.slot.kind === 'hook' && k.hook === s.slot.hook);
      expect(
        hook?.rows.map((r) => r.row),
        `step ${s.index}`,
      ).toContain(row);
    }
    // The NodePort's DNAT happens in a service chain kube-proxy's nat-prerouting jumps to.
    const dnat = steps.find(
      (s) => s.event.type === 'rule' && s.event.nft && /dnat/.test(s.event.nft.verdict ?? ''),
    );
    const dnatRule = steps.find(
      (s) => s.event.type === 'rule' && s.event.nft && s.changed.includes('dst'),
    );
    const step = dnat ?? dnatRule;
    expect(step?.event.type === 'rule' && step.event.nft?.chain).not.toBe('nat-prerouting');
    expect(step?.slot).toEqual({
      kind: 'hook',
      hook: 'PREROUTING',
      row: 'nft ip kube-proxy nat-prerouting',
    });
    // The token stands inside that row's box.
    const at = scene.steps[step?.index ?? 0]?.at;
    const pre = scene.layout.hosts
      .find((h) => h.name === step?.host)
      ?.hooks.find((k) => k.hook === 'PREROUTING');
    const rows = pre?.rows ?? [];
    const i = rows.findIndex((r) => r.row === 'nft ip kube-proxy nat-prerouting');
    const top = (pre?.box.y ?? 0) + HOOK_TITLE_H + rows.slice(0, i).reduce((s, r) => s + r.h, 0);
    expect(at?.y).toBeGreaterThan(top);
    expect(at?.y).toBeLessThan(top + (rows[i]?.h ?? 0));
  });

  it('IPVS mode: the virtual server decision stands on the IPVS row of its hook', () => {
    const { steps } = lab('ipvs-local-lb-from-inside');
    const ipvs = steps.filter((s) => s.event.type === 'ipvs');
    expect(ipvs.length).toBeGreaterThan(0);
    for (const s of ipvs)
      expect(s.slot).toEqual({
        kind: 'hook',
        hook: s.event.type === 'ipvs' ? s.event.hook : null,
        row: 'ipvs',
      });
  });
});
