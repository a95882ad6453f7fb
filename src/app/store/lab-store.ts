/**
 * One store per mounted lab (zustand vanilla, behind a React Context): two labs on one page never
 * share state. Everything here is plain data; `doc` is the part a share link carries.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { PathSelection, RunView } from '../../cluster/types.ts';
import type { Diagnostic } from '../../engine/index.ts';
import type { LabView } from '../worker/view.ts';
import type { ChoicesQuery, ShownChoices } from '../worker/choices.ts';
import type { RunOutcome } from '../worker/protocol.ts';
import { buildTimeline, type Step } from '../model/timeline.ts';
import { originalManifests, type ScenarioEntry } from '../scenario/entry.ts';
import type { AsideEntry, SaveFailure } from './persist.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';

/** The serializable state of a lab: what a share link restores (down to the step). */
export interface LabDoc {
  readonly scenarioId: string;
  readonly variant: string | null;
  /**
   * kube-proxy's mode, one of the scenario's `modes`; null: its first (runLab's default). Not part
   * of the edit's slot: the same manifests run in either mode.
   */
  readonly mode: KubeProxyMode | null;
  readonly manifests: string;
  readonly path: PathSelection | null;
  readonly run: number;
  readonly step: number;
}

/**
 * Another version of the manifests that the lab will not drop without the user's say:
 * `link`: a share link shows its version while this browser holds the user's own edit;
 * `tab`: another tab saved a different text for the same scenario.
 */
export type EditConflict =
  | { readonly kind: 'link'; readonly mine: string }
  | { readonly kind: 'tab'; readonly theirs: string };

/** Something the lab could not use and replaced, said once (a link's bad path, a bad link). */
export type LabNote =
  | { readonly kind: 'path'; readonly path: string; readonly message: string }
  | { readonly kind: 'link'; readonly reason: string };

export interface ResultFor {
  readonly variant: string | null;
  readonly mode: LabDoc['mode'];
}

export interface LabState {
  readonly doc: LabDoc;
  readonly scenario: ScenarioEntry | null;
  /** The scenario's own manifests (for the variant): reset target and "modified" check. */
  readonly original: string;
  /** The last good result; kept while the YAML is broken, then marked stale. */
  readonly result: LabView | null;
  /**
   * Which variant and kube-proxy mode `result` was simulated for: while a switch is being
   * simulated the previous answer stays on screen, and this says whose it is.
   */
  readonly resultFor: ResultFor | null;
  readonly stale: boolean;
  /** Diagnostics of the newest simulation, good or bad. */
  readonly diagnostics: readonly Diagnostic[];
  readonly running: boolean;
  readonly failure: {
    readonly reason: 'exception' | 'timeout' | 'crash';
    readonly message: string;
  } | null;
  readonly lastMs: number | null;
  /** The last result was kept from an earlier run of the same input (not simulated now). */
  readonly lastCached: boolean;
  /**
   * The run in flight passed the time limit: `asked`, the lab asks whether to wait; `waiting`,
   * the user chose to wait for it.
   */
  readonly slow: 'asked' | 'waiting' | null;
  readonly playing: boolean;
  readonly speed: number;
  readonly hideMisses: boolean;
  readonly conflict: EditConflict | null;
  /** Versions of this scenario's manifests kept aside in this browser (see persist.ts). */
  readonly aside: readonly AsideEntry[];
  /** Why the edits could not be saved the last time, or null when they were. */
  readonly storageFailure: SaveFailure | null;
  /** The last manifests of the current edit that simulated without errors (null: none known). */
  readonly lastGood: string | null;
  readonly note: LabNote | null;
  /** What the stage shows: the diagram, the probe matrix (src/app/matrix) or Your host. */
  readonly view: StageView;
  /**
   * What the lab is compared with, side by side (src/app/compare): a variant's id, `original`
   * (the scenario as published, before the user's edit), or null.
   */
  readonly compare: string | null;
  /**
   * The options of the result's path choices matching the picker's filter, from where they were
   * made (the lab's worker keeps them); null: no client (a bare store), the picker lists what
   * the result's summary shows.
   */
  readonly findChoices: ((query: ChoicesQuery) => Promise<ShownChoices | null>) | null;
}

/** `host`: "Your host", a real node's dumps traced (src/app/own-host). */
export type StageView = 'diagram' | 'matrix' | 'host';

