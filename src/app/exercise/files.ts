/**
 * The lab's own exercise files (exercises/*.yaml), loaded on demand: the first diagram never
 * waits for them.
 */
import { readCard, type ExerciseCard } from './card.ts';

const loaders = import.meta.glob('/exercises/*.yaml', {
  query: '?raw',
  import: 'default',
}) as Record<string, () => Promise<string>>;

const idOf = (path: string) => path.replace(/^.*\//, '').replace(/\.ya?ml$/, '');

export const EXERCISE_IDS: readonly string[] = Object.keys(loaders).map(idOf).sort();

let all: Promise<ExerciseCard[]> | null = null;

export function loadExerciseCards(): Promise<ExerciseCard[]> {
  all ??= Promise.all(
    Object.entries(loaders).map(async ([path, load]) =>
      readCard(idOf(path), 'builtin', await load()),
    ),
  );
  return all;
}
