/**
 * JSON.parse with the failure placed at a line and column: V8 says "at position N (line L column
 * C)" (Node 20, Chromium), other engines "at line L column C" or nothing; the message is kept.
 */
import type { Diagnostic } from '../../engine/index.ts';
import { said } from './types.ts';

export function parseJson(text: string): { value: unknown } | { error: Diagnostic } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    let line = 1;
    let column = 1;
    // The offset, where the engine says it, is kept beside the line and column.
    const offset = pos ? Number(pos[1]) : undefined;
    if (lc) {
      line = Number(lc[1]);
      column = Number(lc[2]);
    } else if (offset !== undefined) {
      const before = text.slice(0, offset);
      line = before.split('\n').length;
      column = before.length - before.lastIndexOf('\n');
    } else if (text.trim() !== '') {
      // "Unexpected end of JSON input": the text stops early (a copy cut short).
      const lines = text.trimEnd().split('\n');
      line = lines.length;
      column = (lines[lines.length - 1] ?? '').length + 1;
    }
    return {
      error: {
        severity: 'error',
        line,
        column,
        ...(offset !== undefined ? { offset } : {}),
        ...said('json.invalid', { error: message.replace(/^JSON\.parse: /, '') }),
      },
    };
  }
}

/** The line and column of the `n`-th object of a top-level array (for messages about it). */
export function objectStarts(text: string): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let depth = 0;
  let inString = false;
  let line = 1;
  let col = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    col++;
    if (c === '\n') {
      line++;
      col = 0;
      continue;
    }
    if (inString) {
      if (c === '\\') {
        i++;
        col++;
      } else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 1 && c === '{') out.push({ line, column: col });
      depth++;
    } else if (c === '}' || c === ']') depth--;
  }
  return out;
}
