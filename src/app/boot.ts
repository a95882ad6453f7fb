/**
 * Where a lab starts: a share link wins, then `?scenario=`, then the last place this browser was
 * at, then the first scenario; the user's saved edits come back unless a link carries its own.
 */
import type { ScenarioEntry } from './scenario/entry.ts';
import type { LabDoc } from './store/lab-store.ts';
import type { RunInput } from './worker/protocol.ts';
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

/** The lab's starting place, decided on ids only (no YAML parsing): see startingPoint. */
export interface StartPick {
  readonly id: string;
  readonly restore: Partial<LabDoc>;
}

export function pickStart(
  ids: readonly string[],
  flags: UrlFlags,
  kv: KeyValue | null,
): StartPick | null {
  const has = (id: string | null | undefined): id is string => !!id && ids.includes(id);
  const shared = flags.share ? decodeShare(flags.share) : null;
  if (shared && has(shared.scenarioId)) return { id: shared.scenarioId, restore: shared };
  const last = loadLast(kv);
  const id = has(flags.scenario)
    ? flags.scenario
    : !flags.scenario && has(last?.scenarioId)
      ? (last?.scenarioId as string)
      : ids[0];
  if (!id) return null;
  const sameAsLast = last?.scenarioId === id;
  const variant = sameAsLast ? (last?.variant ?? null) : null;
  const edit = loadEdit(kv, id, variant);
  return {
    id,
    restore: {
      variant,
      ...(edit !== null ? { manifests: edit } : {}),
      ...(sameAsLast && last?.path ? { path: last.path } : {}),
    },
  };
}

/** The first simulation's input, as the controller will ask for it (so the two can be one). */
export function firstInput(
  files: readonly { id: string; text: string }[],
  flags: UrlFlags,
  kv: KeyValue | null,
): RunInput | null {
  const pick = pickStart(
    files.map((f) => f.id),
    flags,
    kv,
  );
  const file = pick && files.find((f) => f.id === pick.id);
  if (!pick || !file) return null;
  const r = pick.restore;
  return {
    scenario: file.text,
    validate: false,
    ...(r.manifests !== undefined ? { manifests: r.manifests } : {}),
    ...(r.variant ? { variant: r.variant } : {}),
    ...(r.path ? { path: r.path } : {}),
  };
}

export function startingPoint(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  kv: KeyValue | null,
): { entry: ScenarioEntry; restore: Partial<LabDoc> } | null {
  const pick = pickStart(
    scenarios.map((s) => s.id),
    flags,
    kv,
  );
  const entry = pick && scenarios.find((s) => s.id === pick.id);
  if (!pick || !entry) return null;
  const variant = pick.restore.variant;
  // A variant remembered from an older version of the scenario may be gone.
  if (variant && !entry.variants.some((v) => v.id === variant))
    return { entry, restore: { ...pick.restore, variant: null } };
  return { entry, restore: pick.restore };
}
