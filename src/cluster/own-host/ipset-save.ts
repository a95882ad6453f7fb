/**
 * `ipset save` (`ipset list -o save`) into the host's sets: `create NAME TYPE [options]` then
 * `add NAME ENTRY [options]` lines (ipset(8), "SAVE/RESTORE"). The create options (family,
 * hashsize, maxelem, bucketsize, initval, range) size the kernel's table and change no match;
 * `timeout`, `counters`, `comment` on an entry neither; `nomatch` does, and is not modelled.
 */
import type { Diagnostic } from '../../engine/index.ts';
import type { IpsetSpec } from '../../engine/index.ts';
import { SUPPORTED_SET_TYPES } from '../../engine/index.ts';
import type { OwnHostErrorKey, OwnHostParams } from './messages.ts';
import { ownNote, said, type DumpCounts, type OwnNote } from './types.ts';

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
    const err = (key: OwnHostErrorKey, params?: OwnHostParams, col = column) =>
      diagnostics.push({ severity: 'error', line, column: col, ...said(key, params) });
    const colOf = (k: number) => column + trimmed.indexOf(words[k] as string);
    if (verb !== 'create' && verb !== 'add') return err('ipset.verb', { verb: String(verb) });
    if (!name || !arg) return err(verb === 'create' ? 'ipset.create-needs' : 'ipset.add-needs');
    if (verb === 'create') {
      if (sets.has(name)) return err('ipset.twice', { name }, colOf(1));
      const skip = !SUPPORTED.has(arg);
      if (skip)
        unsupported.push(
          ownNote(line, trimmed, 'ipset.type', {
            type: arg,
            supported: SUPPORTED_SET_TYPES.join(', '),
          }),
        );
      sets.set(name, { type: arg, entries: [], line, skip });
      return;
    }
    const set = sets.get(name);
    if (!set) return err('ipset.add-first', { name }, colOf(1));
    if (words.includes('nomatch')) {
      unsupported.push(ownNote(line, trimmed, 'ipset.nomatch'));
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
