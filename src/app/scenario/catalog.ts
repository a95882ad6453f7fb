/** Every scenario file shipped with the lab (scenarios/*.yaml), bundled as text. */
import { readScenario, scenarioId, sortScenarios, type ScenarioEntry } from './entry.ts';

// Eager: the files are small, and the picker shows every title without waiting.
const files = import.meta.glob('/scenarios/*.yaml', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

export const SCENARIOS: readonly ScenarioEntry[] = sortScenarios(
  Object.entries(files).map(([path, text]) => readScenario(scenarioId(path), text)),
);
