/** Every scenario file shipped with the lab, read into menu cards (same order as the files). */
import { readScenario, type ScenarioEntry } from './entry.ts';
import { SCENARIO_FILES } from './files.ts';

export const SCENARIOS: readonly ScenarioEntry[] = SCENARIO_FILES.map((f) =>
  readScenario(f.id, f.text),
);
