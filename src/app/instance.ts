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

export interface LabInstance {
  readonly store: LabStore;
  readonly edits: EditChoices;
  readonly exercises: ExerciseController;
  dispose(): void;
}

/**
 * Drops `lab=…` from the address bar's hash: a reload then opens the user's own state, not the
 * link's. The rest of the hash stays (an exercise a link carries: `#exercise=…&lab=…`).
 */
function clearLink(): void {
  const loc = globalThis.location;
  if (!loc?.hash.includes(`${SHARE_PARAM}=`)) return;
  const url = new URL(loc.href);
  const h = new URLSearchParams(url.hash.replace(/^#/, ''));
  h.delete(SHARE_PARAM);
  url.hash = h.toString();
  globalThis.history?.replaceState(null, '', url.toString());
}

export function createLabInstance(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  client: LabClient = createBrowserClient(),
): LabInstance {
  const store = createLabStore();
  const kv = browserStorage();
  const controller = createLabController(store, client, {
    storage: kv,
    events: typeof window === 'undefined' ? null : window,
    clearLink,
  });
  const exercises = createExerciseController(store, client, {
    storage: kv,
    scenarios: SCENARIO_FILES,
    location: globalThis.location ?? null,
    history: globalThis.history ?? null,
    events: typeof window === 'undefined' ? null : window,
  });
  // An exercise in the address (?exercise=ID, #exercise=…) opens instead of the starting scenario.
  const start = exercises.startFromAddress() ? null : startingPoint(scenarios, flags, kv);
  if (start) {
    store.actions.loadScenario(start.entry, start.restore, start.extra);
    if (start.badLink) store.actions.setNote({ kind: 'link', reason: start.badLink });
  }
  return {
    store,
    edits: controller.edits,
    exercises,
    dispose() {
      exercises.dispose();
      controller.dispose();
      client.dispose();
    },
  };
}
