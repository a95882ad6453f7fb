/**
 * Compare side by side: a second lab store (the B pane) simulated with the compared input, its
 * step kept beside the lab's own (one scrubber drives both), and the first step where the two
 * paths part. The B pane never saves anything and has no controls of its own.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { createLabStore, stepsOf, type LabState, type LabStore } from '../store/lab-store.ts';
import { visibleSteps, type Step } from '../model/timeline.ts';
import type { LabClient } from '../worker/client.ts';
import type { PathSelection, RunView } from '../../cluster/types.ts';
import { align, type Alignment } from './align.ts';
import { compareInput, parseCompare } from './spec.ts';

export interface Divergence {
  /** Position among the steps the user walks through (0-based). */
  readonly at: number;
  /** The step of each side there; null when that side's trace had already ended. */
  readonly a: Step | null;
  readonly b: Step | null;
  /**
   * What each side then does that decides it: the request's rewrites and end from there (DNAT,
   * MASQUERADE on one side, the KUBE-EXTERNAL-SERVICES drop on the other).
   */
  readonly thenA: readonly Step[];
  readonly thenB: readonly Step[];
}

/** The request's rewrites and its end from a step on (at most three): what a reader remembers. */
function decisive(steps: readonly Step[], from: number): Step[] {
  const out: Step[] = [];
  for (let i = from; i < steps.length && out.length < 3; i++) {
    const s = steps[i] as Step;
    const e = s.event;
    if (s.direction !== 'request') break;
    const rewrite =
      e.type === 'rule' && !!e.target && /^(DNAT|SNAT|MASQUERADE|REDIRECT)$/.test(e.target);
    if (s.end || rewrite) out.push(s);
    if (s.end) break;
  }
  return out;
}

export interface CompareState {
  readonly status: 'off' | 'running' | 'ready' | 'error';
  readonly message: string | null;
  /** Null while running, or when the two traces are the same. */
  readonly divergence: Divergence | null;
  /** The two traces are step for step the same. */
  readonly same: boolean;
  /** The lab's current position among its visible steps (to mark the divergence when there). */
  readonly at: number;
}

export interface CompareController {
  /** The B pane's store. */
  readonly pane: LabStore;
  readonly state: StoreApi<CompareState>;
  /** Moves the lab (and so both panes) to the first step where the paths part. */
  goToDivergence(): void;
  dispose(): void;
}

const OFF: CompareState = { status: 'off', message: null, divergence: null, same: false, at: 0 };

/** The path both sides trace: the lab's, or the one its first run resolved (the first probe). */
function pathOf(s: LabState): PathSelection | null {
  if (s.doc.path) return s.doc.path;
  const p = s.result?.probe;
  return p ? { from: p.from, to: p.to, proto: p.proto } : null;
}

