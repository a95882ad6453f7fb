/** Workshop exercises: the format, the checker, and the words for what a packet did. */
export { loadExercise, PLACEHOLDERS } from './load.ts';
export type { LoadedExercise, LoadOptions, StartState } from './load.ts';
export { checkAnswer, checkExercise, checkInput, editabilityProblems } from './check.ts';
export type { ExerciseCheck } from './check.ts';
export { evaluateGoal } from './goals.ts';
export { narrate } from './narrate.ts';
export * from './types.ts';