export interface LabActions {
  loadScenario(s: ScenarioEntry, restore?: Partial<LabDoc>, extra?: LoadExtra): void;
  setVariant(id: string | null, manifests?: string, lastGood?: string | null): void;
  /** Runs the lab in another kube-proxy mode; the path stays, the trace starts over. */
  setMode(mode: KubeProxyMode | null): void;
  setManifests(text: string): void;
  resetManifests(): void;
  /** Null: the scenario's (or variant's) own first probe, as runLab picks it. */
  setPath(path: PathSelection | null): void;
  setRun(i: number): void;
  setStep(i: number): void;
  stepBy(delta: 1 | -1): void;
  toStart(): void;
  toEnd(): void;
  setPlaying(on: boolean): void;
  setSpeed(s: number): void;
  setHideMisses(on: boolean): void;
  /**
   * A simulation finished. `fallback`: it ran the edit's last good manifests (or the scenario's
   * own) to have something true to show while the current text has errors: shown, marked stale.
   */
  receive(o: RunOutcome, fallback?: boolean, resultFor?: ResultFor): void;
  setRunning(on: boolean): void;
  setSlow(slow: LabState['slow']): void;
  setConflict(c: EditConflict | null): void;
  setAside(list: readonly AsideEntry[]): void;
  setStorageFailure(f: SaveFailure | null): void;
  setLastGood(text: string | null): void;
  setNote(n: LabNote | null): void;
  setView(v: StageView): void;
  setCompare(c: string | null): void;
}

/** What a lab learns while loading beyond the doc: a conflict to show, the edit's last good text. */
export interface LoadExtra {
  readonly conflict?: EditConflict | null;
  readonly lastGood?: string | null;
  /** A link's sender showed every rule: so does the lab (else the choice stays as it is). */
  readonly everyRule?: boolean;
  /** A link's view and comparison (else the diagram, nothing compared). */
  readonly view?: StageView;
  readonly compare?: string | null;
}

export type LabStore = StoreApi<LabState> & { readonly actions: LabActions };

const EMPTY_DOC: LabDoc = {
  scenarioId: '',
  variant: null,
  mode: null,
  manifests: '',
  path: null,
  run: 0,
  step: 0,
};

const timelines = new WeakMap<RunView, Step[]>();
const NO_STEPS: readonly Step[] = [];

