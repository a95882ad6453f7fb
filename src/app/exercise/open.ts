/**
 * Opening an exercise in the lab (loaded on demand: it brings the exercise reader along): the
 * starting state becomes a scenario the lab runs as usual — its cluster, the learner's starting
 * text in the editor, the fixed manifests applied but not shown — and the parts the learner may
 * not change are listed to show read-only.
 */
import { stringify } from 'yaml';
import type { ClusterSpec, ProbeDef, ScenarioDef } from '../../cluster/scenario.ts';
import type { Diagnostic } from '../../engine/index.ts';
import { loadExercise } from '../../exercise/load.ts';
import type { Editable, ExerciseDef } from '../../exercise/types.ts';
import { readScenario, type ScenarioEntry } from '../scenario/entry.ts';

/** A part of the starting state the learner may read but not change. */
export interface ReadOnlyPart {
  readonly kind: 'manifests' | 'hostRules' | 'kubeProxy';
  /** The node it belongs to; null for the whole cluster. */
  readonly node: string | null;
  readonly text: string;
}

export interface OpenedExercise {
  /** The lab's scenario for this exercise (its id: `exercise:ID`). */
  readonly scenario: ScenarioEntry;
  readonly start: string;
  readonly editable: readonly Editable[];
  readonly readOnly: readonly ReadOnlyPart[];
}

export const scenarioIdOf = (exerciseId: string) => `exercise:${exerciseId}`;

/** Paths the lab offers first: each goal's first sender and destination. */
function probesOf(def: ExerciseDef): ProbeDef[] {
  return def.goals.flatMap((g) => {
    const from = typeof g.from === 'string' ? g.from : g.from[0];
    const node = /^node\/([^/]+)/.exec(from ?? '')?.[1];
    const first = typeof g.to === 'string' ? g.to : g.to[0];
    // A node sender's own node is known without the cluster: localhost-nodeport/web@$from-node.
    const to = node ? first?.replace('$from-node', node) : first;
    return from && to && !to.includes('$')
      ? [{ name: g.text.en, from, to, ...(g.proto ? { proto: g.proto } : {}), expect: {} }]
      : [];
  });
}

function readOnlyParts(cluster: ClusterSpec, fixed: string): ReadOnlyPart[] {
  const out: ReadOnlyPart[] = [];
  if (fixed.trim()) out.push({ kind: 'manifests', node: null, text: fixed });
  if (cluster.kubeProxy && Object.keys(cluster.kubeProxy).length)
    out.push({ kind: 'kubeProxy', node: null, text: stringify(cluster.kubeProxy).trim() });
  for (const n of cluster.nodes) {
    if (n.kubeProxy && Object.keys(n.kubeProxy).length)
      out.push({ kind: 'kubeProxy', node: n.name, text: stringify(n.kubeProxy).trim() });
    if (n.rules?.trim()) out.push({ kind: 'hostRules', node: n.name, text: n.rules.trim() });
  }
  return out;
}

export function openExercise(
  id: string,
  text: string,
  scenarios: Readonly<Record<string, string>>,
  opts: { readonly validate: boolean },
): { opened: OpenedExercise } | { diagnostics: readonly Diagnostic[] } {
  const read = loadExercise(text, { id, scenarios, validate: opts.validate });
  if (!read.ok) return { diagnostics: read.diagnostics };
  const { def, start } = read.value;
  const scenario: ScenarioDef = {
    title: def.title,
    // The task panel shows the task; the header stays short.
    description: { en: '', zh: '' },
    cluster: start.cluster,
    manifests: start.manifests,
    ...(start.fixed.trim() ? { fixedManifests: start.fixed } : {}),
    probes: probesOf(def),
  };
  return {
    opened: {
      scenario: readScenario(scenarioIdOf(id), stringify(scenario, { lineWidth: 0 })),
      start: start.manifests,
      editable: start.editable,
      readOnly: readOnlyParts(start.cluster, start.fixed),
    },
  };
}
