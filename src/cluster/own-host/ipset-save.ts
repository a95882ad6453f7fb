/**
 * `ipset save` (`ipset list -o save`) into the host's sets: `create NAME TYPE [options]` then
 * `add NAME ENTRY [options]` lines (ipset(8), "SAVE/RESTORE"). The create options (family,
 * hashsize, maxelem, bucketsize, initval, range) size the kernel's table and change no match;
 * `timeout`, `counters`, `comment` on an entry neither; `nomatch` does, and is not modelled.
 */
import type { Diagnostic } from '../../engine/index.ts';
import type { IpsetSpec } from '../../engine/index.ts';
import { SUPPORTED_SET_TYPES } from '../../engine/index.ts';
import type { DumpCounts, OwnNote } from './types.ts';

export interface ImportedSets {
  readonly sets: readonly IpsetSpec[];
  /** The line of each set's `create`, by index in `sets`. */
  readonly lines: readonly number[];
  readonly counts: DumpCounts;
  readonly diagnostics: readonly Diagnostic[];
  readonly unsupported: readonly OwnNote[];
}

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_SET_TYPES);

export function importIpset(text: string): ImportedSets {
  const sets = new Map<string, { type: string; entries: string[]; line: number; skip: boolean }>();
  const diagnostics: Diagnostic[] = [];
  const unsupported: OwnNote[] = [];
  let entries = 0;
  text.split('\n').forEach((raw, n) => {
    const line = n + 1;
    const l = raw.replace(/\r$/, '');
    const trimmed = l.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const column = l.length - l.trimStart().length + 1;
    const words = trimmed.split(/\s+/);
    const [verb, name, arg] = words;
    const err = (message: string, col = column) =>
      diagnostics.push({ severity: 'error', line, column: col, message });
    const colOf = (k: number) => column + trimmed.indexOf(words[k] as string);
    if (verb !== 'create' && verb !== 'add')
      return err(
        `'${verb}': ipset save prints create and add lines; is this the whole output of ipset save?`,
      );
    if (!name || !arg)
      return err(`${verb} needs a set name and ${verb === 'create' ? 'a type' : 'an entry'}`);
    if (verb === 'create') {
      if (sets.has(name)) return err(`set ${name} is created twice`, colOf(1));
      const skip = !SUPPORTED.has(arg);
      if (skip)
        unsupported.push({
          line,
          text: trimmed,
          why: `set type ${arg}: the lab matches ${SUPPORTED_SET_TYPES.join(', ')}`,
        });
      sets.set(name, { type: arg, entries: [], line, skip });
      return;
    }
    const set = sets.get(name);
    if (!set) return err(`add to ${name} before its create line`, colOf(1));
    if (words.includes('nomatch')) {
      unsupported.push({
        line,
        text: trimmed,
        why: 'nomatch entries (exceptions in a hash:net set) are not modelled',
      });
      return;
    }
    set.entries.push(arg);
    entries++;
  });
  const kept = [...sets.entries()].filter(([, s]) => !s.skip);
  return {
    sets: kept.map(([name, s]) => ({ name, type: s.type, entries: s.entries })),
    lines: kept.map(([, s]) => s.line),
    counts: { sets: sets.size, entries },
    diagnostics,
    unsupported,
  };
}
