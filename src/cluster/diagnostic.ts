/** Builders of the lab's diagnostics (the engine's Diagnostic): which text, the span, the field. */
import { diagnosticAt, type Diagnostic, type Severity } from '../engine/index.ts';
import { NO_SPAN, type Span } from '../kube/manifests/yaml-source.ts';

/**
 * Which text a lab diagnostic's position refers to: the scenario (or exercise) file itself, or
 * the manifests block (the editor's text).
 */
export type LabSource = 'scenario' | 'manifests';

/** A problem at a position of a file (`scenario`: the file itself) or of the editor's text. */
export function placed(
  source: LabSource,
  span: Span,
  field: string,
  message: string,
  severity: Severity = 'error',
): Diagnostic {
  return diagnosticAt(span, message, { severity, source, field });
}

/** A manifests reader's problem, said of the editor's text. */
export function manifestDiagnostic(d: Diagnostic): Diagnostic {
  return { ...d, source: 'manifests' };
}

/** A scenario-level error that has a field but no position in the text. */
export function unplaced(field: string, message: string): Diagnostic {
  return placed('scenario', NO_SPAN, field, message);
}
