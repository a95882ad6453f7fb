/**
 * The node's layout rules: a hook box is as tall as its rows, and the node grows (the rows
 * below move down) so that no box overlaps another or leaves the node, in every scenario's
 * every variant and kube-proxy mode as well as with far more rows than any of them has.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';
import { labView } from '../worker/view.ts';
import { readScenario } from '../scenario/entry.ts';
import { buildTimeline } from './timeline.ts';
import { buildScene } from './scene.ts';
import {
  DIAMOND,
  HOOK_TITLE_H,
  NFT_ROW_H,
  NODE_H,
  STRIP_H,
  hookHeight,
  nodeGeometry,
  overlap,
  type Rect,
} from './geometry.ts';
import type { HostBox } from './layout.ts';

/** Everything a node draws inside itself, named for the failure message. */
function partsOf(h: HostBox): [string, Rect][] {
  const g = h.geo;
  if (!g) return [];
  const diamond = (p: { x: number; y: number }): Rect => ({
    x: h.x + p.x - DIAMOND,
    y: h.y + p.y - DIAMOND,
    w: 2 * DIAMOND,
    h: 2 * DIAMOND,
  });
  return [
    ...h.hooks.map((k): [string, Rect] => [k.hook, k.box]),
    ['conntrack', h.ct as Rect],
    ['local', { ...g.local, x: h.x + g.local.x, y: h.y + g.local.y }],
    ['route-in', diamond(g.routeIn)],
    ['route-out', diamond(g.routeOut)],
    ...(h.bridge ? [['bridge', h.bridge] as [string, Rect]] : []),
  ];
}

function expectNoOverlap(h: HostBox, where: string): void {
  const parts = partsOf(h);
  for (const [name, r] of parts) {
    expect(r.y + r.h, `${where}: ${name} leaves the node`).toBeLessThanOrEqual(h.y + h.h);
    expect(r.x + r.w, `${where}: ${name} leaves the node`).toBeLessThanOrEqual(h.x + h.w);
  }
  for (let i = 0; i < parts.length; i++)
    for (let j = i + 1; j < parts.length; j++) {
      const [a, ra] = parts[i] as [string, Rect];
      const [b, rb] = parts[j] as [string, Rect];
      expect(overlap(ra, rb), `${where}: ${a} overlaps ${b}`).toBe(0);
    }
}

describe('node geometry', () => {
  it('with the classic rows is the fixed drawing', () => {
    const rows = { PREROUTING: 4, INPUT: 5, FORWARD: 3, OUTPUT: 7, POSTROUTING: 3 } as const;
    const g = nodeGeometry((k) => rows[k] * STRIP_H);
    expect(g.stackH).toBe(NODE_H);
    expect(g.hookAt.INPUT.y).toBe(178);
  });

  it('grows with the rows: INPUT and OUTPUT go below the tallest hook of the top row', () => {
    // Ten nft base chains at PREROUTING (kube-proxy's beside a firewall's) and as many at OUTPUT.
    const tall = 10 * NFT_ROW_H;
    const g = nodeGeometry((k) => (k === 'PREROUTING' || k === 'OUTPUT' ? tall : 3 * STRIP_H));
    const preBottom = g.hookAt.PREROUTING.y + hookHeight(tall);
    expect(hookHeight(tall)).toBe(HOOK_TITLE_H + tall + 6);
    expect(g.hookAt.INPUT.y).toBeGreaterThanOrEqual(preBottom + 20);
    expect(g.hookAt.OUTPUT.y).toBe(g.hookAt.INPUT.y);
    expect(g.ct.y).toBe(g.hookAt.INPUT.y);
    expect(g.stackH).toBeGreaterThanOrEqual(g.hookAt.OUTPUT.y + hookHeight(tall));
    expect(g.local.y).toBeGreaterThan(g.routeOut.y + DIAMOND);
  });

  const files = readdirSync('scenarios').filter((f) => f.endsWith('.yaml'));
  it.each(files)('%s: no box of a node overlaps another, in every variant and mode', (file) => {
    const text = readFileSync(`scenarios/${file}`, 'utf8');
    const sc = readScenario(file.replace(/\.yaml$/, ''), text);
    const modes: (KubeProxyMode | undefined)[] = sc.modes.length ? [...sc.modes] : [undefined];
    for (const v of sc.variants)
      for (const mode of modes) {
        const r = labView(
          runLab({ scenario: text, variant: v.id, validate: false, ...(mode ? { mode } : {}) }),
        );
        const run = r.runs[0];
        if (!run) continue;
        const scene = buildScene(r, buildTimeline(run, r.hooks));
        for (const h of scene?.layout.hosts ?? [])
          if (h.pipeline) expectNoOverlap(h, `${v.id} ${mode ?? ''} ${h.name}`);
      }
  });
});
