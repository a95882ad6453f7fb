/**
 * Where a lab starts: a share link wins, then `?scenario=`, then the last place this browser was
 * at, then the first scenario. The user's saved edit comes back, except under a share link: then
 * the link's version is shown and the saved edit is left untouched, offered beside it (`mine`).
 */
import type { ScenarioEntry } from './scenario/entry.ts';
import type { LabDoc, LoadExtra } from './store/lab-store.ts';
import type { RunInput } from './worker/protocol.ts';
import { readShare, SHARE_PARAM, type ShareRead } from './store/share.ts';
import { loadLast, readEdit, type EditRecord, type KeyValue } from './store/persist.ts';

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
  /** The saved edit of the slot the lab opens (under a link: the user's own, not shown). */
  readonly saved: EditRecord | null;
  /** True when the doc comes from a share link. */
  readonly fromLink: boolean;
  /** A link that could not be read, and why (the lab opens as if there were none). */
  readonly badLink: Exclude<ShareRead, { ok: true }>['reason'] | 'unknown-scenario' | null;
}

export function pickStart(
  ids: readonly string[],
  flags: UrlFlags,
  kv: KeyValue | null,
): StartPick | null {
  const has = (id: string | null | undefined): id is string => !!id && ids.includes(id);
  const read = flags.share ? readShare(flags.share) : null;
  if (read?.ok && has(read.doc.scenarioId)) {
    const shared = read.doc;
    return {
      id: shared.scenarioId,
      restore: shared,
      saved: readEdit(kv, shared.scenarioId, shared.variant ?? null),
      fromLink: true,
      badLink: null,
    };
  }
  const badLink = !read ? null : read.ok ? 'unknown-scenario' : read.reason;
  const last = loadLast(kv);
  const id = has(flags.scenario)
    ? flags.scenario
    : !flags.scenario && has(last?.scenarioId)
      ? (last?.scenarioId as string)
      : ids[0];
  if (!id) return null;
  const sameAsLast = last?.scenarioId === id;
  const variant = sameAsLast ? (last?.variant ?? null) : null;
  const saved = readEdit(kv, id, variant);
  return {
    id,
    restore: {
      variant,
      ...(saved !== null ? { manifests: saved.text } : {}),
      ...(sameAsLast && last?.path ? { path: last.path } : {}),
    },
    saved,
    fromLink: false,
    badLink,
  };
}

/**
 * What the first run simulates: the shown manifests, or, when they had errors last time, the last
 * version that worked (the lab shows its result while the errors are listed: see controller.ts).
 */
function firstManifests(pick: StartPick): string | undefined {
  const r = pick.restore;
  const saved = pick.saved;
  if (pick.fromLink || !saved || saved.valid || saved.text !== r.manifests) return r.manifests;
  return saved.good ?? undefined;
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
  const manifests = firstManifests(pick);
  return {
    scenario: file.text,
    validate: false,
    ...(manifests !== undefined ? { manifests } : {}),
    ...(r.variant ? { variant: r.variant } : {}),
    ...(r.path ? { path: r.path } : {}),
  };
}

export interface StartingPoint {
  readonly entry: ScenarioEntry;
  readonly restore: Partial<LabDoc>;
  readonly extra: LoadExtra;
  readonly badLink: StartPick['badLink'];
}

export function startingPoint(
  scenarios: readonly ScenarioEntry[],
  flags: UrlFlags,
  kv: KeyValue | null,
): StartingPoint | null {
  const pick = pickStart(
    scenarios.map((s) => s.id),
    flags,
    kv,
  );
  const entry = pick && scenarios.find((s) => s.id === pick.id);
  if (!pick || !entry) return null;
  let restore = pick.restore;
  let saved = pick.saved;
  // A variant remembered from an older version of the scenario (or named by a link) may be gone.
  if (restore.variant && !entry.variants.some((v) => v.id === restore.variant)) {
    restore = { ...restore, variant: null };
    if (pick.fromLink) saved = readEdit(kv, entry.id, null);
  }
  // entry.ts's originalManifests, inlined: that module brings the YAML parser into the boot chunk.
  const original =
    entry.variants.find((v) => v.id === restore.variant)?.manifests ?? entry.manifests;
  const shown = restore.manifests ?? original;
  const conflict =
    pick.fromLink && saved && saved.text !== shown
      ? { kind: 'link' as const, mine: saved.text }
      : null;
  const lastGood =
    !pick.fromLink && saved && saved.text === shown
      ? saved.valid
        ? saved.text
        : saved.good
      : null;
  return { entry, restore, extra: { conflict, lastGood }, badLink: pick.badLink };
}
