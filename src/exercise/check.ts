/**
 * Checking an answer (the learner's editor text, or an answer file) against an exercise's goals,
 * and checking an exercise itself: its starting state must fail at least one goal, and every
 * reference answer must meet them all.
 */
import { composeCluster } from '../cluster/compose.ts';
import { placed } from '../cluster/diagnostic.ts';
import { NODE_CONFIG_KIND } from '../cluster/node-config.ts';
import type { I18nText } from '../cluster/types.ts';
import type { Diagnostic } from '../engine/index.ts';
import { isRecord, parseStream, type Span } from '../kube/manifests/yaml-source.ts';
import { evaluateGoal } from './goals.ts';
import { loadExercise, type LoadedExercise } from './load.ts';
import type { CheckInput, Editable, ExerciseReport } from './types.ts';

const EDIT_TEXT: Record<Editable, string> = {
  manifests: 'the Kubernetes objects',
  hostRules: 'host rules and sysctls (NodeConfig spec.rules, spec.sysctls)',
  kubeProxy: 'kube-proxy settings (NodeConfig spec.kubeProxy)',
};

const problem = (span: Span, path: string, message: string): Diagnostic =>
  placed('manifests', span, path, message);

/** Parts of the answer the exercise does not let the learner change. */
export function editabilityProblems(answer: string, editable: readonly Editable[]): Diagnostic[] {
  if (editable.length === 3) return [];
  const may = `this exercise lets you change ${editable.map((e) => EDIT_TEXT[e]).join(' and ') || 'nothing'}`;
  const out: Diagnostic[] = [];
  for (const doc of parseStream(answer).docs) {
    if (!isRecord(doc.value)) continue;
    const kind = doc.value.kind;
    if (kind !== NODE_CONFIG_KIND) {
      if (!editable.includes('manifests'))
        out.push(
          problem(
            doc.span(['kind']),
            `document ${doc.index + 1}`,
            `the Kubernetes objects are fixed here (shown read-only); ${may}`,
          ),
        );
      continue;
    }
    const spec = isRecord(doc.value.spec) ? doc.value.spec : {};
    const check = (field: string, part: Editable) => {
      if (field in spec && !editable.includes(part))
        out.push(
          problem(
            doc.span(['spec', field], true),
            `NodeConfig: spec.${field}`,
            `${EDIT_TEXT[part].split(' (')[0]} are fixed in this exercise; ${may}`,
          ),
        );
    };
    check('rules', 'hostRules');
    check('sysctls', 'hostRules');
    check('kubeProxy', 'kubeProxy');
  }
  return out;
}

/** Checks an answer: the cluster it makes, then every goal. */
export function checkAnswer(ex: LoadedExercise, answer: string): ExerciseReport {
  const editable = editabilityProblems(answer, ex.start.editable);
  const composed = composeCluster(ex.start.cluster, answer, ex.start.fixed);
  const diagnostics = [...editable, ...composed.diagnostics];
  if (diagnostics.some((d) => d.severity === 'error'))
    return { ok: false, diagnostics, goals: [], solved: false };
  const goals = ex.def.goals.map((g) => evaluateGoal(composed.cluster, g));
  return { ok: true, diagnostics, goals, solved: goals.every((g) => g.pass) };
}

/** What `hookpath exercise check FILE` verifies. */
export interface ExerciseCheck {
  readonly start: ExerciseReport;
  readonly solutions: readonly { readonly title: I18nText; readonly report: ExerciseReport }[];
  /** The start fails at least one goal, and every solution meets every goal. */
  readonly ok: boolean;
}

export function checkExercise(ex: LoadedExercise): ExerciseCheck {
  const start = checkAnswer(ex, ex.start.manifests);
  const solutions = ex.def.solutions.map((s) => ({
    title: s.title,
    report: checkAnswer(ex, s.manifests),
  }));
  return {
    start,
    solutions,
    ok: start.ok && start.goals.some((g) => !g.pass) && solutions.every((s) => s.report.solved),
  };
}

/** Exercises are re-read on every check as the learner types; reading is cached by text. */
const cache = new Map<string, ReturnType<typeof loadExercise>>();

/** The worker's entry point: one answer against one exercise. */
export function checkInput(input: CheckInput): ExerciseReport {
  const key = `${JSON.stringify(Object.keys(input.scenarios ?? {}))}\n${input.exercise}`;
  let loaded = cache.get(key);
  if (!loaded) {
    loaded = loadExercise(input.exercise, input.scenarios ? { scenarios: input.scenarios } : {});
    if (cache.size > 8) cache.clear();
    cache.set(key, loaded);
  }
  if (!loaded.ok) return { ok: false, diagnostics: loaded.diagnostics, goals: [], solved: false };
  return checkAnswer(loaded.value, input.answer);
}
