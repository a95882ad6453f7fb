/**
 * Where a lab starts: a share link wins, then `?scenario=`, then the last place this browser was
 * at, then the first scenario; the user's saved edits come back unless a link carries its own.
 */
import type { ScenarioEntry } from './scenario/entry.ts';
import type { LabDoc } from './store/lab-store.ts';
import { decodeShare, SHARE_PARAM } from './store/share.ts';
import { loadEdit, loadLast, type KeyValue } from './store/persist.ts';

export interface UrlFlags {
  readonly editor: 'monaco' | 'plain';
  readonly embed: boolean;
  readonly scenario: string | null;
  readonly share: string | null;
}

export function readFlags(search: string, hash: string): UrlFlags {
  const q = new URLSearchParams(search);
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  return {
    editor: q.get('editor') === 'plain' ? 'plain' : 'monaco',
    embed: q.has('embed') && q.get('embed') !== '0',
    scenario: q.get('scenario'),
    share: h.get(SHARE_PARAM),
  };
}

export function startingPoint(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  kv: KeyValue | null,
): { entry: ScenarioEntry; restore: Partial<LabDoc> } | null {
  const byId = (id: string | null | undefined) => scenarios.find((s) => s.id === id);
  const shared = flags.share ? decodeShare(flags.share) : null;
  if (shared) {
    const entry = byId(shared.scenarioId);
    if (entry) {
      const manifests = shared.manifests ?? undefined;
      return { entry, restore: { ...shared, ...(manifests !== undefined ? { manifests } : {}) } };
    }
  }
  const last = loadLast(kv);
  const entry =
    byId(flags.scenario) ?? (flags.scenario ? undefined : byId(last?.scenarioId)) ?? scenarios[0];
  if (!entry) return null;
  const sameAsLast = last?.scenarioId === entry.id;
  const variant =
    sameAsLast && last?.variant && entry.variants.some((v) => v.id === last.variant)
      ? last.variant
      : null;
  const edit = loadEdit(kv, entry.id, variant);
  return {
    entry,
    restore: {
      variant,
      ...(edit !== null ? { manifests: edit } : {}),
      ...(sameAsLast && last?.path ? { path: last.path } : {}),
    },
  };
}
