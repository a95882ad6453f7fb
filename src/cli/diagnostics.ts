/**
 * How the command line says a problem: `file:line:column: severity: field: message`, through the
 * engine's one formatter, whichever reader found it (rules, host file, scenario, exercise).
 */
import { formatDiagnostic, type Diagnostic } from '../engine/index.ts';

/** Where a scenario's (or exercise's) manifests block starts in its file. */
export interface BlockAt {
  readonly line: number;
  readonly indent: number;
}

/**
 * A lab diagnostic placed in the file: a position in the manifests (the editor's text) is moved
 * to where the manifests block is written (`at`); other positions are the file's already.
 */
export function inFile(d: Diagnostic, at: BlockAt | null): Diagnostic {
  if (d.source !== 'manifests' || !at || d.line <= 0) return d;
  const moved = { ...d, line: at.line + d.line - 1, column: d.column + at.indent };
  if (d.endLine !== undefined && d.endLine > 0) moved.endLine = at.line + d.endLine - 1;
  if (d.endColumn !== undefined && d.endColumn > 0) moved.endColumn = d.endColumn + at.indent;
  return moved;
}

/** The problems of `file` placed in it: `file` is their source (what `--json` prints). */
export function placedIn(
  file: string,
  diags: readonly Diagnostic[],
  at: BlockAt | null = null,
): Diagnostic[] {
  return diags.map((d) => ({ ...inFile(d, at), source: file }));
}

/** The lines the terminal shows for the problems of `file`. */
export function diagnosticLines(
  file: string,
  diags: readonly Diagnostic[],
  at: BlockAt | null = null,
): string[] {
  return placedIn(file, diags, at).map((d) => formatDiagnostic(d));
}
