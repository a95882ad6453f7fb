/**
 * The one problem type and the one result type of every reader in Hookpath: the rule parsers,
 * the trace readers, manifests, scenario and exercise files, the own-host dumps and the command
 * line. Errors are data, not exceptions; a position survives every layer up to the message the
 * user reads (the CLI's `file:line:column: ...`, the editor's markers, the lab's lists).
 */

export type Severity = 'error' | 'warning';

/** A problem in the input, with where it is and what to do about it. */
export interface Diagnostic {
  readonly severity: Severity;
  /** The English sentence (the lab shows `code`'s text in the user's language when it has one). */
  readonly message: string;
  /**
   * Which text `line` and `column` refer to: a file name, or a label of a text the lab holds
   * (`scenario`, `manifests`: the editor's text, an own-host dump's name). Absent: the text
   * that was given to the reader.
   */
  readonly source?: string;
  /** 1-based; 0 when the problem has no position in the text (then `field` says where). */
  readonly line: number;
  readonly column: number;
  /** Where the offending text ends (1-based, exclusive column), when the reader knows it. */
  readonly endLine?: number;
  readonly endColumn?: number;
  /** 0-based offset of `line`:`column` in the text, when the reader knows it. */
  readonly offset?: number;
  /** A field path: `Service default/web: spec.ports[0].targetPort`, `cluster.nodes.0.name`. */
  readonly field?: string;
  /**
   * A stable key of the message where a translation exists (REPLAY_ERRORS_EN; the own-host
   * importers' OWN_HOST_ERRORS_EN), and its parameters.
   */
  readonly code?: string;
  readonly params?: Readonly<Record<string, string | number>>;
  /** What to do about it. */
  readonly hint?: string;
}

/**
 * What a reader returns: the value when it could be read, and every problem found either way
 * (warnings come with a value too). When `ok` is false there is no value and a diagnostic says
 * why. Readers that keep what they could read of a broken text (the rule parsers: the editor
 * and the own-host importer show it) return that beside their diagnostics instead.
 */
export type Result<T> =
  | { readonly ok: true; readonly value: T; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** A result from a value and the problems found on the way: failed when one is an error. */
export function resultOf<T>(value: T | null, diagnostics: readonly Diagnostic[]): Result<T> {
  return value === null || hasErrors(diagnostics)
    ? { ok: false, diagnostics }
    : { ok: true, value, diagnostics };
}

/** The value of a result, or null when it failed. */
export function valueOf<T>(r: Result<T>): T | null {
  return r.ok ? r.value : null;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** A span of a text (all 1-based; 0 when there is no position). */
export interface SourceSpan {
  readonly line: number;
  readonly column: number;
  readonly endLine?: number;
  readonly endColumn?: number;
  readonly offset?: number;
}

/** A diagnostic at a span, with the optional parts only when they are given. */
export function diagnosticAt(
  span: SourceSpan,
  message: string,
  more: Omit<Diagnostic, 'message' | 'line' | 'column' | 'severity'> & {
    readonly severity?: Severity;
  } = {},
): Diagnostic {
  const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
    severity: more.severity ?? 'error',
    message,
    line: span.line,
    column: span.column,
  };
  if (more.source !== undefined) d.source = more.source;
  if (span.endLine !== undefined) d.endLine = span.endLine;
  if (span.endColumn !== undefined) d.endColumn = span.endColumn;
  if (span.offset !== undefined) d.offset = span.offset;
  if (more.field !== undefined) d.field = more.field;
  if (more.code !== undefined) d.code = more.code;
  if (more.params !== undefined) d.params = more.params;
  if (more.hint !== undefined) d.hint = more.hint;
  return d;
}

/** An error in a field of a spec (`interfaces[0].addresses[1]`), which has no place in a text. */
export function fieldError(field: string, message: string): Diagnostic {
  return { severity: 'error', line: 0, column: 0, field, message };
}

/**
 * The terminal's line for a problem: `file:line:column: severity: field: message`, the hint on
 * a line of its own. `file` names the text (default: the diagnostic's own `source`); a problem
 * without a position is said at the file alone.
 */
export function formatDiagnostic(d: Diagnostic, file: string = d.source ?? '-'): string {
  const where = d.line > 0 ? `${file}:${d.line}:${d.column}` : file;
  const field = d.field ? `${d.field}: ` : '';
  return `${where}: ${d.severity}: ${field}${d.message}${d.hint ? `\n  hint: ${d.hint}` : ''}`;
}
