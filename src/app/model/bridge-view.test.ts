/**
 * The bridge in the diagram: a bridged pod network draws cni0 between the node's stack and the
 * pods' veths, and the packet's bridge steps stand on it, as the engine reported them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { labView } from '../worker/view.ts';
import { buildTimeline } from './timeline.ts';
import { buildScene } from './scene.ts';
import { overlap, type Point, type Rect } from './geometry.ts';

const text = readFileSync('scenarios/bridge-pod-network.yaml', 'utf8');

function lab(variant: string, path?: { from: string; to: string }) {
  const r = labView(
    runLab({ scenario: text, variant, validate: false, ...(path ? { path } : {}) }),
  );
  const run = r.runs[0];
  if (!run) throw new Error(`${variant}: no run`);
  const steps = buildTimeline(run, r.hooks);
  const scene = buildScene(r, steps);
  if (!scene) throw new Error(`${variant}: no scene`);
  const node = scene.layout.hosts.find((h) => h.name === 'node-1');
  if (!node?.bridge) throw new Error('node-1 has no bridge drawn');
  return { steps, scene, node, bridge: node.bridge };
}

const inside = (p: Point, r: Rect) => overlap({ x: p.x, y: p.y, w: 0.1, h: 0.1 }, r) > 0;

describe('the bridge in the diagram', () => {
  it('sits on the veth bars of its ports, with br_netfilter and hairpin as configured', () => {
    const { node, bridge } = lab('bridge-nf-off-no-hairpin');
    expect(bridge.name).toBe('cni0');
    expect(bridge.nfCallIptables).toBe(false);
    expect(bridge.ports.length).toBe(2);
    for (const p of bridge.ports) {
      expect(p.hairpin).toBe(false);
      const bar = node.ifaces.find((i) => i.name === p.iface)?.bar;
      expect(bar?.y, p.iface).toBe(bridge.y + bridge.h);
      expect(p.x).toBe((bar?.x ?? 0) + 40);
    }
    // Under the local sockets, inside the node.
    expect(bridge.y).toBeGreaterThan(node.y + (node.geo?.local.y ?? 0) + (node.geo?.local.h ?? 0));
    expect(bridge.y + bridge.h).toBeLessThan(node.y + node.h);
  });

  it('bridge-nf-call-iptables=0: the answer is bridged along cni0, through no hook', () => {
    const { steps, scene, bridge } = lab('bridge-nf-off');
    const fwd = steps.filter((s) => s.event.type === 'bridge' && s.event.action === 'forward');
    expect(fwd.length).toBeGreaterThan(0);
    for (const s of fwd) {
      const at = scene.steps[s.index];
      expect(s.slot).toMatchObject({ kind: 'out', bridge: 'cni0' });
      expect(at && inside(at.at, bridge), `step ${s.index}`).toBe(true);
      // From the port it came in by, along the bridge only.
      for (const p of at?.path ?? []) expect(inside(p, { ...bridge, h: bridge.h + 12 })).toBe(true);
    }
  });

  it('hairpin off: the drop is on the bridge, above the port it came in by', () => {
    const { steps, scene, bridge } = lab('bridge-no-hairpin', {
      from: 'pod/web',
      to: 'svc/web:80',
    });
    const drop = steps.find((s) => s.event.type === 'bridge' && s.event.action === 'hairpin-drop');
    const e = drop?.event;
    if (!drop || e?.type !== 'bridge') throw new Error('no hairpin drop');
    expect(drop.end).toBe('drop');
    const at = scene.steps[drop.index]?.at as Point;
    expect(inside(at, bridge)).toBe(true);
    const port = bridge.ports.find((p) => p.iface === e.inPort);
    expect(Math.abs(at.x - (port?.x ?? 0))).toBeLessThanOrEqual(8);
  });
});
