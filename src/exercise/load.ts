/**
 * Exercise files (exercises/*.yaml): read with positions, validated against the published JSON
 * Schema (src/exercise/exercise.schema.json, which borrows the scenario format's cluster), then
 * checked for what a schema cannot say (the scenario exists, goal ids are unique, placeholders are
 * known). The starting state is resolved here: cluster, the editor's text, the fixed part.
 */
import Ajv, { type ErrorObject } from 'ajv';
import {
  blockStart,
  loadScenario,
  patchCluster,
  readOneDocument,
  resolveVariant,
  schemaDiagnostics,
  type ClusterPatch,
  type ClusterSpec,
} from '../cluster/scenario.ts';
import scenarioSchema from '../cluster/scenario.schema.json' with { type: 'json' };
import { valueOf, type Diagnostic, type Result } from '../engine/index.ts';
import type { Span } from '../kube/manifests/yaml-source.ts';
import { placed } from '../cluster/diagnostic.ts';
import schema from './exercise.schema.json' with { type: 'json' };
import type { Editable, ExerciseDef, GoalDef, StepMatch } from './types.ts';

/** The state an exercise starts from, resolved against its scenario. */
export interface StartState {
  readonly cluster: ClusterSpec;
  /** The editor's starting text. */
  readonly manifests: string;
  /** Manifests applied but not editable (shown read-only); '' when none. */
  readonly fixed: string;
  readonly editable: readonly Editable[];
  readonly scenario: string | null;
  readonly variant: string | null;
}

export interface LoadedExercise {
  readonly id: string;
  readonly def: ExerciseDef;
  readonly start: StartState;
  /** Position of a field path in the exercise file. */
  readonly span: (path: readonly (string | number)[]) => Span;
  /** Where a string field's text starts in the file (to map positions inside a solution). */
  readonly blockAt: (path: readonly (string | number)[]) => {
    readonly line: number;
    readonly indent: number;
  };
}

export interface LoadOptions {
  /** The exercise's id when the file does not name one (its file name). */
  readonly id?: string;
  /** Scenario texts by id; `start.scenario` is looked up here. */
  readonly scenarios?: Readonly<Record<string, string>>;
  /** False for the lab's own files (the tests check their schema): skips the JSON Schema. */
  readonly validate?: boolean;
}

let validator: ReturnType<Ajv['compile']> | null = null;

function validate(value: unknown) {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    // The exercise schema refers to ../cluster/scenario.schema.json (so editors resolve it from
    // the repository); register the scenario schema at the address that reference resolves to.
    ajv.addSchema({ ...scenarioSchema, $id: 'https://hookpath.dev/cluster/scenario.schema.json' });
    validator = ajv.compile(schema);
  }
  if (validator(value)) return [];
  const errors = validator.errors ?? [];
  // `if`/`then` and `oneOf` add a summary beside the precise errors: keep the precise ones. An
  // `anyOf` of required fields ("expect, passes or never") becomes one error naming them all.
  const anyOf = errors.filter((e) => e.keyword === 'anyOf');
  const inAnyOf = (e: ErrorObject) =>
    anyOf.some((a) => e.instancePath === a.instancePath && e.schemaPath.startsWith(a.schemaPath));
  return errors
    .filter(
      (e) =>
        e.keyword !== 'if' && e.keyword !== 'oneOf' && !(e.keyword === 'required' && inAnyOf(e)),
    )
    .map((e) => {
      if (e.keyword !== 'anyOf') return e;
      const names = errors
        .filter((x) => x.keyword === 'required' && inAnyOf(x) && x.instancePath === e.instancePath)
        .map((x) => (x.params as { missingProperty: string }).missingProperty);
      return names.length ? { ...e, message: `needs at least one of ${names.join(', ')}` } : e;
    });
}

const diag = (span: Span, path: string, message: string): Diagnostic =>
  placed('scenario', span, path, message);

export const PLACEHOLDERS = ['$from', '$from-node', '$to-node'] as const;

/** Unknown `$words` in a goal's references. */
function badPlaceholders(text: string): string[] {
  return (text.match(/\$[a-z-]+/g) ?? []).filter(
    (w) => !(PLACEHOLDERS as readonly string[]).includes(w),
  );
}

function stepHosts(s: StepMatch): string[] {
  return s.host === undefined ? [] : typeof s.host === 'string' ? [s.host] : [...s.host];
}

