/**
 * The lab's side effects, outside React: re-simulates (debounced) when the scenario, manifests,
 * variant or path change, saves edits, and ticks the animation while playing.
 */
import type { LabClient } from '../worker/client.ts';
import type { RunInput } from '../worker/protocol.ts';
import { stepsOf, type LabState, type LabStore } from './lab-store.ts';
import { saveEdit, saveLast, type KeyValue } from './persist.ts';

export interface ControllerOptions {
  readonly debounceMs?: number;
  /** Base time of one animation step at speed 1. */
  readonly stepMs?: number;
  readonly storage?: KeyValue | null;
}

export interface LabController {
  /** Runs now (no debounce): first load, tests. */
  runNow(): Promise<void>;
  dispose(): void;
}

export function inputOf(s: LabState): RunInput | null {
  if (!s.scenario) return null;
  // Unedited manifests are left out: runLab uses the scenario's (or the variant's) own.
  return {
    scenario: s.scenario.text,
    validate: false,
    ...(s.doc.manifests !== s.original ? { manifests: s.doc.manifests } : {}),
    ...(s.doc.variant ? { variant: s.doc.variant } : {}),
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

export function createLabController(
  store: LabStore,
  client: LabClient,
  opts: ControllerOptions = {},
): LabController {
  const debounceMs = opts.debounceMs ?? 250;
  const stepMs = opts.stepMs ?? 550;
  const kv = opts.storage ?? null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let tick: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;

  const runNow = async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const input = inputOf(store.getState());
    if (!input) return;
    store.actions.setRunning(true);
    // Marks for the speed figures (e2e/perf.spec.ts): run start to redraw.
    performance.mark('hookpath:run-start');
    const o = await client.run(input);
    performance.mark('hookpath:result');
    if (!disposed) store.actions.receive(o);
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
    if (s.scenario !== prev.scenario || d.variant !== p.variant || d.path !== p.path) {
      // A new question: answer it at once, no debounce.
      void runNow();
    } else if (d.manifests !== p.manifests) {
      schedule();
    }
    if (s.scenario && (d.manifests !== p.manifests || d.variant !== p.variant))
      saveEdit(kv, d.scenarioId, d.variant, d.manifests, s.original);
    if (
      s.scenario &&
      (d.scenarioId !== p.scenarioId || d.variant !== p.variant || d.path !== p.path)
    )
      saveLast(kv, { scenarioId: d.scenarioId, variant: d.variant, path: d.path });
    if (s.playing !== prev.playing || (s.playing && s.speed !== prev.speed)) scheduleTick();
  });

  return {
    runNow,
    dispose() {
      disposed = true;
      unsub();
      if (timer) clearTimeout(timer);
      if (tick) clearTimeout(tick);
    },
  };
}
