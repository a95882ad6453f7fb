/** LabDiagnostic builders: one shape for every reader's problems, from the span to the message. */
import type { ManifestDiagnostic } from '../kube/manifests/index.ts';
import type { Span } from '../kube/manifests/yaml-source.ts';
import type { LabDiagnostic } from './types.ts';

/** A problem at a position of a file (`scenario`: the file itself) or of the editor's text. */
export function diagnosticAt(
  source: LabDiagnostic['source'],
  span: Span,
  path: string,
  message: string,
  severity: LabDiagnostic['severity'] = 'error',
): LabDiagnostic {
  return {
    severity,
    source,
    line: span.line,
    column: span.column,
    endLine: span.endLine,
    endColumn: span.endColumn,
    path,
    message,
  };
}

export function manifestDiagnostic(d: ManifestDiagnostic): LabDiagnostic {
  return diagnosticAt('manifests', d.span, d.path, d.message, d.severity);
}

/** A scenario-level error that has a field but no position in the text. */
export function unplaced(path: string, message: string): LabDiagnostic {
  return diagnosticAt('scenario', { line: 0, column: 0, endLine: 0, endColumn: 0 }, path, message);
}
