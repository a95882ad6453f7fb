/**
 * The lab's side effects, outside React: re-simulates (debounced) when the scenario, manifests,
 * variant or path change, saves edits (never over a version the user has not seen, see
 * persist.ts), follows other tabs' writes, and ticks the animation while playing.
 */
import type { LabClient } from '../worker/client.ts';
import type { RunInput } from '../worker/protocol.ts';
import { stepsOf, type LabState, type LabStore } from './lab-store.ts';
import {
  EditSaver,
  asideKey,
  editKey,
  parseEdit,
  readAside,
  readEdit,
  saveLast,
  type KeyValue,
} from './persist.ts';

export interface ControllerOptions {
  readonly debounceMs?: number;
  /** Quiet time before an edit is written to storage (written at once when the page hides). */
  readonly saveMs?: number;
  /** Base time of one animation step at speed 1. */
  readonly stepMs?: number;
  readonly storage?: KeyValue | null;
  /** Where `storage` events (other tabs' writes) and `pagehide` arrive: the window. */
  readonly events?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> | null;
  /** Removes the share link from the address bar once its state is no longer what is shown. */
  readonly clearLink?: () => void;
  /**
   * Texts longer than this are written when the page is hidden or left (and when the lab
   * switches slot), not after every pause: localStorage writes on the page's main thread, about
   * 25-90 ms per MB in Chromium on a shared 2-core machine, so a 2.4 MB edit saved after each
   * pause in typing blocked the page for 0.2-0.7 s each time.
   */
  readonly bigText?: number;
  /** Whether the page is hidden now (on `visibilitychange`); the document's state by default. */
  readonly hidden?: () => boolean;
}

/** See ControllerOptions.bigText. */
export const BIG_TEXT = 512_000;

/** The choices the edit notices offer; each keeps every version until the user drops one. */
export interface EditChoices {
  /** Link conflict: show the user's own edit instead of the link's version. */
  openMine(): void;
  /** Link conflict: the link's version replaces the user's saved edit (their explicit choice). */
  keepLink(): void;
  /** Another tab saved a different text: load it; this tab's text is kept aside. */
  loadTheirs(): void;
  /** Another tab saved a different text: keep this tab's; the other is kept aside. */
  keepMine(): void;
  /** Opens a version kept aside; the text in the editor takes its place aside. */
  openAside(i: number): void;
  discardAside(i: number): void;
  dismissNote(): void;
  /** A slow run: wait for its answer, however long it takes. */
  keepWaiting(): void;
  /** A slow run: stop it (the last result stays on screen). */
  stopRun(): void;
  /** A run stopped for time: run it again, to its end. */
  runToEnd(): void;
}

export interface LabController {
  /** Runs now (no debounce): first load, tests. `noLimit`: the user asked to wait for the end. */
  runNow(opts?: { noLimit?: boolean }): Promise<void>;
  /** Writes a pending edit now (the page is going away). */
  flush(): void;
  readonly edits: EditChoices;
  dispose(): void;
}

export function inputOf(s: LabState, manifests = s.doc.manifests): RunInput | null {
  if (!s.scenario) return null;
  // Unedited manifests are left out: runLab uses the scenario's (or the variant's) own.
  return {
    scenario: s.scenario.text,
    validate: false,
    ...(manifests !== s.original ? { manifests } : {}),
    ...(s.doc.variant ? { variant: s.doc.variant } : {}),
    ...(s.doc.mode ? { mode: s.doc.mode } : {}),
    ...(s.doc.path ? { path: s.doc.path } : {}),
  };
}

/** How long the token takes for a step: crossing a wire is slower than moving past a rule. */
export function stepDuration(s: LabState, stepMs: number): number {
  const steps = stepsOf(s);
  const next = steps[s.doc.step + 1];
  const hop = next && steps[s.doc.step] && next.host !== steps[s.doc.step]?.host ? 2 : 1;
  return (stepMs * hop) / s.speed;
}

