/**
 * The typed message protocol between the lab and its simulation worker. Only types cross the
 * thread boundary (`import type`), as monaco-yaml does with its worker.
 */
import type { LabResult, PathSelection } from '../../cluster/types.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';
import type { LabView, WorkerView } from './view.ts';
import type { ChoicesQuery, ShownChoices } from './choices.ts';
import type { CheckInput, ExerciseReport } from '../../exercise/types.ts';

export type { CheckInput, ExerciseReport };

/** Checks an exercise answer against its goals (src/exercise). */
export type CheckExercise = (input: CheckInput) => ExerciseReport;

/** What runLab takes: the scenario file's text, the edited manifests, a variant, a path. */
export interface RunInput {
  readonly scenario: string;
  readonly manifests?: string;
  readonly variant?: string;
  /** kube-proxy's mode (one of the scenario's `kubeProxyModes`); runLab's default otherwise. */
  readonly mode?: KubeProxyMode;
  readonly path?: PathSelection;
  /** False: the scenario is one of the lab's own files (schema-checked by the tests). */
  readonly validate?: boolean;
}

export type RunLab = (input: RunInput) => LabResult;

/** runLab as the page's worker runs it: its result as the page shows it (view.ts). */
export type RunView = (input: RunInput) => LabView;

/** runLab as the worker keeps its result (every path choice, view.ts). */
export type RunWorkerView = (input: RunInput) => WorkerView;

export type { ChoicesQuery, LabView, ShownChoices, WorkerView };

export type WorkerRequest =
  | { readonly type: 'run'; readonly id: number; readonly input: RunInput }
  /** The lab no longer wants this run (the user kept typing). */
  | { readonly type: 'cancel'; readonly id: number }
  /** Check an exercise answer's goals; like runs, only the newest waiting check is computed. */
  | { readonly type: 'check'; readonly id: number; readonly input: CheckInput }
  /** The path picker's filter: answered at once (between runs), not queued like runs. */
  | { readonly type: 'choices'; readonly id: number; readonly query: ChoicesQuery };

/** A run's or check's answer, with the result as `V` (the worker's view or the page's). */
export type Answer<V> =
  | {
      readonly type: 'result';
      readonly id: number;
      readonly result: V;
      readonly ms: number;
      /** Kept from an earlier run of exactly this input (result-cache.ts), not simulated now. */
      readonly cached?: boolean;
    }
  | { readonly type: 'cancelled'; readonly id: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
  | {
      readonly type: 'checked';
      readonly id: number;
      readonly report: ExerciseReport;
      readonly ms: number;
    };

/** What the worker's runs answer before their result is made the page's (choice-server.ts). */
export type InnerResponse = Answer<WorkerView>;

export type WorkerResponse =
  | Answer<LabView>
  /** A filter's options; null: that result's choices are no longer kept (a newer one came). */
  | { readonly type: 'choices'; readonly id: number; readonly shown: ShownChoices | null };

/** What a caller of the client gets back for one run. */
export type RunOutcome =
  | {
      readonly kind: 'result';
      readonly result: LabView;
      readonly ms: number;
      readonly cached?: boolean;
    }
  | { readonly kind: 'cancelled' }
  | {
      readonly kind: 'error';
      /** exception: runLab threw; timeout: it ran past the limit; crash: the worker died twice. */
      readonly reason: 'exception' | 'timeout' | 'crash';
      readonly message: string;
    };

/** What a caller gets back for one exercise check. */
export type CheckOutcome =
  | { readonly kind: 'report'; readonly report: ExerciseReport; readonly ms: number }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'error'; readonly message: string };
