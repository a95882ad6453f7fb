/** The exercise controller with the real lab store, runLab and checker (in this thread). */
import { labView } from '../worker/view.ts';
import { localChoices } from '../worker/choice-server.ts';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { checkInput } from '../../exercise/check.ts';
import { SCENARIO_FILES } from '../scenario/files.ts';
import { createLabController } from '../store/controller.ts';
import { createLabStore } from '../store/lab-store.ts';
import type { KeyValue } from '../store/persist.ts';
import type { LabClient } from '../worker/client.ts';
import { readCard } from './card.ts';
import { createExerciseController } from './controller.ts';
import { encodeExercise } from './url.ts';

function memory(): KeyValue & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

const client: LabClient = {
  starts: 0,
  mode: 'in-thread',
  dispose() {},
  prefetch() {},
  keepWaiting() {},
  stop() {},
  async run(input) {
    return { kind: 'result', result: labView(runLab(input)), ms: 1 };
  },
  async check(input) {
    return { kind: 'report', report: checkInput(input), ms: 1 };
  },
  async choices(query) {
    return localChoices.answer(query);
  },
};

const ID = 'keep-client-source-ip';
const TEXT = readFileSync(new URL(`../../../exercises/${ID}.yaml`, import.meta.url), 'utf8');
const SOLUTION = readCard(ID, 'builtin', TEXT).solutions[0]?.manifests ?? '';

