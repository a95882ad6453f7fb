/**
 * A learner's progress, kept in this browser (localStorage) and nowhere else: per exercise,
 * whether every goal held once, how many hints were revealed, whether the solution was shown.
 * Exported and imported as a small JSON file, validated field by field on the way in.
 */
import type { KeyValue } from '../store/persist.ts';

export interface ExerciseProgress {
  readonly done: boolean;
  /** When every goal first held (ISO time). */
  readonly doneAt: string | null;
  readonly hints: number;
  readonly solutionShown: boolean;
}

export type Progress = Readonly<Record<string, ExerciseProgress>>;

export const NO_PROGRESS: ExerciseProgress = {
  done: false,
  doneAt: null,
  hints: 0,
  solutionShown: false,
};

const KEY = 'hookpath:v1:exercise-progress';
export const PROGRESS_FORMAT = 'hookpath-exercise-progress';
const VERSION = 1;
/** Progress files are small; anything much larger is not one of ours. */
const MAX_FILE = 256 * 1024;
const ID = /^[a-z0-9][a-z0-9-]{0,80}$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One entry, or a sentence saying what is wrong with it. */
function entryOf(id: string, v: unknown): ExerciseProgress | string {
  if (!ID.test(id)) return `'${id}' is not an exercise id`;
  if (!isObj(v)) return `${id}: must be an object`;
  const { done, doneAt, hints, solutionShown } = v;
  if (typeof done !== 'boolean') return `${id}.done: must be true or false`;
  if (
    doneAt !== undefined &&
    doneAt !== null &&
    (typeof doneAt !== 'string' || Number.isNaN(Date.parse(doneAt)))
  )
    return `${id}.doneAt: must be a date (ISO 8601) or null`;
  if (typeof hints !== 'number' || !Number.isInteger(hints) || hints < 0 || hints > 100)
    return `${id}.hints: must be a whole number from 0 to 100`;
  if (typeof solutionShown !== 'boolean') return `${id}.solutionShown: must be true or false`;
  return { done, doneAt: typeof doneAt === 'string' ? doneAt : null, hints, solutionShown };
}

export function loadProgress(kv: KeyValue | null): Progress {
  try {
    const raw = kv?.getItem(KEY);
    if (!raw) return {};
    const r = parseProgress(raw);
    return 'progress' in r ? r.progress : {};
  } catch {
    return {};
  }
}

export function saveProgress(kv: KeyValue | null, p: Progress): void {
  try {
    kv?.setItem(KEY, exportProgress(p));
  } catch {
    // Storage full or disabled: progress lives as long as the page.
  }
}

export function exportProgress(p: Progress): string {
  return JSON.stringify({ format: PROGRESS_FORMAT, version: VERSION, exercises: p }, null, 1);
}

/** Reads a progress file; on a problem, says what is wrong (the progress kept is untouched). */
export function parseProgress(text: string): { progress: Progress } | { error: string } {
  if (text.length > MAX_FILE)
    return {
      error: `the file is too large (${Math.round(text.length / 1024)} KB) for a progress file`,
    };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message}` };
  }
  if (!isObj(v) || v.format !== PROGRESS_FORMAT)
    return { error: `not a Hookpath progress file (format must be "${PROGRESS_FORMAT}")` };
  if (v.version !== VERSION)
    return { error: `version ${String(v.version)} is not one this lab reads (${VERSION})` };
  if (!isObj(v.exercises))
    return { error: 'exercises: must be an object of exercise id → progress' };
  const out: Record<string, ExerciseProgress> = {};
  for (const [id, e] of Object.entries(v.exercises)) {
    const r = entryOf(id, e);
    if (typeof r === 'string') return { error: `exercises.${r}` };
    out[id] = r;
  }
  return { progress: out };
}

/** Imported progress adds to what this browser has: nothing done is undone. */
export function mergeProgress(a: Progress, b: Progress): Progress {
  const out: Record<string, ExerciseProgress> = { ...a };
  for (const [id, e] of Object.entries(b)) {
    const x = out[id] ?? NO_PROGRESS;
    const doneAt = [x.doneAt, e.doneAt].filter((d): d is string => !!d).sort()[0] ?? null;
    out[id] = {
      done: x.done || e.done,
      doneAt,
      hints: Math.max(x.hints, e.hints),
      solutionShown: x.solutionShown || e.solutionShown,
    };
  }
  return out;
}
