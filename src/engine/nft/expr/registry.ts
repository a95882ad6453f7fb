/**
 * The nft expression families the engine knows, by first word. Adding one is adding a module
 * in `expr/` and a line here; the rule parser and the walk need no change.
 */
import { CT } from './ct.ts';
import type { KeyFamily, StmtFamily } from './family.ts';
import { FIB } from './fib.ts';
import { META } from './meta.ts';
import { MISC } from './misc.ts';
import { NAT } from './nat.ts';
import { NUMGEN } from './numgen.ts';
import { PAYLOAD } from './payload.ts';
import { REJECT } from './reject.ts';
import { VERDICTS } from './verdict.ts';

function byWord<T extends { readonly words: readonly string[] }>(
  families: readonly T[],
): Map<string, T> {
  const m = new Map<string, T>();
  for (const f of families) for (const w of f.words) m.set(w, f);
  return m;
}

const KEYS = byWord<KeyFamily>([...PAYLOAD, ...META, ...CT, ...FIB, ...NUMGEN]);
const STMTS = byWord<StmtFamily>([...VERDICTS, ...REJECT, ...NAT, ...MISC]);

export function keyFamily(word: string): KeyFamily | undefined {
  return KEYS.get(word);
}

export function stmtFamily(word: string): StmtFamily | undefined {
  return STMTS.get(word);
}
