import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  FRAME_H,
  FRAME_W,
  READABLE_K,
  focusRect,
  followTransform,
  frameTransform,
  visibleRect,
} from './camera.ts';
import { labelOffset, overlap, type Rect } from './geometry.ts';
import { layoutDiagram } from './layout.ts';
import { podResult } from '../testing/lab-fixtures.ts';

const r = podResult();
const layout = layoutDiagram({ cluster: r.cluster!, runs: r.runs, rules: r.rules });
const view = { w: 900, h: 460 };
const insets = { top: 58, right: 8, bottom: 8, left: 8 };

describe('the follow camera', () => {
  it('frames the node the packet is on, whole, at the same zoom as the hosts around it', () => {
    const node = layout.hosts.find((h) => h.name === 'cp-1')!;
    const f = focusRect(layout, 'cp-1');
    expect(f.x).toBeLessThan(node.x);
    expect(f.x + f.w).toBeGreaterThan(node.x + node.w);
    const t = frameTransform(f, view, insets, 2);
    const seen = visibleRect(t, view, insets);
    expect(seen.x).toBeLessThanOrEqual(node.x);
    expect(seen.y).toBeLessThanOrEqual(node.y);
    expect(seen.x + seen.w).toBeGreaterThanOrEqual(node.x + node.w);
    expect(seen.y + seen.h).toBeGreaterThanOrEqual(node.y + node.h);
    // A client gets a frame of a node's size: the camera pans from host to host, no zoom pumping.
    const c = focusRect(layout, 'client');
    expect([c.w, c.h]).toEqual([FRAME_W, FRAME_H]);
    expect(frameTransform(c, view, insets, 2).k).toBeCloseTo(t.k);
  });

  it('never zooms past the cap on big screens', () => {
    const t = frameTransform(focusRect(layout, 'cp-1'), { w: 4000, h: 3000 }, insets, 1.7);
    expect(t.k).toBe(1.7);
  });
});

describe('a narrow panel (an embed at 400 px)', () => {
  it('keeps a readable zoom and pans along the node with the packet', () => {
    const narrow = { w: 384, h: 300 };
    const node = layout.hosts.find((h) => h.name === 'cp-1')!;
    const left = { x: node.x + 60, y: node.y + 100 };
    const right = { x: node.x + node.w - 60, y: node.y + 100 };
    const a = followTransform(layout, 'cp-1', left, narrow, insets);
    const b = followTransform(layout, 'cp-1', right, narrow, insets);
    expect(a.k).toBe(READABLE_K);
    for (const [t, p] of [
      [a, left],
      [b, right],
    ] as const) {
      const seen = visibleRect(t, narrow, insets);
      expect(p.x).toBeGreaterThanOrEqual(seen.x);
      expect(p.x).toBeLessThanOrEqual(seen.x + seen.w);
    }
    expect(b.x).toBeLessThan(a.x);
    // A wide panel shows the whole node and does not move while the packet crosses it.
    expect(followTransform(layout, 'cp-1', left, view, insets)).toEqual(
      followTransform(layout, 'cp-1', right, view, insets),
    );
  });
});

describe('the packet label', () => {
  const rect = fc.record({
    x: fc.integer({ min: 0, max: 600 }),
    y: fc.integer({ min: 0, max: 400 }),
    w: fc.integer({ min: 40, max: 160 }),
    h: fc.integer({ min: 40, max: 160 }),
  });
  it('never covers the active hook, and stays inside the view when the view has room', () => {
    fc.assert(
      fc.property(rect, fc.double({ min: 0, max: 1, noNaN: true }), (hook, f) => {
        const at = { x: hook.x + hook.w * 0.62, y: hook.y + hook.h * f };
        const bounds: Rect = { x: hook.x - 420, y: hook.y - 120, w: hook.w + 840, h: hook.h + 240 };
        const off = labelOffset(at, 300, 42, [], hook, bounds);
        const label = { x: at.x + off.x, y: at.y + off.y, w: 300, h: 42 };
        expect(overlap(label, hook)).toBe(0);
        expect(label.x).toBeGreaterThanOrEqual(bounds.x);
        expect(label.y).toBeGreaterThanOrEqual(bounds.y);
        expect(label.x + label.w).toBeLessThanOrEqual(bounds.x + bounds.w);
        expect(label.y + label.h).toBeLessThanOrEqual(bounds.y + bounds.h);
      }),
    );
  });

  it('moves off the left edge (the ECMP router at the left of the drawing)', () => {
    const bounds = { x: 0, y: 0, w: 800, h: 400 };
    // Boxes on the right would push the label left, past the edge, if the edge did not count.
    const boxes = [{ x: 30, y: 100, w: 400, h: 200 }];
    expect(20 + labelOffset({ x: 20, y: 200 }, 300, 42, boxes).x).toBeLessThan(0);
    expect(
      20 + labelOffset({ x: 20, y: 200 }, 300, 42, boxes, null, bounds).x,
    ).toBeGreaterThanOrEqual(0);
  });

  it('in a panel too narrow for either side, slides inside instead of crossing the edge', () => {
    // A 400 px embed at the readable zoom: the packet mid-panel, the label wider than each side.
    const bounds = { x: 0, y: 0, w: 430, h: 300 };
    const at = { x: 215, y: 150 };
    const off = labelOffset(at, 300, 42, [], null, bounds);
    const label = { x: at.x + off.x, y: at.y + off.y, w: 300, h: 42 };
    expect(label.x).toBeGreaterThanOrEqual(0);
    expect(label.x + label.w).toBeLessThanOrEqual(430);
    // The packet's own dot stays uncovered.
    expect(overlap(label, { x: at.x - 6, y: at.y - 6, w: 12, h: 12 })).toBe(0);
  });
});