function goalChecks(goals: readonly GoalDef[], at: (p: (string | number)[]) => Span) {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  goals.forEach((g, i) => {
    if (seen.has(g.id))
      out.push(
        diag(
          at(['goals', i, 'id']),
          `goals.${i}.id`,
          `goal id '${g.id}' is used twice; ids must be unique`,
        ),
      );
    seen.add(g.id);
    const refs: [(string | number)[], string][] = [];
    const tos = typeof g.to === 'string' ? [g.to] : g.to;
    tos.forEach((t, j) => {
      refs.push([typeof g.to === 'string' ? ['to'] : ['to', j], t]);
      if (t.includes('$to-node'))
        out.push(
          diag(
            at(['goals', i, 'to']),
            `goals.${i}.to`,
            "a destination cannot name its own node; use $from-node (the sender's node)",
          ),
        );
    });
    if (g.expect?.answeredBy) refs.push([['expect', 'answeredBy'], g.expect.answeredBy]);
    if (g.expect?.srcSeen) refs.push([['expect', 'srcSeen'], g.expect.srcSeen]);
    for (const k of Object.keys(g.expect?.split ?? {})) refs.push([['expect', 'split', k], k]);
    for (const key of ['passes', 'never'] as const)
      g[key]?.forEach((s, j) => stepHosts(s).forEach((h) => refs.push([[key, j, 'host'], h])));
    for (const [p, text] of refs)
      for (const w of badPlaceholders(text))
        out.push(
          diag(
            at(['goals', i, ...p]),
            `goals.${i}.${p.join('.')}`,
            `'${w}' is not a placeholder; use ${PLACEHOLDERS.join(', ')}`,
          ),
        );
  });
  return out;
}

function resolveStart(
  def: ExerciseDef,
  opts: LoadOptions,
  at: (p: (string | number)[]) => Span,
): { start: StartState | null; diagnostics: Diagnostic[] } {
  const s = def.start;
  const editable = s.editable ?? ['manifests'];
  const fail = (field: 'scenario' | 'variant', message: string) => ({
    start: null,
    diagnostics: [diag(at(['start', field]), `start.${field}`, message)],
  });
  let cluster: ClusterSpec;
  let base = '';
  if (s.scenario) {
    const known = opts.scenarios ?? {};
    const text = known[s.scenario];
    if (text === undefined)
      return fail(
        'scenario',
        `no scenario '${s.scenario}'; scenarios are ${Object.keys(known).sort().join(', ') || 'none'}`,
      );
    const loaded = valueOf(loadScenario(text, { validate: false }));
    if (!loaded) return fail('scenario', `scenario '${s.scenario}' does not load`);
    const resolved = resolveVariant(loaded.def, s.variant);
    if ('error' in resolved) return fail('variant', resolved.error);
    cluster = s.cluster
      ? patchCluster(resolved.cluster, s.cluster as ClusterPatch)
      : resolved.cluster;
    base = resolved.manifests;
  } else {
    cluster = s.cluster as ClusterSpec;
  }
  const own = editable.includes('manifests');
  return {
    start: {
      cluster,
      manifests: s.manifests ?? (own ? base : ''),
      fixed: s.fixedManifests ?? (own ? '' : base),
      editable,
      scenario: s.scenario ?? null,
      variant: s.variant ?? null,
    },
    diagnostics: [],
  };
}

/** Reads an exercise file. On errors, the result fails and its diagnostics say where. */
export function loadExercise(text: string, opts: LoadOptions = {}): Result<LoadedExercise> {
  const { doc, diagnostics } = readOneDocument(text, 'exercise');
  if (!doc) return { ok: false, diagnostics };
  if (opts.validate !== false) diagnostics.push(...schemaDiagnostics(doc, validate(doc.value)));
  if (diagnostics.length) return { ok: false, diagnostics };
  const def = doc.value as ExerciseDef;
  const at = (p: (string | number)[]) => doc.span(p);
  diagnostics.push(...goalChecks(def.goals, at));
  const { start, diagnostics: startProblems } = resolveStart(def, opts, at);
  diagnostics.push(...startProblems);
  if (diagnostics.length || !start) return { ok: false, diagnostics };
  const lines = text.split('\n');
  return {
    ok: true,
    value: {
      id: def.id ?? opts.id ?? 'exercise',
      def,
      start,
      span: (p) => doc.span(p),
      blockAt: (p) => blockStart(lines, doc.span(p)),
    },
    diagnostics,
  };
}
