/**
 * The readable parameters that need the trace: `step` (counted as the step counter counts, the
 * rules that matched) and `autoplay`. They are applied once, when the first answer arrives; a step
 * past the end shows the last one and says so.
 */
import { stepsOf, type LabStore } from '../store/lab-store.ts';
import type { Step } from '../model/timeline.ts';
import type { NotesStore } from './notes.ts';
import type { LinkParams } from './params.ts';

/** Trace indices of the steps the counter counts by default (rules that did not match are not). */
export function countedSteps(steps: readonly Step[]): number[] {
  return steps.flatMap((s) => (s.miss ? [] : [s.index]));
}

/** The trace index of readable step `want` (1-based), or of the last step. */
export function stepIndex(
  steps: readonly Step[],
  want: number | 'end',
): { index: number; past: boolean; total: number } {
  const counted = countedSteps(steps);
  const total = counted.length;
  const last = counted[total - 1] ?? 0;
  if (want === 'end') return { index: last, past: false, total };
  const at = counted[want - 1];
  return at === undefined ? { index: last, past: true, total } : { index: at, past: false, total };
}

/** The readable step of trace index `index`, or null when it is a rule that did not match. */
export function readableStep(steps: readonly Step[], index: number): number | null {
  const at = countedSteps(steps).indexOf(index);
  return at < 0 ? null : at + 1;
}

export interface ApplyOptions {
  /** Calls `run` once the lab is on screen (autoplay waits for the reader); returns a cancel. */
  whenVisible(run: () => void): () => void;
}

/** Applies `step` and `autoplay` to the first answer; returns a function that stops waiting. */
export function applyStart(
  store: LabStore,
  p: Pick<LinkParams, 'step' | 'autoplay'>,
  notes: NotesStore,
  opts: ApplyOptions,
): () => void {
  if (p.step === null && !p.autoplay) return () => undefined;
  let cancel: (() => void) | null = null;
  let done = false;
  const apply = () => {
    const s = store.getState();
    if (done || !s.result) return;
    done = true;
    unsub();
    if (p.step !== null) {
      const r = stepIndex(stepsOf(s), p.step);
      store.actions.setStep(r.index);
      if (r.past)
        notes.add({ kind: 'step', param: 'step', value: String(p.step), hint: String(r.total) });
    }
    if (p.autoplay) cancel = opts.whenVisible(() => store.actions.setPlaying(true));
  };
  const unsub = store.subscribe(apply);
  apply();
  return () => {
    done = true;
    unsub();
    cancel?.();
  };
}

/**
 * `whenVisible` for the browser: enough of the lab's document is in the top-level viewport (an
 * embed further down a blog post starts playing when the reader gets there, not before).
 */
export function whenDocumentVisible(run: () => void): () => void {
  const el = globalThis.document?.documentElement;
  if (!el || typeof IntersectionObserver === 'undefined') {
    run();
    return () => undefined;
  }
  const io = new IntersectionObserver(
    (entries) => {
      const seen = entries.some(
        (e) =>
          e.isIntersecting &&
          e.intersectionRect.height >= Math.min(120, e.boundingClientRect.height * 0.5),
      );
      if (!seen) return;
      io.disconnect();
      run();
    },
    { threshold: [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1] },
  );
  io.observe(el);
  return () => io.disconnect();
}
