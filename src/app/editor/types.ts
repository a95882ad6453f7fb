import type { Diagnostic } from '../../engine/index.ts';

/** What both editors (Monaco and the plain textarea) take. */
export interface EditorProps {
  readonly value: string;
  readonly onChange: (text: string) => void;
  readonly diagnostics: readonly Diagnostic[];
  readonly theme: 'light' | 'dark';
  readonly label: string;
  /** Shown, not editable (`editor=readonly`). */
  readonly readOnly?: boolean;
  /** Line to reveal (a diagnostic clicked in the list); changes trigger the jump. */
  readonly reveal: {
    readonly line: number;
    readonly column: number;
    readonly nonce: number;
  } | null;
}
