// @vitest-environment jsdom
/**
 * Golden SVGs, as Observable Plot checks its rendering (test/plot-snapshot.js): one per scenario
 * variant, drawn at its key step (the step a teacher would stop at: the rewrite, the drop, the
 * delivery), normalised (numbers rounded, one tag a line), compared with the stored file. A
 * change of the drawing shows up as a diff to review. A missing golden fails: write it on
 * purpose with UPDATE_GOLDEN=1 and read the new file before committing it.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import type { TraceEvent } from '../../engine/trace.ts';
import { readScenario } from '../scenario/entry.ts';
import { labView } from '../worker/view.ts';
import { createDiagram } from './diagram.ts';
import { buildScene, stripMarks } from '../model/scene.ts';
import { ctShown } from '../model/conntrack.ts';
import { buildTimeline, type Step } from '../model/timeline.ts';

// Relative to the repository root (vitest's cwd): jsdom gives import.meta.url an http scheme.
const GOLDEN_DIR = 'src/app/diagram/__golden__';
const SCENARIOS = 'scenarios';

const TEXTS: Parameters<typeof createDiagram>[1] = {
  routing: 'routing',
  localProcesses: 'local sockets',
  noProcess: 'nothing listens',
  kind: { client: 'client', node: 'node', pod: 'pod', router: 'router' },
  rows: {
    conntrack: 'conntrack',
    confirm: 'ct confirm',
    reroute: 'reroute?',
    natCore: 'NAT core',
    ipvs: 'IPVS',
    nftTitle: 'nft base chain {family} {table} {chain}: type {type}, priority {priority}',
  },
  bridge: {
    title: 'Linux bridge {name} ({address}): the pods’ veths are its ports',
    kind: 'bridge',
    nfOn: 'br_netfilter on: bridged IPv4 passes the hooks',
    nfOff: 'br_netfilter off: bridged frames skip the hooks',
    hairpinOn: '↺ hairpin on',
    hairpinOff: 'hairpin off',
  },
  ct: {
    title: 'conntrack',
    empty: 'no entry yet',
    original: 'original',
    reply: 'reply (expected)',
    unconfirmed: 'unconfirmed, on the packet',
    confirmed: 'in the table ✓',
  },
};

/** The key step, in the order e2e/variants.spec.ts picks it from the trace panel's rows. */
const KEY_STEPS: readonly ((e: TraceEvent) => boolean)[] = [
  (e) => e.type === 'rule' && e.target === 'DNAT',
  (e) => e.type === 'rule' && e.target === 'DROP',
  (e) => e.type === 'rule' && e.target === 'REJECT',
  (e) => e.type === 'policy' && e.verdict === 'DROP',
  (e) => e.type === 'rule' && e.target === 'MASQUERADE',
  (e) => e.type === 'socket' && e.result === 'delivered',
  (e) => e.type === 'socket' && e.result === 'no-listener',
];

function keyStep(steps: readonly Step[]): number {
  for (const is of KEY_STEPS) {
    const i = steps.findIndex((s) => is(s.event));
    if (i >= 0) return i;
  }
  return 0;
}

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

/** The diagram of a scenario variant's first run at its key step, as normalised SVG text. */
function drawKeyStep(text: string, variant: string): { svg: string; event: TraceEvent } {
  const r = labView(runLab({ scenario: text, variant }));
  const run = r.runs[0];
  if (!r.ok || !run) throw new Error(`${variant}: no run (${JSON.stringify(r.diagnostics)})`);
  const steps = buildTimeline(run, r.hooks);
  const step = keyStep(steps);
  const scene = buildScene(r, steps);
  if (!scene) throw new Error(`${variant}: no scene`);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  const d = createDiagram(svg, TEXTS);
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
  svg.remove();
  const event = steps[step]?.event;
  if (!event) throw new Error(`${variant}: no step ${step}`);
  return { svg: out, event };
}

const files = readdirSync(SCENARIOS).filter((f) => f.endsWith('.yaml'));

describe.each(files)('golden SVG of %s', (file) => {
  const id = file.replace(/\.yaml$/, '');
  const text = readFileSync(`${SCENARIOS}/${file}`, 'utf8');
  const variants = readScenario(id, text).variants.map((v) => v.id);

  it.each(variants)('variant %s at its key step is drawn as before', (variant) => {
    const { svg } = drawKeyStep(text, variant);
    const golden = `${GOLDEN_DIR}/${id}--${variant}.svg`;
    if (process.env.UPDATE_GOLDEN) writeFileSync(golden, svg);
    expect(
      existsSync(golden),
      `${golden} is missing: run UPDATE_GOLDEN=1 npx vitest run src/app/diagram/diagram.golden.test.ts and review the file`,
    ).toBe(true);
    expect(svg).toBe(readFileSync(golden, 'utf8'));
  });
});

describe('golden SVG files', () => {
  it('are each one variant of a scenario (a stale golden is removed with its variant)', () => {
    const expected = new Set<string>();
    for (const file of files) {
      const id = file.replace(/\.yaml$/, '');
      const text = readFileSync(`${SCENARIOS}/${file}`, 'utf8');
      for (const v of readScenario(id, text).variants) expected.add(`${id}--${v.id}.svg`);
    }
    const stale = readdirSync(GOLDEN_DIR).filter((f) => !expected.has(f));
    expect(stale).toEqual([]);
  });

  it('show what the VIP:22 DNAT frame must show, whatever the stored file says', () => {
    const text = readFileSync(`${SCENARIOS}/vip22-sshd-or-service.yaml`, 'utf8');
    const { svg, event } = drawKeyStep(text, 'lb-service');
    expect(event.type === 'rule' && event.target).toBe('DNAT');
    expect(svg).toMatch(/class="strip row-table present hit current" data-row="nat"/);
    // The conntrack row is marked, and the entry shows the binding the DNAT just set up.
    expect(svg).toMatch(/class="strip row-conntrack present hit" data-row="conntrack"/);
    expect(svg).toMatch(/DNAT ⇒ dst 10\.244\.\d+\.\d+:80/);
    expect(svg).toContain('unconfirmed, on the packet');
  });
});
