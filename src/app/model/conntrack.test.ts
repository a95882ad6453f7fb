import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { buildTimeline, visibleSteps, type Step } from './timeline.ts';
import { conntrackAt, ctShown, ctTouchOf } from './conntrack.ts';
import { layoutDiagram } from './layout.ts';
import { stripMarks } from './scene.ts';
import { podResult } from '../testing/lab-fixtures.ts';

const steps = buildTimeline(podResult().runs[0]!);
const at = (pred: (s: Step) => boolean) => {
  const s = steps.find(pred);
  if (!s) throw new Error('no such step');
  return s;
};
const ct = (host: string, action: string, pid = 1) =>
  at(
    (s) =>
      s.host === host &&
      s.event.packetId === pid &&
      s.event.type === 'conntrack' &&
      s.event.action === action,
  );

describe('conntrack on the map', () => {
  it('puts the lookup after raw and the confirm after the last hook', () => {
    expect(ct('cp-1', 'new').slot).toEqual({ kind: 'hook', hook: 'PREROUTING', row: 'conntrack' });
    expect(ct('cp-1', 'confirm').slot).toEqual({
      kind: 'hook',
      hook: 'POSTROUTING',
      row: 'confirm',
    });
    // The reply: found in the reply direction, then conntrack undoes both rewrites at the nat rows.
    expect(ct('cp-1', 'lookup', 2).slot).toMatchObject({ hook: 'PREROUTING', row: 'conntrack' });
    const nats = steps.filter(
      (s) => s.host === 'cp-1' && s.event.type === 'conntrack' && s.event.action === 'nat',
    );
    expect(nats.map((s) => s.slot)).toEqual([
      { kind: 'hook', hook: 'PREROUTING', row: 'nat' },
      { kind: 'hook', hook: 'POSTROUTING', row: 'nat' },
    ]);
    const marks = stripMarks(steps, ct('cp-1', 'confirm').index);
    expect(marks.find((m) => m.row === 'confirm')?.badge).toBe('#1 ✓');
  });

  it('draws the entry: unconfirmed with its DNAT binding, then in the table, then used by the reply', () => {
    const dnat = at((s) => s.event.type === 'rule' && s.event.target === 'DNAT');
    const t1 = ctTouchOf(steps, dnat.index);
    expect(t1).toMatchObject({ use: 'bind', binding: 'dnat' });
    expect(t1?.entry).toMatchObject({ confirmed: false, dnat: true, snat: false });
    expect(t1?.entry.reply.src).toBe('10.244.1.5');
    const confirm = ct('cp-1', 'confirm');
    const entry = conntrackAt(steps, confirm.index).find((e) => e.host === 'cp-1');
    expect(entry).toMatchObject({ confirmed: true, dnat: true, snat: true, seenReply: false });
    // The reply's source goes back to the VIP from the entry: the DNAT undone at POSTROUTING.
    const undo = steps.filter(
      (s) => s.host === 'cp-1' && s.event.type === 'conntrack' && s.event.action === 'nat',
    )[1]!;
    expect(ctTouchOf(steps, undo.index)).toMatchObject({
      use: 'nat',
      binding: 'dnat',
      reversed: true,
    });
    expect(undo.event.packet.src).toBe('192.168.50.100');
    expect(conntrackAt(steps, undo.index).find((e) => e.host === 'cp-1')?.seenReply).toBe(true);
  });

  it('shows each node its own entry, and none before the packet gets there', () => {
    const r = podResult();
    const layout = layoutDiagram({ cluster: r.cluster!, runs: r.runs, rules: r.rules });
    const first = ctShown(layout, steps, 0);
    expect(first.map((c) => [c.host, c.entry])).toEqual([
      ['cp-1', null],
      ['worker-1', null],
    ]);
    const dnat = at((s) => s.event.type === 'rule' && s.event.target === 'DNAT');
    const shown = ctShown(layout, steps, dnat.index);
    expect(shown.find((c) => c.host === 'cp-1')?.touch?.use).toBe('bind');
    expect(shown.find((c) => c.host === 'worker-1')?.entry).toBeNull();
  });

  it('routes again in OUTPUT after nat OUTPUT rewrote a node’s own packet', () => {
    const text = readFileSync('scenarios/nodeport-close-on-core-nodes.yaml', 'utf8');
    const r = runLab({
      scenario: text,
      variant: 'open',
      path: { from: 'node/edge-1', to: 'localhost-nodeport/web@edge-1' },
    });
    const s = buildTimeline(r.runs[0]!);
    const reroute = s.find((x) => x.event.type === 'route' && x.event.decision === 'reroute');
    expect(reroute?.slot).toEqual({ kind: 'hook', hook: 'OUTPUT', row: 'reroute' });
    const ctOut = s.find((x) => x.event.type === 'conntrack' && x.event.action === 'new');
    expect(ctOut?.slot).toEqual({ kind: 'hook', hook: 'OUTPUT', row: 'conntrack' });
  });
});

describe('the step counter', () => {
  it('counts matched steps 1, 2, 3… and every rule walked past on request', () => {
    const shown = visibleSteps(steps, false, 0);
    expect(shown.length).toBeLessThan(steps.length);
    expect(shown.every((i) => !steps[i]!.miss)).toBe(true);
    expect(visibleSteps(steps, true, 0)).toHaveLength(steps.length);
    // Standing on a hidden step keeps it countable.
    const miss = steps.find((s) => s.miss)!;
    expect(visibleSteps(steps, false, miss.index)).toContain(miss.index);
  });
});