const samePath = (a: LabState['doc']['path'], b: LabState['doc']['path']) =>
  a === b || (!!a && !!b && a.from === b.from && a.to === b.to && a.proto === b.proto);

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createLabController(
  store: LabStore,
  client: LabClient,
  opts: ControllerOptions = {},
): LabController {
  const debounceMs = opts.debounceMs ?? 250;
  const saveMs = opts.saveMs ?? 300;
  const stepMs = opts.stepMs ?? 550;
  const kv = opts.storage ?? null;
  const saver = new EditSaver(kv);
  const a = store.actions;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let saveTimer: ReturnType<typeof setTimeout> | null = null;
  /** A big text waits for the page to be hidden (see ControllerOptions.bigText). */
  let savePending = false;
  const bigText = opts.bigText ?? BIG_TEXT;
  const hidden = opts.hidden ?? (() => globalThis.document?.visibilityState === 'hidden');
  const unsaved = () => saveTimer !== null || savePending;
  let tick: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;

  /** The slot's stored text is what the lab shows: saving over it is intended. */
  const noteShown = (s: LabState) => {
    const stored = readEdit(kv, s.doc.scenarioId, s.doc.variant);
    if ((stored?.text ?? s.original) === s.doc.manifests)
      saver.noteRead(s.doc.scenarioId, s.doc.variant, stored?.text ?? null);
    a.setAside(readAside(kv, s.doc.scenarioId, s.doc.variant));
  };

  /** Writes the shown text to its slot (moving anything unseen aside first). */
  const persist = () => {
    if (saveTimer) clearTimeout(saveTimer);
    saveTimer = null;
    savePending = false;
    const s = store.getState();
    if (!s.scenario) return;
    const d = s.doc;
    const valid = s.lastGood === d.manifests;
    const r = saver.save(d.scenarioId, d.variant, d.manifests, s.original, {
      valid,
      good: valid ? null : s.lastGood,
    });
    a.setStorageFailure(r.status.ok ? null : r.status.reason);
    if (r.status.ok && s.conflict) a.setConflict(null);
    a.setAside(r.aside);
  };

  const schedulePersist = () => {
    if (saveTimer) clearTimeout(saveTimer);
    saveTimer = null;
    if (store.getState().doc.manifests.length > bigText) savePending = true;
    else saveTimer = setTimeout(persist, saveMs);
  };

  const fallbackOf = (s: LabState): string | null => {
    // Nothing shown yet and the text had errors last time: show what last worked first.
    if (s.result) return null;
    const stored = readEdit(kv, s.doc.scenarioId, s.doc.variant);
    if (!stored || stored.text !== s.doc.manifests || stored.valid) return null;
    return stored.good ?? s.original;
  };

  const runNow = async ({ noLimit = false } = {}) => {
    if (timer) clearTimeout(timer);
    timer = null;
    const s = store.getState();
    const input = inputOf(s);
    if (!input) return;
    a.setRunning(true);
    a.setSlow(null);
    const resultFor = { variant: s.doc.variant, mode: s.doc.mode };
    const fallback = fallbackOf(s);
    if (fallback !== null) {
      const f = inputOf(s, fallback);
      const o = f && (await client.run(f));
      if (disposed) return;
      if (o) a.receive(o, true, resultFor);
      if (store.getState().doc.manifests !== s.doc.manifests) return;
    }
    // Marks for the speed figures (e2e/perf.spec.ts): run start to redraw.
    performance.mark('hookpath:run-start');
    const o = await client.run(input, { noLimit, onSlow: () => a.setSlow('asked') });
    performance.mark('hookpath:result');
    if (disposed) return;
    if (o.kind !== 'cancelled') a.setSlow(null);
    a.receive(o, false, resultFor);
    if (o.kind !== 'result') return;
    const now = store.getState();
    if (now.doc.manifests !== s.doc.manifests || now.scenario !== s.scenario) return;
    if (o.result.ok) {
      a.setLastGood(s.doc.manifests);
      if (now.note?.kind === 'path' && samePath(now.doc.path, now.scenario?.defaultPath ?? null))
        return;
    } else {
      const bad = o.result.diagnostics.find((x) => x.field === 'path' && x.severity === 'error');
      const def = now.scenario?.defaultPath ?? null;
      // A path that cannot be used (an old link, a place saved before the scenario changed):
      // say so and go back to the scenario's own first probe instead of failing every visit
      // (no default path: the variant's first probe, which runLab picks for no path).
      if (bad && now.doc.path && !samePath(now.doc.path, def)) {
        a.setNote({
          kind: 'path',
          path: `${now.doc.path.from} → ${now.doc.path.to}`,
          message: bad.message,
        });
        a.setPath(def);
        return;
      }
    }
    // The edit's validity changed what a reload should show first: write it down.
    if (!now.conflict && now.doc.manifests !== now.original) schedulePersist();
  };

  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void runNow(), debounceMs);
  };

  const scheduleTick = () => {
    if (tick) clearTimeout(tick);
    tick = null;
    const s = store.getState();
    if (!s.playing) return;
    tick = setTimeout(
      () => {
        const st = store.getState();
        const steps = stepsOf(st);
        if (!st.playing) return;
        if (st.doc.step >= steps.length - 1) {
          store.actions.setPlaying(false);
          return;
        }
        store.actions.stepBy(1);
        scheduleTick();
      },
      stepDuration(s, stepMs),
    );
  };

  const unsub = store.subscribe((s, prev) => {
    const d = s.doc;
    const p = prev.doc;
    const slotChanged =
      s.scenario !== prev.scenario || d.scenarioId !== p.scenarioId || d.variant !== p.variant;
    if (
      s.scenario !== prev.scenario ||
      d.variant !== p.variant ||
      d.mode !== p.mode ||
      d.path !== p.path
    ) {
      // A new question: answer it at once, no debounce.
      void runNow();
    } else if (d.manifests !== p.manifests) {
      schedule();
    }
    if (s.scenario && slotChanged) {
      if (unsaved()) persistFor(prev);
      if (s.conflict?.kind !== 'link') noteShown(s);
    } else if (s.scenario && d.manifests !== p.manifests) {
      // Typing: saved after a short pause (and at once if the page goes away).
      schedulePersist();
    }
    if (s.scenario && (slotChanged || d.path !== p.path || d.mode !== p.mode))
      saveLast(kv, { scenarioId: d.scenarioId, variant: d.variant, mode: d.mode, path: d.path });
    if (s.playing !== prev.playing || (s.playing && s.speed !== prev.speed)) scheduleTick();
  });

  /** A pending save of the slot the lab just left (switching scenario mid-pause). */
  const persistFor = (prev: LabState) => {
    if (saveTimer) clearTimeout(saveTimer);
    saveTimer = null;
    savePending = false;
    if (!prev.scenario || prev.conflict?.kind === 'link') return;
    const r = saver.save(prev.doc.scenarioId, prev.doc.variant, prev.doc.manifests, prev.original, {
      valid: prev.lastGood === prev.doc.manifests,
      good: prev.lastGood === prev.doc.manifests ? null : prev.lastGood,
    });
    a.setStorageFailure(r.status.ok ? null : r.status.reason);
  };

  const onStorage = (e: Event) => {
    const ev = e as StorageEvent;
    const s = store.getState();
    if (!s.scenario || !ev.key) return;
    if (ev.key === asideKey(s.doc.scenarioId, s.doc.variant)) {
      a.setAside(readAside(kv, s.doc.scenarioId, s.doc.variant));
      return;
    }
    if (ev.key !== editKey(s.doc.scenarioId, s.doc.variant)) return;
    const theirs = parseEdit(ev.newValue)?.text ?? s.original;
    if (s.conflict?.kind === 'link') {
      if (theirs !== s.doc.manifests) a.setConflict({ kind: 'link', mine: theirs });
      else a.setConflict(null);
      return;
    }
    if (theirs === s.doc.manifests) {
      saver.noteRead(s.doc.scenarioId, s.doc.variant, ev.newValue === null ? null : theirs);
      if (s.conflict) a.setConflict(null);
    } else {
      a.setConflict({ kind: 'tab', theirs });
    }
  };
  const onHide = () => flush();
  const onVisibility = () => hidden() && flush();
  opts.events?.addEventListener('storage', onStorage);
  opts.events?.addEventListener('pagehide', onHide);
  opts.events?.addEventListener('visibilitychange', onVisibility);

  function flush() {
    if (unsaved()) persist();
  }

  /** Swaps the editor's text for `text`, keeping the shown text aside (unless it is the original). */
  const swapIn = (text: string) => {
    const s = store.getState();
    if (unsaved()) persist();
    const d = s.doc;
    if (d.manifests !== s.original) {
      const r = saver.putAside(d.scenarioId, d.variant, d.manifests, 'swap');
      a.setStorageFailure(r.status.ok ? null : r.status.reason);
      if (!r.status.ok) return false;
      a.setAside(r.aside);
    }
    const stored = readEdit(kv, d.scenarioId, d.variant);
    saver.noteRead(d.scenarioId, d.variant, stored?.text ?? null);
    a.setLastGood(null);
    a.setManifests(text);
    return true;
  };

  const edits: EditChoices = {
    openMine() {
      const s = store.getState();
      if (s.conflict?.kind !== 'link') return;
      saver.noteRead(s.doc.scenarioId, s.doc.variant, s.conflict.mine);
      a.setConflict(null);
      a.setLastGood(null);
      a.setManifests(s.conflict.mine);
      opts.clearLink?.();
    },
    keepLink() {
      const s = store.getState();
      if (s.conflict?.kind !== 'link') return;
      saver.noteRead(s.doc.scenarioId, s.doc.variant, s.conflict.mine);
      a.setConflict(null);
      persist();
      opts.clearLink?.();
    },
    loadTheirs() {
      const s = store.getState();
      if (s.conflict?.kind !== 'tab') return;
      const theirs = s.conflict.theirs;
      a.setConflict(null);
      swapIn(theirs);
    },
    keepMine() {
      if (store.getState().conflict?.kind !== 'tab') return;
      persist();
    },
    openAside(i) {
      const s = store.getState();
      const entry = s.aside[i];
      if (!entry) return;
      if (!swapIn(entry.text)) return;
      const list = readAside(kv, s.doc.scenarioId, s.doc.variant);
      const at = list.findIndex((x) => x.text === entry.text);
      if (at >= 0) a.setAside(saver.dropAside(s.doc.scenarioId, s.doc.variant, at));
    },
    discardAside(i) {
      const s = store.getState();
      const entry = s.aside[i];
      if (!entry) return;
      const list = readAside(kv, s.doc.scenarioId, s.doc.variant);
      const at = list.findIndex((x) => x.text === entry.text);
      a.setAside(at >= 0 ? saver.dropAside(s.doc.scenarioId, s.doc.variant, at) : list);
    },
    dismissNote() {
      a.setNote(null);
    },
    keepWaiting() {
      client.keepWaiting();
      if (store.getState().slow) a.setSlow('waiting');
    },
    stopRun() {
      client.stop();
    },
    runToEnd() {
      void runNow({ noLimit: true });
    },
  };

  // The picker's filter searches the choices where the client's runs left them.
  store.setState({ findChoices: (q) => client.choices(q) });

  // The lab was loaded before the controller existed: take note of what it shows.
  const s0 = store.getState();
  if (s0.scenario && s0.conflict?.kind !== 'link') noteShown(s0);

  return {
    runNow,
    flush,
    edits,
    dispose() {
      disposed = true;
      flush();
      unsub();
      opts.events?.removeEventListener('storage', onStorage);
      opts.events?.removeEventListener('pagehide', onHide);
      opts.events?.removeEventListener('visibilitychange', onVisibility);
      if (timer) clearTimeout(timer);
      if (tick) clearTimeout(tick);
    },
  };
}