const choiceKey = (r: RunView | undefined) => r?.choices.map((c) => c.index).join(',') ?? '';

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createCompareController(
  main: LabStore,
  client: () => LabClient,
): CompareController {
  const pane = createLabStore();
  const state = createStore<CompareState>()(() => OFF);
  let key: string | null = null;
  let memo: { a: readonly Step[]; b: readonly Step[]; every: boolean; al: Alignment } | null = null;
  let disposed = false;

  const visible = (steps: readonly Step[], every: boolean) => visibleSteps(steps, every, -1);

  /** B's run: the branch that made the same random choices as the lab's, else the first. */
  const syncRun = () => {
    const m = main.getState();
    const runs = pane.getState().result?.runs ?? [];
    const want = choiceKey(m.result?.runs[m.doc.run]);
    const j = Math.max(
      0,
      runs.findIndex((r) => choiceKey(r) === want),
    );
    if (pane.getState().doc.run !== j) pane.actions.setRun(j);
  };

  /** Puts B at the step beside the lab's, and says where the two part. */
  const sync = () => {
    const m = main.getState();
    const p = pane.getState();
    if (!m.compare || !p.result || !m.result) return;
    if (p.hideMisses !== m.hideMisses) pane.actions.setHideMisses(m.hideMisses);
    syncRun();
    const every = !m.hideMisses;
    const sa = stepsOf(m);
    const sb = stepsOf(pane.getState());
    if (!memo || memo.a !== sa || memo.b !== sb || memo.every !== every) {
      const va = visible(sa, every).map((i) => sa[i] as Step);
      const vb = visible(sb, every).map((i) => sb[i] as Step);
      memo = { a: sa, b: sb, every, al: align(va, vb) };
      const d = memo.al.divergence;
      state.setState({
        status: 'ready',
        message: null,
        same: d === null,
        divergence: d
          ? {
              at: d.at,
              a: va[d.at] ?? null,
              b: vb[d.at] ?? null,
              thenA: decisive(va, d.at),
              thenB: decisive(vb, d.at),
            }
          : null,
      });
    }
    const ia = visible(sa, every);
    const ib = visible(sb, every);
    // The lab may stand on a hidden step (a link to a rule that did not match): the visible one before.
    let at = 0;
    for (let k = 0; k < ia.length; k++) if ((ia[k] as number) <= m.doc.step) at = k;
    const j = memo.al.aToB[at] ?? 0;
    const target = ib[j] ?? 0;
    if (pane.getState().doc.step !== target) pane.actions.setStep(target);
    if (state.getState().at !== at) state.setState({ at });
  };

  const run = () => {
    const m = main.getState();
    const path = pathOf(m);
    const input = m.compare && path ? compareInput(m, path) : null;
    if (!input || !m.scenario) {
      if (!m.compare) {
        key = null;
        if (state.getState().status !== 'off') state.setState(OFF);
      }
      return;
    }
    const k = JSON.stringify(input);
    if (k === key) return;
    key = k;
    memo = null;
    const spec = parseCompare(m.compare, m.scenario);
    const variant = spec?.kind === 'variant' ? spec.variant : m.doc.variant;
    if (pane.getState().scenario !== m.scenario || pane.getState().doc.variant !== variant)
      pane.actions.loadScenario(m.scenario, { variant, path });
    else pane.actions.setPath(path);
    // The pane runs in the compared mode, or the lab's own.
    pane.actions.setMode(spec?.kind === 'mode' ? spec.mode : m.doc.mode);
    state.setState({ ...OFF, status: 'running' });
    void client()
      .run(input)
      .then((o) => {
        if (disposed || key !== k) return;
        pane.actions.receive(o);
        if (o.kind === 'error') state.setState({ ...OFF, status: 'error', message: o.message });
        else if (o.kind === 'result' && !o.result.ok)
          state.setState({
            ...OFF,
            status: 'error',
            message: o.result.diagnostics.find((d) => d.severity === 'error')?.message ?? null,
          });
        sync();
      });
  };

  const unsub = main.subscribe((s, prev) => {
    if (
      s.compare !== prev.compare ||
      s.scenario !== prev.scenario ||
      s.doc.variant !== prev.doc.variant ||
      s.doc.mode !== prev.doc.mode ||
      s.doc.manifests !== prev.doc.manifests ||
      s.doc.path !== prev.doc.path ||
      s.result?.probe !== prev.result?.probe
    )
      run();
    if (
      s.doc.step !== prev.doc.step ||
      s.doc.run !== prev.doc.run ||
      s.result !== prev.result ||
      s.hideMisses !== prev.hideMisses
    )
      sync();
  });
  run();

  return {
    pane,
    state,
    goToDivergence() {
      const d = state.getState().divergence;
      const m = main.getState();
      if (!d) return;
      const ia = visible(stepsOf(m), !m.hideMisses);
      main.actions.setPlaying(false);
      main.actions.setStep(ia[Math.min(d.at, ia.length - 1)] ?? 0);
    },
    dispose() {
      disposed = true;
      unsub();
    },
  };
}
