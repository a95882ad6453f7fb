/**
 * Random line edits of a rules text (iptables-save or nft -f), for the properties that read one
 * edited text two ways and compare: eager against deferred chains, fresh against reused pieces.
 */
import fc from 'fast-check';

export type LineEdit =
  | { readonly op: 'delete' | 'dup' | 'crlf'; readonly at: number }
  | { readonly op: 'swap'; readonly at: number; readonly to: number }
  | { readonly op: 'digit'; readonly at: number; readonly digit: number }
  | InsertEdit;

/** Inserts line `line` of the property's own list; `chain` and `other` pick names it fills in. */
export interface InsertEdit {
  readonly op: 'insert';
  readonly at: number;
  readonly line: number;
  readonly chain: number;
  readonly other: number;
}

/** An edit anywhere in the text; an insert picks one of `extraLines` lines. */
export function lineEdit(extraLines: number): fc.Arbitrary<LineEdit> {
  return fc.oneof(
    fc.record({ op: fc.constantFrom('delete', 'dup', 'crlf'), at: fc.nat() }),
    fc.record({ op: fc.constant('swap'), at: fc.nat(), to: fc.nat() }),
    fc.record({ op: fc.constant('digit'), at: fc.nat(), digit: fc.integer({ min: 0, max: 9 }) }),
    fc.record({
      op: fc.constant('insert'),
      at: fc.nat(),
      line: fc.nat(extraLines - 1),
      chain: fc.nat(),
      other: fc.nat(),
    }),
  ) as fc.Arbitrary<LineEdit>;
}

/** The text with the edits applied in order; `inserted` gives an insert's line. */
export function applyLineEdits(
  text: string,
  edits: readonly LineEdit[],
  inserted: (e: InsertEdit) => string,
): string {
  const lines = text.split('\n');
  for (const e of edits) {
    const at = e.at % lines.length;
    const line = lines[at] as string;
    if (e.op === 'delete') lines.splice(at, 1);
    else if (e.op === 'dup') lines.splice(at, 0, line);
    else if (e.op === 'crlf') lines[at] = `${line}\r`;
    else if (e.op === 'swap') {
      const to = e.to % lines.length;
      lines[at] = lines[to] as string;
      lines[to] = line;
    } else if (e.op === 'digit') lines[at] = line.replace(/\d/, String(e.digit));
    else if (e.op === 'insert') lines.splice(at, 0, inserted(e));
    if (lines.length === 0) lines.push('');
  }
  return lines.join('\n');
}
