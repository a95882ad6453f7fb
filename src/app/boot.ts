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
import {
  namesPlace,
  readParams,
  type EditorMode,
  type LinkParams,
  type ParamNote,
} from './embed/params.ts';

export interface UrlFlags {
  /** The editor widget: Monaco, or a plain textarea (`editor=plain`). */
  readonly editor: 'monaco' | 'plain';
  /** What the reader may do with the manifests (`editor=hidden|readonly|edit`). */
  readonly editorMode: EditorMode;
  readonly embed: boolean;
  readonly scenario: string | null;
  readonly share: string | null;
  /** The readable parameters (embed/params.ts), and what in them could not be used. */
  readonly params: LinkParams;
  readonly notes: readonly ParamNote[];
}

export function readFlags(search: string, hash: string): UrlFlags {
  const { params, notes } = readParams(search);
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  return {
    editor: params.plainEditor ? 'plain' : 'monaco',
    editorMode: params.editor ?? (params.embed ? 'hidden' : 'edit'),
    embed: params.embed,
    scenario: params.scenario,
    share: h.get(SHARE_PARAM),
    params,
    notes,
  };
}

/** The lab's starting place, decided on ids only (no YAML parsing): see startingPoint. */
export interface StartPick {
  readonly id: string;
  readonly restore: Partial<LabDoc> & {
    readonly everyRule?: boolean;
    readonly compare?: string;
    readonly view?: 'matrix' | 'host';
  };
  /** The saved edit of the slot the lab opens (under a link: the user's own, not shown). */
  readonly saved: EditRecord | null;
  /** True when the doc comes from a link (`#lab=`, or readable parameters naming a place). */
  readonly fromLink: boolean;
  /** True when the place comes from the readable parameters (`?variant=…&step=…`). */
  readonly readable: boolean;
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
      readable: false,
      badLink: null,
    };
  }
  const badLink = !read ? null : read.ok ? 'unknown-scenario' : read.reason;
  const p = flags.params;
  // Readable parameters naming a place are a link too: the scenario as published, at that place,
  // the same for every reader (no scenario named: the first one, not this browser's last place).
  // The user's own edit is offered beside it, as under `#lab=`.
  if (namesPlace(p) && (!flags.scenario || has(flags.scenario))) {
    const id = flags.scenario ?? ids[0];
    if (!id) return null;
    return {
      id,
      restore: {
        variant: p.variant,
        ...(p.mode !== null ? { mode: p.mode } : {}),
        ...(p.from !== null && p.to !== null ? { path: { from: p.from, to: p.to } } : {}),
        ...(p.compare !== null ? { compare: p.compare } : {}),
      },
      saved: readEdit(kv, id, p.variant),
      fromLink: true,
      readable: true,
      badLink,
    };
  }
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
      ...(sameAsLast && last?.mode ? { mode: last.mode } : {}),
      ...(saved !== null ? { manifests: saved.text } : {}),
      ...(sameAsLast && last?.path ? { path: last.path } : {}),
    },
    saved,
    fromLink: false,
    readable: false,
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
    ...(r.mode ? { mode: r.mode } : {}),
    ...(r.path ? { path: r.path } : {}),
  };
}

export interface StartingPoint {
  readonly entry: ScenarioEntry;
  readonly restore: Partial<LabDoc>;
  readonly extra: LoadExtra;
  readonly badLink: StartPick['badLink'];
  /** Readable parameters the catalog could not honour (an unknown scenario or variant). */
  readonly notes: readonly ParamNote[];
  /** The place comes from the readable parameters: their `step` applies. */
  readonly readable: boolean;
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
  const notes: ParamNote[] = [];
  const p = flags.params;
  if (p.scenario !== null && entry.id !== p.scenario && !(pick.fromLink && !pick.readable))
    notes.push({ kind: 'scenario', param: 'scenario', value: p.scenario });
  // A variant remembered from an older version of the scenario (or named by a link) may be gone.
  if (restore.variant && !entry.variants.some((v) => v.id === restore.variant)) {
    if (pick.readable) notes.push({ kind: 'variant', param: 'variant', value: restore.variant });
    restore = { ...restore, variant: null };
    if (pick.fromLink) saved = readEdit(kv, entry.id, null);
  }
  // A mode the scenario does not run in (a link's typo, a mode the scenario dropped): said when a
  // link named it, and the scenario's default mode instead.
  if (restore.mode && !entry.modes.includes(restore.mode)) {
    if (pick.readable)
      notes.push({
        kind: 'invalid',
        param: 'mode',
        value: restore.mode,
        hint: entry.modes.length ? entry.modes.join(' | ') : entry.clusterMode,
      });
    restore = { ...restore, mode: null };
  }
  // A comparison with a variant the scenario does not have: said, and nothing compared.
  let compare = pick.restore.compare ?? null;
  if (compare !== null && compare !== 'original' && !entry.variants.some((v) => v.id === compare)) {
    if (pick.readable)
      notes.push({
        kind: 'invalid',
        param: 'compare',
        value: compare,
        hint: [...entry.variants.map((v) => v.id), 'original'].join(' | '),
      });
    compare = null;
  }
  const asked = flags.params.view;
  const view = pick.restore.view ?? (asked === 'matrix' || asked === 'host' ? asked : undefined);
  // Half a path (`from` or `to` alone): the other half is the scenario's own first probe's.
  const def = entry.defaultPath;
  if (pick.readable && !restore.path && (p.from ?? p.to) !== null && def)
    restore = { ...restore, path: { from: p.from ?? def.from, to: p.to ?? def.to } };
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
  return {
    entry,
    restore,
    extra: {
      conflict,
      lastGood,
      ...(pick.restore.everyRule ? { everyRule: true } : {}),
      ...(compare !== null ? { compare } : {}),
      ...(view ? { view } : {}),
    },
    badLink: pick.badLink,
    notes,
    readable: pick.readable,
  };
}
