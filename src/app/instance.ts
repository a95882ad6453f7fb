/**
 * One lab's machinery outside React: store, worker client, controller. main.tsx creates it
 * before the first render so the worker boots and simulates while React mounts.
 */
import { createLabStore, type LabStore } from './store/lab-store.ts';
import { createLabController, type EditChoices } from './store/controller.ts';
import { browserStorage } from './store/persist.ts';
import { SHARE_PARAM } from './store/share.ts';
import { createBrowserClient } from './worker/browser-client.ts';
import type { LabClient } from './worker/client.ts';
import { startingPoint, type UrlFlags } from './boot.ts';
import type { ScenarioEntry } from './scenario/entry.ts';
import { SCENARIO_FILES } from './scenario/files.ts';
import { createExerciseController, type ExerciseController } from './exercise/controller.ts';
import { createNotesStore, type NotesStore } from './embed/notes.ts';
import { applyStart, whenDocumentVisible, type ApplyOptions } from './embed/apply.ts';
import { PLACE_PARAMS } from './embed/params.ts';
import { EXERCISE_PARAM, exerciseParam } from './exercise/url.ts';

export interface LabInstance {
  readonly store: LabStore;
  readonly edits: EditChoices;
  readonly exercises: ExerciseController;
  /** What the lab could not use of its address (embed/params.ts). */
  readonly notes: NotesStore;
  dispose(): void;
}

/**
 * Drops the link from the address bar (`lab=…` in the hash, or the readable parameters naming a
 * place): a reload then opens the user's own state, not the link's. The rest of the hash stays
 * (an exercise a link carries: `#exercise=…&lab=…`).
 */
function clearLink(): void {
  const loc = globalThis.location;
  if (!loc) return;
  const url = new URL(loc.href);
  if (url.hash.includes(`${SHARE_PARAM}=`)) {
    const h = new URLSearchParams(url.hash.replace(/^#/, ''));
    h.delete(SHARE_PARAM);
    url.hash = h.toString();
  }
  for (const p of PLACE_PARAMS) url.searchParams.delete(p);
  if (url.href !== loc.href) globalThis.history?.replaceState(null, '', url.toString());
}

export function createLabInstance(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  client: LabClient = createBrowserClient(),
  opts: Partial<ApplyOptions> = {},
): LabInstance {
  const store = createLabStore();
  // An embed never reads or writes the reader's own work (saved edits, last place, exercise
  // progress), hears no other tab, and leaves the host page's address alone.
  const embed = flags.embed;
  const kv = embed ? null : browserStorage();
  const win = typeof window === 'undefined' || embed ? null : window;
  const controller = createLabController(store, client, {
    storage: kv,
    events: win,
    ...(embed ? {} : { clearLink }),
  });
  const exercises = createExerciseController(store, client, {
    storage: kv,
    scenarios: SCENARIO_FILES,
    location: embed ? null : (globalThis.location ?? null),
    history: embed ? null : (globalThis.history ?? null),
    events: win,
  });
  const notes = createNotesStore(flags.notes);
  const loc = globalThis.location;
  const wantsExercise =
    !!loc &&
    (new URLSearchParams(loc.search).has(EXERCISE_PARAM) || exerciseParam(loc.hash) !== null);
  if (embed && wantsExercise) notes.add({ kind: 'exercise', param: 'exercise', value: '' });
  // An exercise in the address (?exercise=ID, #exercise=…) opens instead of the starting scenario.
  const exercise = !embed && exercises.startFromAddress();
  const start = exercise ? null : startingPoint(scenarios, flags, kv);
  let stopApply = () => undefined as void;
  if (start) {
    store.actions.loadScenario(start.entry, start.restore, start.extra);
    if (start.badLink) store.actions.setNote({ kind: 'link', reason: start.badLink });
    for (const n of start.notes) notes.add(n);
    stopApply = applyStart(
      store,
      { step: start.readable ? flags.params.step : null, autoplay: flags.params.autoplay },
      notes,
      { whenVisible: opts.whenVisible ?? whenDocumentVisible },
    );
  }
  return {
    store,
    edits: controller.edits,
    exercises,
    notes,
    dispose() {
      stopApply();
      exercises.dispose();
      controller.dispose();
      client.dispose();
    },
  };
}
