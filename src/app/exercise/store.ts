/**
 * One exercise store per lab (zustand vanilla, beside the lab's own store): the catalog, the open
 * exercise, its latest goal report, and the learner's progress. Plain data only.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Diagnostic } from '../../engine/index.ts';
import type { ExerciseReport } from '../../exercise/types.ts';
import type { ExerciseCard } from './card.ts';
import type { OpenedExercise } from './open.ts';
import { mergeProgress, NO_PROGRESS, type ExerciseProgress, type Progress } from './progress.ts';

export interface ActiveExercise {
  readonly card: ExerciseCard;
  readonly opened: OpenedExercise;
}

export interface ExerciseState {
  /** The lab's own exercises; null until the list (or an exercise) first needs them. */
  readonly catalog: readonly ExerciseCard[] | null;
  readonly listOpen: boolean;
  readonly active: ActiveExercise | null;
  readonly opening: string | null;
  /** Why the last exercise did not open (an unknown id, a damaged link, an invalid file). */
  readonly openError: {
    readonly message: string;
    readonly diagnostics: readonly Diagnostic[];
  } | null;
  /** The last report that checked the goals; kept while the answer is broken (then `stale`). */
  readonly report: ExerciseReport | null;
  readonly stale: boolean;
  /** Problems of the newest check (the answer's errors, parts the exercise keeps fixed). */
  readonly diagnostics: readonly Diagnostic[];
  readonly checking: boolean;
  readonly checkError: string | null;
  readonly progress: Progress;
  /** Every goal held during this visit: the success view shows. */
  readonly justSolved: boolean;
}

export interface ExerciseActions {
  setCatalog(cards: readonly ExerciseCard[]): void;
  setListOpen(open: boolean): void;
  setOpening(id: string | null): void;
  activate(a: ActiveExercise): void;
  failOpen(message: string, diagnostics?: readonly Diagnostic[]): void;
  leave(): void;
  setChecking(on: boolean): void;
  receive(report: ExerciseReport): void;
  failCheck(message: string): void;
  revealHint(): void;
  showSolution(): void;
  dismissSuccess(): void;
  importProgress(p: Progress): void;
}

export type ExerciseStore = StoreApi<ExerciseState> & { readonly actions: ExerciseActions };

export function progressOf(s: Pick<ExerciseState, 'progress'>, id: string): ExerciseProgress {
  return s.progress[id] ?? NO_PROGRESS;
}

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createExerciseStore(init: Partial<ExerciseState> = {}): ExerciseStore {
  const store = createStore<ExerciseState>()(() => ({
    catalog: null,
    listOpen: false,
    active: null,
    opening: null,
    openError: null,
    report: null,
    stale: false,
    diagnostics: [],
    checking: false,
    checkError: null,
    progress: {},
    justSolved: false,
    ...init,
  }));
  const get = store.getState;
  const patchProgress = (id: string, p: Partial<ExerciseProgress>) =>
    store.setState((s) => ({
      progress: { ...s.progress, [id]: { ...progressOf(s, id), ...p } },
    }));

  const actions: ExerciseActions = {
    setCatalog(catalog) {
      store.setState({ catalog });
    },
    setListOpen(listOpen) {
      store.setState({ listOpen });
    },
    setOpening(opening) {
      store.setState({ opening, ...(opening ? { openError: null } : {}) });
    },
    activate(active) {
      store.setState({
        active,
        opening: null,
        openError: null,
        report: null,
        stale: false,
        diagnostics: [],
        checkError: null,
        justSolved: false,
        listOpen: false,
      });
    },
    failOpen(message, diagnostics = []) {
      store.setState({ opening: null, openError: { message, diagnostics } });
    },
    leave() {
      store.setState({
        active: null,
        report: null,
        stale: false,
        diagnostics: [],
        justSolved: false,
      });
    },
    setChecking(checking) {
      store.setState({ checking });
    },
    receive(report) {
      const a = get().active;
      const base = { checking: false, checkError: null, diagnostics: report.diagnostics };
      if (!report.ok) {
        store.setState({ ...base, stale: get().report !== null });
        return;
      }
      const wasSolved = get().report?.solved ?? false;
      store.setState({ ...base, report, stale: false });
      if (a && report.solved) {
        const p = progressOf(get(), a.card.id);
        if (!p.done) patchProgress(a.card.id, { done: true, doneAt: new Date().toISOString() });
        if (!wasSolved) store.setState({ justSolved: true });
      }
      if (!report.solved) store.setState({ justSolved: false });
    },
    failCheck(checkError) {
      store.setState({ checking: false, checkError });
    },
    revealHint() {
      const a = get().active;
      if (!a) return;
      const p = progressOf(get(), a.card.id);
      if (p.hints < a.card.hints.length) patchProgress(a.card.id, { hints: p.hints + 1 });
    },
    showSolution() {
      const a = get().active;
      if (a) patchProgress(a.card.id, { solutionShown: true });
    },
    dismissSuccess() {
      store.setState({ justSolved: false });
    },
    importProgress(p) {
      store.setState((s) => ({ progress: mergeProgress(s.progress, p) }));
    },
  };
  return Object.assign(store, { actions });
}
