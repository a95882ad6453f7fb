/**
 * The scenario files as text (scenarios/*.yaml), in menu order. Kept free of the YAML parser so
 * the boot code can start the first simulation before the rest of the app has loaded.
 */
import { scenarioId } from './entry-id.ts';

export interface ScenarioFile {
  readonly id: string;
  readonly text: string;
  readonly order: number;
}

// Eager: the files are small, and the picker shows every title without waiting.
const files = import.meta.glob('/scenarios/*.yaml', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/** The top-level `order:` of a scenario (menu position); files without one go last. */
export function orderOf(text: string): number {
  const m = /^order:\s*(\d+)\s*$/m.exec(text);
  return m ? Number(m[1]) : 1000;
}

export function sortFiles<T extends { id: string; order: number }>(list: T[]): T[] {
  return list.sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
}

export const SCENARIO_FILES: readonly ScenarioFile[] = sortFiles(
  Object.entries(files).map(([path, text]) => ({
    id: scenarioId(path),
    text,
    order: orderOf(text),
  })),
);
