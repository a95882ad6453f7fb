/**
 * The cluster a lab runs: the scenario's (or variant's) cluster, the edited manifests with their
 * NodeConfig documents applied, and manifests the editor does not show (an exercise's fixed part).
 */
import type { Diagnostic } from '../engine/index.ts';
import { manifestDiagnostic, unplaced } from './diagnostic.ts';
import { applyNodeConfigs } from './node-config.ts';
import type { ClusterSpec } from './scenario.ts';
import { buildCluster, type BuiltCluster } from './topology.ts';

/**
 * Builds the cluster. The fixed manifests follow the edited ones in one stream, so positions in
 * the edited text stay as the editor shows them; problems in the fixed part name their line there.
 */
export type RuleProblem = BuiltCluster['ruleProblems'][number];

/** Lines of a text, counted without splitting it (140,000 strings for 5,000 Services). */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function composeCluster(
  spec: ClusterSpec,
  manifests: string,
  fixed?: string,
  /** Places a problem in a node's own rules (in the scenario file); unplaced by default. */
  placeRule: (p: RuleProblem) => Diagnostic = (p) =>
    unplaced(
      `cluster.nodes[${p.node}].rules`,
      `line ${p.line}, column ${p.column} of the node's rules: ${p.message}`,
    ),
): { cluster: BuiltCluster; diagnostics: Diagnostic[] } {
  // Counted only to place a problem (2.6 MB of manifests at 5,000 Services, twice per run).
  let lines: number | undefined;
  const editedLines = () => (lines ??= lineCount(manifests));
  const text = fixed?.trim() ? `${manifests}\n---\n${fixed}` : manifests;
  const nc = applyNodeConfigs(spec, text);
  const cluster = buildCluster(nc.cluster, nc.manifests);
  const toLab = (d: Diagnostic): Diagnostic =>
    d.line > editedLines() + 1
      ? {
          ...unplaced(
            'fixedManifests',
            `line ${d.line - editedLines() - 1}: ${d.field ?? ''}: ${d.message}`,
          ),
          severity: d.severity,
        }
      : manifestDiagnostic(d);
  // A NodeConfig's rules are checked where they are written; merged into a node's own rules they
  // shift its lines, so a problem there is placed in the file only when no NodeConfig touched it.
  const touched = new Set(nc.applied.filter((a) => a.rules).flatMap((a) => a.nodes));
  const ruleDiagnostics = cluster.ruleProblems.map((p) =>
    touched.has(p.node)
      ? unplaced(
          `cluster.nodes[${p.node}].rules`,
          `line ${p.line}, column ${p.column} of the node's rules with its NodeConfig rules: ${p.message}`,
        )
      : placeRule(p),
  );
  return {
    cluster,
    diagnostics: [
      ...nc.diagnostics.map(toLab),
      ...cluster.model.diagnostics.map(toLab),
      ...ruleDiagnostics,
    ],
  };
}
