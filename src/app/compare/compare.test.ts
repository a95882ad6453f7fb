/**
 * Compare side by side, with the real simulation (runLab in this thread): externalTrafficPolicy
 * Cluster vs Local on a core node of nodeport-close-on-core-nodes, the seeds' example.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { labView } from '../worker/view.ts';
import type { LabClient } from '../worker/client.ts';
import type { RunInput, RunOutcome } from '../worker/protocol.ts';
import { readScenario } from '../scenario/entry.ts';
import { createLabStore, stepsOf, type LabStore } from '../store/lab-store.ts';
import { visibleSteps, buildTimeline } from '../model/timeline.ts';
import { align, stepKey } from './align.ts';
import { createCompareController } from './controller.ts';
import { compareInput, parseCompare } from './spec.ts';

const ID = 'nodeport-close-on-core-nodes';
const TEXT = readFileSync(join(import.meta.dirname, `../../../scenarios/${ID}.yaml`), 'utf8');
const entry = readScenario(ID, TEXT);
const PATH = { from: 'client/external', to: 'nodeport/web@core-1' };

const result = (input: RunInput) => labView(runLab(input));

/** runLab in this thread, as the lab's client would answer. */
const inThread = (): LabClient =>
  ({
    run: (input: RunInput): Promise<RunOutcome> =>
      Promise.resolve({ kind: 'result', result: result(input), ms: 0 }),
    dispose: () => undefined,
  }) as unknown as LabClient;

const tick = () => new Promise((r) => setTimeout(r, 0));

async function mainStore(variant: string): Promise<LabStore> {
  const s = createLabStore();
  s.actions.loadScenario(entry, { variant, path: PATH });
  s.actions.receive({
    kind: 'result',
    result: result({ scenario: TEXT, variant, path: PATH }),
    ms: 0,
  });
  await tick();
  return s;
}

const visible = (r: ReturnType<typeof result>) => {
  const steps = buildTimeline(r.runs[0] as never);
  return visibleSteps(steps, false, -1).map((i) => steps[i] as (typeof steps)[number]);
};

describe('the alignment of two traces', () => {
  it('Cluster vs Local: the paths part in KUBE-EXT, MASQUERADE on one side, the drop on the other', () => {
    const a = visible(result({ scenario: TEXT, variant: 'open', path: PATH }));
    const b = visible(result({ scenario: TEXT, variant: 'a-etp-local', path: PATH }));
    const al = align(a, b);
    const at = al.divergence?.at ?? -1;
    expect(at).toBeGreaterThan(0);
    // Up to there the same steps; there, each side's first step of its own.
    expect(a.slice(0, at).map(stepKey)).toEqual(b.slice(0, at).map(stepKey));
    const sa = a[at]?.event;
    const sb = b[at]?.event;
    expect(sa?.type === 'rule' && sa.chain).toMatch(/^KUBE-EXT-/);
    expect(sa?.type === 'rule' && sa.target).toBe('KUBE-MARK-MASQ');
    expect(sb && 'chain' in sb && sb.chain).toMatch(/^KUBE-EXT-/);
    // Beside every step of A stands a step of B, in order.
    expect(al.aToB.slice(0, at)).toEqual([...Array(at).keys()]);
    for (let i = 1; i < al.aToB.length; i++)
      expect(al.aToB[i] as number).toBeGreaterThanOrEqual(al.aToB[i - 1] as number);
  });

  it('the same trace twice does not part', () => {
    const a = visible(result({ scenario: TEXT, variant: 'open', path: PATH }));
    expect(align(a, a)).toEqual({ aToB: [...a.keys()], divergence: null });
  });
});

describe('compare controller', () => {
  it('runs the compared variant on the same path, keeps its step beside the lab’s, names what decides each side', async () => {
    const main = await mainStore('open');
    const c = createCompareController(main, inThread);
    main.actions.setCompare('a-etp-local');
    await tick();
    await tick();
    const st = c.state.getState();
    expect(st.status).toBe('ready');
    expect(c.pane.getState().doc).toMatchObject({ variant: 'a-etp-local', path: PATH });
    const d = st.divergence;
    if (!d) throw new Error('no divergence');
    const words = (steps: typeof d.thenA) =>
      steps.map((x) =>
        x.event.type === 'rule' ? `${x.event.table} ${x.event.target}` : x.event.type,
      );
    // Cluster: DNAT to a pod and MASQUERADE; Local on a node without endpoints: the drop.
    expect(words(d.thenA)).toEqual(['nat DNAT', 'nat MASQUERADE']);
    const drop = d.thenB[0]?.event;
    expect(drop?.type === 'rule' && `${drop.table} ${drop.chain} ${drop.verdict}`).toBe(
      'filter KUBE-EXTERNAL-SERVICES DROP',
    );
    // One control drives both: step the lab, the pane follows.
    main.actions.stepBy(1);
    main.actions.stepBy(1);
    await tick();
    expect(c.pane.getState().doc.step).toBe(main.getState().doc.step);
    c.goToDivergence();
    await tick();
    expect(c.state.getState().at).toBe(d.at);
    const ia = visibleSteps(stepsOf(main.getState()), false, -1);
    expect(main.getState().doc.step).toBe(ia[d.at]);
    const pb = c.pane.getState();
    const ib = visibleSteps(stepsOf(pb), false, -1);
    expect(pb.doc.step).toBe(ib[d.at]);
    main.actions.setCompare(null);
    await tick();
    expect(c.state.getState().status).toBe('off');
    c.dispose();
  });

  it('the same probe under two kube-proxy modes: the pane runs nftables, the paths part at the first rule', async () => {
    const main = await mainStore('open');
    expect(parseCompare('mode:nftables', entry)).toEqual({ kind: 'mode', mode: 'nftables' });
    expect(parseCompare('mode:ipvs', entry)).toBeNull();
    const c = createCompareController(main, inThread);
    main.actions.setCompare('mode:nftables');
    await tick();
    await tick();
    expect(c.state.getState().status).toBe('ready');
    const pane = c.pane.getState();
    expect(pane.doc).toMatchObject({ variant: 'open', mode: 'nftables', path: PATH });
    expect(Object.keys(pane.result?.nftables ?? {})).toContain('core-1');
    expect(Object.keys(main.getState().result?.nftables ?? {})).toEqual([]);
    // Both answer; iptables walks KUBE-* chains, nftables kube-proxy's table.
    const d = c.state.getState().divergence;
    if (!d) throw new Error('no divergence');
    const first = d.thenB.find((x) => x.event.type === 'rule')?.event;
    expect(first && 'nft' in first && first.nft?.table).toBe('kube-proxy');
    // The user's edit runs on both sides.
    main.actions.setManifests(`${main.getState().doc.manifests}\n`);
    expect(compareInput(main.getState(), PATH)).toMatchObject({
      mode: 'nftables',
      manifests: main.getState().doc.manifests,
    });
    c.dispose();
  });

  it('before/after the user’s edit: the scenario as published of the shown variant', () => {
    const s = createLabStore();
    s.actions.loadScenario(entry, { variant: 'open', path: PATH });
    s.actions.setManifests('edited');
    s.actions.setCompare('original');
    expect(parseCompare('original', entry)).toEqual({ kind: 'original' });
    expect(compareInput(s.getState(), PATH)).toEqual({
      scenario: TEXT,
      validate: false,
      variant: 'open',
      path: PATH,
    });
    expect(parseCompare('no-such-variant', entry)).toBeNull();
  });
});