function setup(kv = memory(), href = 'http://lab.test/?editor=plain') {
  const lab = createLabStore();
  const labController = createLabController(lab, client, { storage: kv, debounceMs: 0 });
  const urls: string[] = [];
  const location = { href };
  const history = {
    replaceState: (_: unknown, __: string, url: string) => {
      urls.push(url);
      location.href = url;
    },
  };
  const ex = createExerciseController(lab, client, {
    storage: kv,
    scenarios: SCENARIO_FILES,
    debounceMs: 0,
    location,
    history,
  });
  return { lab, ex, kv, urls, location, dispose: () => (ex.dispose(), labController.dispose()) };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('exercises in the lab', () => {
  it('opens into the lab, checks the goals, and records a solved exercise', async () => {
    const t = setup();
    await t.ex.open(ID);
    const s = t.ex.store.getState();
    expect(t.lab.getState().scenario?.id).toBe(`exercise:${ID}`);
    expect(t.lab.getState().doc.manifests).toContain('name: echo');
    expect(t.urls.at(-1)).toBe(`http://lab.test/?editor=plain&exercise=${ID}`);
    expect(s.report?.goals.map((g) => g.pass)).toEqual([false, false, false]);
    t.lab.actions.setManifests(SOLUTION);
    await settle();
    expect(t.ex.store.getState().report?.solved).toBe(true);
    expect(t.ex.store.getState().justSolved).toBe(true);
    expect(t.ex.store.getState().progress[ID]?.done).toBe(true);
    t.dispose();

    // A reload: progress and the answer come back.
    const again = setup(t.kv);
    await again.ex.open(ID);
    expect(again.lab.getState().doc.manifests).toBe(SOLUTION);
    expect(again.ex.store.getState().progress[ID]?.done).toBe(true);
    expect(again.ex.store.getState().report?.solved).toBe(true);
    again.dispose();
  });

  it('a broken answer keeps the last goals, marked stale, with the problem', async () => {
    const t = setup();
    await t.ex.open(ID);
    t.lab.actions.setManifests(`${SOLUTION}\n---\nkind: [`);
    await settle();
    const s = t.ex.store.getState();
    expect(s.stale).toBe(true);
    expect(s.report?.goals).toHaveLength(3);
    expect(s.diagnostics[0]?.source).toBe('manifests');
    t.dispose();
  });

  it('hints one at a time, the solution only after it is shown, both recorded', async () => {
    const t = setup();
    await t.ex.open(ID);
    t.ex.useSolution(0);
    expect(t.lab.getState().doc.manifests).not.toBe(SOLUTION);
    t.ex.store.actions.revealHint();
    t.ex.store.actions.revealHint();
    t.ex.store.actions.revealHint();
    t.ex.store.actions.revealHint();
    t.ex.store.actions.showSolution();
    t.ex.useSolution(0);
    expect(t.lab.getState().doc.manifests).toBe(SOLUTION);
    expect(t.ex.store.getState().progress[ID]).toMatchObject({ hints: 3, solutionShown: true });
    t.dispose();
    expect(setup(t.kv).ex.store.getState().progress[ID]).toMatchObject({
      hints: 3,
      solutionShown: true,
    });
  });

  it('is left when the learner picks a scenario; the address follows', async () => {
    const t = setup();
    await t.ex.open(ID);
    const { readScenario } = await import('../scenario/entry.ts');
    const first = SCENARIO_FILES[0] as { id: string; text: string };
    t.lab.actions.loadScenario(readScenario(first.id, first.text));
    expect(t.ex.store.getState().active).toBeNull();
    expect(t.location.href).toBe('http://lab.test/?editor=plain');
    t.dispose();
  });

  it('shares the open exercise with the answer; the link opens it, the own answer kept aside', async () => {
    const t = setup();
    await t.ex.open(ID);
    t.lab.actions.setManifests(SOLUTION);
    t.lab.actions.setStep(3);
    t.lab.actions.setHideMisses(false);
    await settle();
    const link = t.ex.shareLink();
    expect(link).toMatch(new RegExp(`^http://lab\\.test/\\?editor=plain&exercise=${ID}#lab=`));
    t.dispose();

    // Another browser, whose learner has an answer of their own.
    const kv = memory();
    const mine = setup(kv);
    await mine.ex.open(ID);
    mine.lab.actions.setManifests(`${SOLUTION}\n# mine`);
    await settle();
    mine.dispose();

    const other = setup(kv, link ?? '');
    expect(other.ex.startFromAddress()).toBe(true);
    await settle();
    const s = other.lab.getState();
    expect(s.scenario?.id).toBe(`exercise:${ID}`);
    expect(s.doc.manifests).toBe(SOLUTION);
    expect(s.doc.step).toBe(3);
    expect(s.hideMisses).toBe(false);
    expect(s.conflict).toEqual({ kind: 'link', mine: `${SOLUTION}\n# mine` });
    expect(other.ex.store.getState().report?.solved).toBe(true);
    other.dispose();
  });

  it('shares an exercise that came in a link with the exercise text beside the answer', async () => {
    const enc = encodeExercise(TEXT);
    if ('error' in enc) throw new Error(enc.error);
    const t = setup(memory(), `http://lab.test/#exercise=${enc.param}`);
    t.ex.startFromAddress();
    await settle();
    const link = new URL(t.ex.shareLink() ?? '');
    const h = new URLSearchParams(link.hash.slice(1));
    expect(h.get('exercise')).toBe(enc.param);
    expect(h.get('lab')).toBeTruthy();
    expect(link.searchParams.has('exercise')).toBe(false);
    t.dispose();
  });

  it('has no exercise link when no exercise is open', () => {
    const t = setup();
    expect(t.ex.shareLink()).toBeNull();
    t.dispose();
  });

  it('says so when the address names no exercise', async () => {
    const t = setup(memory(), 'http://lab.test/?exercise=nope');
    expect(t.ex.startFromAddress()).toBe(true);
    await settle();
    expect(t.ex.store.getState().openError?.message).toBe("There is no exercise 'nope'.");
    t.dispose();
  });

  it('progress exports and imports as a validated file, adding to what is there', async () => {
    const t = setup();
    t.ex.store.actions.importProgress({
      a: { done: true, doneAt: null, hints: 1, solutionShown: false },
    });
    const file = t.ex.exportProgress();
    expect(JSON.parse(file)).toEqual({
      format: 'hookpath-exercise-progress',
      version: 1,
      exercises: { a: { done: true, doneAt: null, hints: 1, solutionShown: false } },
    });
    const other = setup();
    other.ex.store.actions.importProgress({
      b: { done: false, doneAt: null, hints: 2, solutionShown: true },
    });
    expect(other.ex.importProgress(file)).toEqual({ count: 1 });
    expect(Object.keys(other.ex.store.getState().progress).sort()).toEqual(['a', 'b']);
    expect(other.ex.importProgress('{"format":"x"}')).toEqual({
      error: 'not a Hookpath progress file (format must be "hookpath-exercise-progress")',
    });
    expect(
      other.ex.importProgress(
        '{"format":"hookpath-exercise-progress","version":1,"exercises":{"a":{"done":"yes"}}}',
      ),
    ).toEqual({ error: 'exercises.a.done: must be true or false' });
    expect(Object.keys(other.ex.store.getState().progress).sort()).toEqual(['a', 'b']);
    t.dispose();
    other.dispose();
  });
});

describe('an instructor exercise carried in a link', () => {
  const custom = TEXT.replace("Keep the client's source address", 'My own exercise');

  it('makes a link from a valid file, and the link opens it', async () => {
    const t = setup();
    const r = await t.ex.makeLink(custom);
    if (!('url' in r)) throw new Error(r.error);
    expect(r.url).toMatch(/^http:\/\/lab\.test\/#exercise=[\w-]+$/);
    const opened = setup(memory(), r.url);
    expect(opened.ex.startFromAddress()).toBe(true);
    await settle();
    const a = opened.ex.store.getState().active;
    expect(a?.card).toMatchObject({ source: 'url', title: { en: 'My own exercise' } });
    expect(a?.card.id).toMatch(/^url-[0-9a-f]{8}$/);
    expect(opened.ex.store.getState().report?.goals).toHaveLength(3);
    t.dispose();
    opened.dispose();
  });

  it('refuses an invalid file with line and column, and a damaged or oversized link', async () => {
    const t = setup();
    const r = await t.ex.makeLink(custom.replace('difficulty: beginner', 'difficulty: 3'));
    expect(r).toMatchObject({ error: 'The exercise is not valid' });
    expect('lines' in r && r.lines[0]).toMatch(/^\d+:13: difficulty: '3' must be one of/);
    await t.ex.openCarried('not*base64');
    expect(t.ex.store.getState().openError?.message).toContain('damaged');
    const big = encodeExercise(`# ${'x'.repeat(70 * 1024)}`);
    expect(big).toEqual({ error: 'the exercise is 71 KB; a link carries at most 64 KB' });
    t.dispose();
  });
});
