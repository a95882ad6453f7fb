/**
 * One lab's machinery outside React: store, worker client, controller. main.tsx creates it
 * before the first render so the worker boots and simulates while React mounts.
 */
import { createLabStore, type LabStore } from './store/lab-store.ts';
import { createLabController } from './store/controller.ts';
import { browserStorage } from './store/persist.ts';
import { createBrowserClient } from './worker/browser-client.ts';
import type { LabClient } from './worker/client.ts';
import { startingPoint, type UrlFlags } from './boot.ts';
import type { ScenarioEntry } from './scenario/entry.ts';
import { SCENARIO_FILES } from './scenario/files.ts';
import { createExerciseController, type ExerciseController } from './exercise/controller.ts';

export interface LabInstance {
  readonly store: LabStore;
  readonly exercises: ExerciseController;
  dispose(): void;
}

export function createLabInstance(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  client: LabClient = createBrowserClient(),
): LabInstance {
  const store = createLabStore();
  const controller = createLabController(store, client, { storage: browserStorage() });
  const exercises = createExerciseController(store, client, {
    storage: browserStorage(),
    scenarios: SCENARIO_FILES,
    location: globalThis.location ?? null,
    history: globalThis.history ?? null,
    events: typeof window === 'undefined' ? null : window,
  });
  // An exercise in the address (?exercise=ID, #exercise=…) opens instead of the starting scenario.
  const start = exercises.startFromAddress()
    ? null
    : startingPoint(scenarios, flags, browserStorage());
  if (start) store.actions.loadScenario(start.entry, start.restore);
  return {
    store,
    exercises,
    dispose() {
      exercises.dispose();
      controller.dispose();
      client.dispose();
    },
  };
}
