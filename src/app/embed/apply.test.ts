import { describe, expect, it } from 'vitest';
import { applyStart, countedSteps, readableStep, stepIndex } from './apply.ts';
import { createNotesStore } from './notes.ts';
import { createLabStore, stepsOf } from '../store/lab-store.ts';
import { readScenario } from '../scenario/entry.ts';
import { podResult } from '../testing/lab-fixtures.ts';
import { buildTimeline } from '../model/timeline.ts';

const entry = readScenario('s', 'title: { en: S, zh: S }\nmanifests: "a: 1"\n');
const steps = () => {
  const run = podResult().runs[0];
  if (!run) throw new Error('no run');
  return buildTimeline(run);
};

describe('readable steps', () => {
  it('count the rules that matched, as the step counter does', () => {
    const all = steps();
    const counted = countedSteps(all);
    expect(all.some((s) => s.miss)).toBe(true);
    expect(counted.length).toBeLessThan(all.length);
    const third = counted[2] ?? -1;
    expect(stepIndex(all, 3)).toEqual({ index: third, past: false, total: counted.length });
    expect(readableStep(all, third)).toBe(3);
    expect(readableStep(all, all.find((s) => s.miss)?.index ?? -1)).toBeNull();
  });

  it('end is the last step; past the end is the last step too, said so', () => {
    const all = steps();
    const last = countedSteps(all).at(-1);
    expect(stepIndex(all, 'end')).toMatchObject({ index: last, past: false });
    expect(stepIndex(all, 10_000)).toMatchObject({ index: last, past: true });
  });
});

describe('applyStart', () => {
  const setup = (p: { step: number | 'end' | null; autoplay: boolean }) => {
    const store = createLabStore();
    store.actions.loadScenario(entry);
    const notes = createNotesStore();
    let show: (() => void) | null = null;
    const stop = applyStart(store, p, notes, {
      whenVisible: (run) => {
        show = run;
        return () => (show = null);
      },
    });
    const answer = () => store.actions.receive({ kind: 'result', result: podResult(), ms: 1 });
    return { store, notes, stop, answer, visible: () => show?.() };
  };

  it('goes to the step once the first answer arrives, and only then', () => {
    const { store, answer } = setup({ step: 4, autoplay: false });
    expect(store.getState().doc.step).toBe(0);
    answer();
    expect(store.getState().doc.step).toBe(stepIndex(stepsOf(store.getState()), 4).index);
    store.actions.setStep(0);
    answer();
    expect(store.getState().doc.step).toBe(0);
  });

  it('a step past the end shows the last one, with a note that says how many there are', () => {
    const { store, notes, answer } = setup({ step: 999, autoplay: false });
    answer();
    const total = countedSteps(stepsOf(store.getState())).length;
    expect(store.getState().doc.step).toBe(stepsOf(store.getState()).length - 1);
    expect(notes.getState().notes).toEqual([
      { kind: 'step', param: 'step', value: '999', hint: String(total) },
    ]);
  });

  it('autoplay waits for the answer and for the lab to be seen', () => {
    const { store, answer, visible } = setup({ step: null, autoplay: true });
    answer();
    expect(store.getState().playing).toBe(false);
    visible();
    expect(store.getState().playing).toBe(true);
  });

  it('stopped before the answer, it does nothing', () => {
    const { store, answer, stop } = setup({ step: 3, autoplay: true });
    stop();
    answer();
    expect(store.getState().doc.step).toBe(0);
  });
});
