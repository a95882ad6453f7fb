/**
 * Bad input, the command line's one exception: it carries the same Diagnostic every reader
 * returns (rules, host file, scenario, exercise, and the command line itself), so a problem is
 * data up to the moment it is printed. The CLI prints each as `file:line:column: error: ...`
 * (`hookpath: ...` for a problem of the command line), exits 2, never with a stack trace; with
 * `--json` it also prints them as JSON on stdout, for scripts.
 */
import { diagnosticAt, formatDiagnostic, type Diagnostic } from '../engine/index.ts';

/** The `source` of a diagnostic about the command line itself (an option, an argument). */
export const COMMAND_LINE = 'command line';

export interface UsageDetail {
  /** The option or argument at fault: `--seed`, `--route`, `SCENARIO`. */
  readonly option?: string;
  readonly hint?: string;
}

/** Problems found in a file: each diagnostic's `source` names it; a last line after them. */
export interface FileProblems {
  readonly diagnostics: readonly Diagnostic[];
  /** `x.yaml: not a valid scenario (see above)`. */
  readonly summary?: string;
}

/** Bad input: exit code 2 and these diagnostics, no stack trace. */
export class UsageError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  readonly summary: string | undefined;

  /**
   * A problem of the command line (`problem` names the option and says what to give), or the
   * problems found in a file.
   */
  constructor(problem: string | FileProblems, detail: UsageDetail = {}) {
    const diagnostics =
      typeof problem === 'string' ? [commandLineDiagnostic(problem, detail)] : problem.diagnostics;
    const summary = typeof problem === 'string' ? undefined : problem.summary;
    super(summary ?? diagnostics.map((d) => d.message).join('; '));
    this.diagnostics = diagnostics;
    this.summary = summary;
  }
}

/** The problems of `file`, each with the file as its source unless it names another already. */
export function fileProblems(
  file: string,
  diagnostics: readonly Diagnostic[],
  summary?: string,
): UsageError {
  return new UsageError({
    diagnostics: diagnostics.map((d) => (d.source === undefined ? { ...d, source: file } : d)),
    ...(summary !== undefined && { summary }),
  });
}

/** A problem of the command line: no line or column, the option (if any) as its field. */
export function commandLineDiagnostic(message: string, detail: UsageDetail = {}): Diagnostic {
  return diagnosticAt({ line: 0, column: 0 }, message, {
    source: COMMAND_LINE,
    ...(detail.option !== undefined && { field: detail.option }),
    ...(detail.hint !== undefined && { hint: detail.hint }),
  });
}

/** One diagnostic as the terminal shows it. */
export function diagnosticText(d: Diagnostic): string {
  if (d.source === COMMAND_LINE)
    return `hookpath: ${d.message}${d.hint ? `\n  hint: ${d.hint}` : ''}`;
  return formatDiagnostic(d);
}

/** What the terminal shows for a UsageError: its diagnostics, then its summary. */
export function usageText(e: UsageError): string {
  const lines = e.diagnostics.map(diagnosticText);
  if (e.summary) lines.push(e.summary);
  return `${lines.join('\n')}\n`;
}

/** The JSON form of bad input, on stdout under `--json`: `ok` false and every diagnostic. */
export function usageJson(e: UsageError): string {
  return `${JSON.stringify({ ok: false, diagnostics: e.diagnostics }, null, 2)}\n`;
}
