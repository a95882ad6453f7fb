// @vitest-environment jsdom
/**
 * Golden SVG (as Observable Plot checks its rendering): the diagram of the VIP:22 homelab at the
 * DNAT step, normalised (numbers rounded), compared with the stored file. A change of the
 * drawing shows up as a diff to review; UPDATE_GOLDEN=1 rewrites the file.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDiagram } from './diagram.ts';
import { buildScene, stripMarks } from '../model/scene.ts';
import { ctShown } from '../model/conntrack.ts';
import { buildTimeline } from '../model/timeline.ts';
import { podResult } from '../testing/lab-fixtures.ts';

// Relative to the repository root (vitest's cwd): jsdom gives import.meta.url an http scheme.
const GOLDEN = 'src/app/diagram/__golden__/vip22-dnat.svg';

/** Rounds the geometry attributes (not the addresses in the text) and puts one tag a line. */
function normalise(svg: string): string {
  return svg
    .replace(
      / (x|y|x1|x2|y1|y2|width|height|transform|points|d)="([^"]*)"/g,
      (_, a: string, v: string) => {
        const r = v.replace(/-?\d+\.\d+/g, (n) => String(Math.round(Number(n) * 10) / 10));
        return ` ${a}="${r}"`;
      },
    )
    .replace(/></g, '>\n<');
}

describe('diagram golden SVG', () => {
  it('draws the VIP:22 path at the DNAT step as before, with the conntrack entry', () => {
    const r = podResult();
    const run = r.runs[0];
    if (!run) throw new Error('no run');
    const steps = buildTimeline(run);
    const step = steps.findIndex((s) => s.event.type === 'rule' && s.event.target === 'DNAT');
    const scene = buildScene(r, steps);
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    document.body.append(svg);
    const d = createDiagram(svg, {
      routing: 'routing',
      localProcesses: 'local sockets',
      noProcess: 'nothing listens',
      kind: { client: 'client', node: 'node', pod: 'pod', router: 'router' },
      rows: { conntrack: 'conntrack', confirm: 'ct confirm', reroute: 'reroute?' },
      ct: {
        title: 'conntrack',
        empty: 'no entry yet',
        original: 'original',
        reply: 'reply (expected)',
        unconfirmed: 'unconfirmed, on the packet',
        confirmed: 'in the table ✓',
      },
    });
    if (!scene) throw new Error('no scene');
    d.update({
      scene,
      step,
      run: 0,
      marks: stripMarks(steps, step),
      ct: ctShown(scene.layout, steps, step),
      durationMs: 0,
      stale: false,
    });
    const out = normalise(svg.outerHTML);
    d.destroy();
    // What the frame must show, independent of the golden file.
    expect(out).toContain('10.244.1.5:80');
    expect(out).toMatch(/class="strip row-table present hit current" data-row="nat"/);
    // The conntrack row is marked, and the entry shows the binding the DNAT just set up.
    expect(out).toMatch(/class="strip row-conntrack present hit" data-row="conntrack"/);
    expect(out).toContain('DNAT ⇒ dst 10.244.1.5:80');
    expect(out).toContain('unconfirmed, on the packet');
    if (process.env.UPDATE_GOLDEN || !existsSync(GOLDEN)) writeFileSync(GOLDEN, out);
    expect(out).toBe(readFileSync(GOLDEN, 'utf8'));
  });
});
