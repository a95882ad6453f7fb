/**
 * The user's edits survive a reload: manifests per scenario (and variant) in localStorage, plus
 * the last scenario and path. Storage can be missing or full (private mode, iframes): never throw.
 */
import type { PathSelection } from '../../cluster/types.ts';

export interface KeyValue {
  getItem(k: string): string | null;
  setItem(k: string, v: string): void;
  removeItem(k: string): void;
}

const PREFIX = 'hookpath:v1:';

export function browserStorage(): KeyValue | null {
  try {
    const s = globalThis.localStorage;
    return s ?? null;
  } catch {
    return null;
  }
}

const editKey = (scenario: string, variant: string | null) =>
  `${PREFIX}edit:${scenario}${variant ? `@${variant}` : ''}`;

export function loadEdit(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
): string | null {
  try {
    return kv?.getItem(editKey(scenario, variant)) ?? null;
  } catch {
    return null;
  }
}

/** Saves the edit, or forgets it when it equals the original again. */
export function saveEdit(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
  text: string,
  original: string,
): void {
  try {
    if (text === original) kv?.removeItem(editKey(scenario, variant));
    else kv?.setItem(editKey(scenario, variant), text);
  } catch {
    // Quota or disabled storage: the edit lives as long as the page.
  }
}

export interface LastPlace {
  readonly scenarioId: string;
  readonly variant: string | null;
  readonly path: PathSelection | null;
}

export function loadLast(kv: KeyValue | null): LastPlace | null {
  try {
    const raw = kv?.getItem(`${PREFIX}last`);
    if (!raw) return null;
    const v = JSON.parse(raw) as LastPlace;
    return typeof v.scenarioId === 'string' ? v : null;
  } catch {
    return null;
  }
}

export function saveLast(kv: KeyValue | null, last: LastPlace): void {
  try {
    kv?.setItem(`${PREFIX}last`, JSON.stringify(last));
  } catch {
    // see saveEdit
  }
}

export function loadPref(kv: KeyValue | null, name: string): string | null {
  try {
    return kv?.getItem(`${PREFIX}pref:${name}`) ?? null;
  } catch {
    return null;
  }
}

export function savePref(kv: KeyValue | null, name: string, value: string): void {
  try {
    kv?.setItem(`${PREFIX}pref:${name}`, value);
  } catch {
    // see saveEdit
  }
}