/** The selected run's timeline (memoized per run object). */
export function stepsOf(s: Pick<LabState, 'result' | 'doc'>): readonly Step[] {
  const run = s.result?.runs[s.doc.run] ?? s.result?.runs[0];
  if (!run) return NO_STEPS;
  let t = timelines.get(run);
  if (!t) timelines.set(run, (t = buildTimeline(run, s.result?.hooks)));
  return t;
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createLabStore(init: Partial<LabState> = {}): LabStore {
  const store = createStore<LabState>()(() => ({
    doc: EMPTY_DOC,
    scenario: null,
    original: '',
    result: null,
    resultFor: null,
    stale: false,
    diagnostics: [],
    running: false,
    failure: null,
    lastMs: null,
    lastCached: false,
    slow: null,
    playing: false,
    speed: 1,
    hideMisses: true,
    conflict: null,
    aside: [],
    storageFailure: null,
    lastGood: null,
    note: null,
    view: 'diagram',
    compare: null,
    findChoices: null,
    ...init,
  }));
  const get = store.getState;
  const setDoc = (d: Partial<LabDoc>) => store.setState((s) => ({ doc: { ...s.doc, ...d } }));
  const visible = (st: Step | undefined) => !!st && !(get().hideMisses && st.miss);

  const actions: LabActions = {
    loadScenario(s, restore = {}, extra = {}) {
      const variant = restore.variant ?? null;
      const original = originalManifests(s, variant);
      store.setState({
        scenario: s,
        original,
        result: null,
        resultFor: null,
        stale: false,
        diagnostics: [],
        failure: null,
        playing: false,
        ...(extra.everyRule ? { hideMisses: false } : {}),
        conflict: extra.conflict ?? null,
        lastGood: extra.lastGood ?? null,
        view: extra.view ?? get().view,
        // Another scenario's variants are not this one's.
        compare: extra.compare ?? null,
        aside: [],
        doc: {
          scenarioId: s.id,
          variant,
          // Another scenario's modes are not this one's.
          mode: restore.mode && s.modes.includes(restore.mode) ? restore.mode : null,
          manifests: restore.manifests ?? original,
          path: restore.path ?? s.defaultPath,
          run: restore.run ?? 0,
          step: restore.step ?? 0,
        },
      });
    },
    setVariant(id, manifests, lastGood = null) {
      const s = get().scenario;
      if (!s) return;
      const original = originalManifests(s, id);
      store.setState({ original, playing: false, conflict: null, lastGood, aside: [] });
      setDoc({ variant: id, manifests: manifests ?? original, run: 0, step: 0 });
    },
    setMode(mode) {
      const s = get().scenario;
      const m = mode && s?.modes.includes(mode) ? mode : null;
      // The default named or left out is one choice: no new run for it.
      const now = get().doc.mode ?? s?.modes[0] ?? null;
      if ((m ?? s?.modes[0] ?? null) === now) return;
      store.setState({ playing: false });
      setDoc({ mode: m, run: 0, step: 0 });
    },
    setManifests(text) {
      if (text !== get().doc.manifests) setDoc({ manifests: text });
    },
    resetManifests() {
      setDoc({ manifests: get().original });
    },
    setPath(path) {
      store.setState({ playing: false });
      setDoc({ path, run: 0, step: 0 });
    },
    setRun(i) {
      const n = get().result?.runs.length ?? 1;
      setDoc({ run: clamp(i, 0, n - 1), step: 0 });
    },
    setStep(i) {
      const n = stepsOf(get()).length;
      setDoc({ step: clamp(i, 0, Math.max(0, n - 1)) });
    },
    stepBy(delta) {
      const steps = stepsOf(get());
      let i = get().doc.step + delta;
      while (i > 0 && i < steps.length - 1 && !visible(steps[i])) i += delta;
      actions.setStep(i);
    },
    toStart() {
      store.setState({ playing: false });
      setDoc({ step: 0 });
    },
    toEnd() {
      store.setState({ playing: false });
      actions.setStep(stepsOf(get()).length - 1);
    },
    setPlaying(on) {
      const steps = stepsOf(get());
      // Play from the end means play again from the start.
      if (on && get().doc.step >= steps.length - 1) setDoc({ step: 0 });
      store.setState({ playing: on && steps.length > 1 });
    },
    setSpeed(speed) {
      store.setState({ speed: clamp(speed, 0.25, 4) });
    },
    setHideMisses(on) {
      store.setState({ hideMisses: on });
    },
    setRunning(on) {
      store.setState({ running: on });
    },
    setSlow(slow) {
      if (get().slow !== slow) store.setState({ slow });
    },
    setConflict(conflict) {
      store.setState({ conflict });
    },
    setAside(aside) {
      store.setState({ aside });
    },
    setStorageFailure(storageFailure) {
      if (get().storageFailure !== storageFailure) store.setState({ storageFailure });
    },
    setLastGood(lastGood) {
      if (get().lastGood !== lastGood) store.setState({ lastGood });
    },
    setNote(note) {
      store.setState({ note });
    },
    setView(view) {
      if (get().view !== view) store.setState({ view, playing: false });
    },
    setCompare(compare) {
      if (get().compare !== compare) store.setState({ compare, playing: false });
    },
    receive(o, fallback = false, resultFor) {
      if (o.kind === 'cancelled') return;
      const of = resultFor ?? { variant: get().doc.variant, mode: get().doc.mode };
      if (fallback) {
        if (o.kind === 'result' && o.result.ok) {
          store.setState({ result: o.result, resultFor: of, stale: true });
          actions.setStep(get().doc.step);
        }
        return;
      }
      if (o.kind === 'error') {
        store.setState({
          running: false,
          failure: { reason: o.reason, message: o.message },
          stale: get().result !== null,
        });
        return;
      }
      const r = o.result;
      if (!r.ok) {
        store.setState({
          running: false,
          failure: null,
          diagnostics: r.diagnostics,
          stale: get().result !== null,
          lastMs: o.ms,
          lastCached: o.cached === true,
        });
        return;
      }
      store.setState({
        running: false,
        failure: null,
        result: r,
        resultFor: of,
        diagnostics: r.diagnostics,
        stale: false,
        lastMs: o.ms,
        lastCached: o.cached === true,
      });
      // Keep the user's place while they edit; clamp it to the new trace.
      const runs = r.runs.length;
      const run = clamp(get().doc.run, 0, Math.max(0, runs - 1));
      setDoc({ run });
      actions.setStep(get().doc.step);
    },
  };
  return Object.assign(store, { actions });
}
