/**
 * The user's edits survive a reload: manifests per scenario (and variant) in localStorage, plus
 * the last scenario and path. Storage can be missing or full (private mode, iframes): nothing here
 * throws, and every write says whether it worked, so the lab can tell the user when it did not.
 *
 * An edit is never overwritten behind the user's back: a slot another tab (or a share link's
 * version) is about to replace is first moved to the slot's "aside" list (see EditSaver).
 */
import type { PathSelection } from '../../cluster/types.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';

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

/** Whether the last write worked; `quota`: storage is full, `unavailable`: none or blocked. */
export type SaveStatus =
  { readonly ok: true } | { readonly ok: false; readonly reason: SaveFailure };
export type SaveFailure = 'quota' | 'unavailable';
const OK: SaveStatus = { ok: true };

function failure(e: unknown): SaveStatus {
  const name = (e as { name?: unknown } | null)?.name;
  const code = (e as { code?: unknown } | null)?.code;
  const quota =
    name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED' || code === 22;
  return { ok: false, reason: quota ? 'quota' : 'unavailable' };
}

function write(kv: KeyValue | null, key: string, value: string | null): SaveStatus {
  if (!kv) return { ok: false, reason: 'unavailable' };
  try {
    if (value === null) kv.removeItem(key);
    else kv.setItem(key, value);
    return OK;
  } catch (e) {
    return failure(e);
  }
}

function read(kv: KeyValue | null, key: string): string | null {
  try {
    const v = kv?.getItem(key);
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

const suffix = (scenario: string, variant: string | null) =>
  `${scenario}${variant ? `@${variant}` : ''}`;
export const editKey = (scenario: string, variant: string | null) =>
  `${PREFIX}edit:${suffix(scenario, variant)}`;
export const asideKey = (scenario: string, variant: string | null) =>
  `${PREFIX}aside:${suffix(scenario, variant)}`;

/** A saved edit: the text, and what is known of the last text that simulated without errors. */
export interface EditRecord {
  readonly text: string;
  /** True: `text` itself simulated without errors last time. */
  readonly valid: boolean;
  /** The last manifests of this edit that simulated without errors, when not `text`. */
  readonly good: string | null;
}

const MARK = 'hookpath-edit';
/**
 * The record format since version 3: a header line (a NUL, which YAML text cannot hold, then the
 * metadata as JSON), the text, then the last good text. No JSON escaping of the texts: for a
 * 5,000-Service edit (2.3 MB) that escaping and its parsing cost the page's main thread ~80 ms
 * per save.
 */
const HEAD = `\u0000${MARK}:3\n`;

function parseRecord(raw: string): EditRecord {
  const nl = raw.indexOf('\n', HEAD.length);
  const body = nl < 0 ? '' : raw.slice(nl + 1);
  try {
    const meta = JSON.parse(raw.slice(HEAD.length, nl)) as Record<string, unknown>;
    const n = meta.length;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= body.length)
      return {
        text: body.slice(0, n),
        valid: meta.valid === true,
        good: n < body.length ? body.slice(n) : null,
      };
  } catch {
    // A damaged header: the text is still worth showing.
  }
  return { text: body, valid: false, good: null };
}

/** Reads a slot's stored value (the record formats, or a bare text as older versions wrote). */
export function parseEdit(raw: string | null): EditRecord | null {
  if (raw === null) return null;
  if (raw.startsWith(HEAD)) return parseRecord(raw);
  if (raw.startsWith(`{"${MARK}"`)) {
    try {
      const v = JSON.parse(raw) as Record<string, unknown>;
      if (typeof v.text === 'string')
        return {
          text: v.text,
          valid: v.valid === true,
          good: typeof v.good === 'string' ? v.good : null,
        };
    } catch {
      // Not ours after all: a manifests text that happens to start like a record.
    }
  }
  return { text: raw, valid: false, good: null };
}

export function formatEdit(r: EditRecord): string {
  const good = r.good !== null && r.good !== r.text ? r.good : '';
  return `${HEAD}${JSON.stringify({ length: r.text.length, ...(r.valid ? { valid: true } : {}) })}\n${r.text}${good}`;
}

export function readEdit(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
): EditRecord | null {
  return parseEdit(read(kv, editKey(scenario, variant)));
}

export function loadEdit(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
): string | null {
  return readEdit(kv, scenario, variant)?.text ?? null;
}

/** Why a version was kept aside: a share link's version or another tab's replaced it. */
export type AsideWhy = 'link' | 'tab' | 'swap';

export interface AsideEntry {
  readonly text: string;
  readonly at: number;
  readonly why: AsideWhy;
}

/** Versions set aside beyond this many are not taken: the write fails loudly instead. */
export const ASIDE_MAX = 8;

export function readAside(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
): AsideEntry[] {
  const raw = read(kv, asideKey(scenario, variant));
  if (!raw) return [];
  try {
    const v: unknown = JSON.parse(raw);
    if (!Array.isArray(v)) return [];
    return v.flatMap((e: unknown) => {
      const o = e as Record<string, unknown> | null;
      if (!o || typeof o.text !== 'string') return [];
      const why: AsideWhy = o.why === 'link' || o.why === 'tab' ? o.why : 'swap';
      return [{ text: o.text, at: typeof o.at === 'number' ? o.at : 0, why }];
    });
  } catch {
    return [];
  }
}

export function writeAside(
  kv: KeyValue | null,
  scenario: string,
  variant: string | null,
  list: readonly AsideEntry[],
): SaveStatus {
  return write(kv, asideKey(scenario, variant), list.length ? JSON.stringify(list) : null);
}

/**
 * Saves one lab's edits. It remembers the text it last read or wrote per slot, so a slot that
 * holds something else (another tab wrote it, or the lab shows a link's version) is moved aside
 * before being replaced: a compare-and-swap on localStorage, which has no transactions.
 */
export class EditSaver {
  private known = new Map<string, string | null>();
  constructor(readonly kv: KeyValue | null) {}

  /** The lab loaded (or chose to replace) this slot's content: saving over it is intended. */
  noteRead(scenario: string, variant: string | null, text: string | null): void {
    this.known.set(editKey(scenario, variant), text);
  }

  /**
   * Saves `text` (removes the slot when it equals the original and nothing is at stake).
   * Returns whether it worked and the slot's aside list as it is now.
   */
  save(
    scenario: string,
    variant: string | null,
    text: string,
    original: string,
    state: { valid: boolean; good: string | null },
  ): { status: SaveStatus; aside: AsideEntry[] } {
    const key = editKey(scenario, variant);
    const stored = parseEdit(read(this.kv, key));
    let aside = readAside(this.kv, scenario, variant);
    const known = this.known.has(key) ? this.known.get(key) : undefined;
    if (stored && stored.text !== text && stored.text !== original && stored.text !== known) {
      const why: AsideWhy = known === undefined ? 'link' : 'tab';
      if (!aside.some((a) => a.text === stored.text)) {
        if (aside.length >= ASIDE_MAX) return { status: { ok: false, reason: 'quota' }, aside };
        const next = [...aside, { text: stored.text, at: Date.now(), why }];
        const st = writeAside(this.kv, scenario, variant, next);
        // Never replace a version that could not be set aside.
        if (!st.ok) return { status: st, aside };
        aside = next;
      }
    }
    const status =
      text === original
        ? write(this.kv, key, null)
        : write(this.kv, key, formatEdit({ text, valid: state.valid, good: state.good }));
    if (status.ok) this.known.set(key, text === original ? null : text);
    return { status, aside };
  }

  /** Removes entry `i` of the aside list (the user discarded it, or opened it). */
  dropAside(scenario: string, variant: string | null, i: number): AsideEntry[] {
    const list = readAside(this.kv, scenario, variant).filter((_, j) => j !== i);
    writeAside(this.kv, scenario, variant, list);
    return list;
  }

  /** Adds a version to the aside list (the user swapped it out of the editor). */
  putAside(
    scenario: string,
    variant: string | null,
    text: string,
    why: AsideWhy,
  ): { status: SaveStatus; aside: AsideEntry[] } {
    const aside = readAside(this.kv, scenario, variant);
    if (aside.some((a) => a.text === text)) return { status: OK, aside };
    if (aside.length >= ASIDE_MAX) return { status: { ok: false, reason: 'quota' }, aside };
    const next = [...aside, { text, at: Date.now(), why }];
    const status = writeAside(this.kv, scenario, variant, next);
    return { status, aside: status.ok ? next : aside };
  }
}

export interface LastPlace {
  readonly scenarioId: string;
  readonly variant: string | null;
  /** Absent in places saved before the lab had a mode switch. */
  readonly mode?: KubeProxyMode | null;
  readonly path: PathSelection | null;
}

const MAX_ID = 200;
const MAX_PATH = 300;

/** A path read from storage or a link: two bounded strings and a known protocol, or null. */
export function checkPath(v: unknown): PathSelection | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const ok = (s: unknown): s is string =>
    typeof s === 'string' && s.length > 0 && s.length <= MAX_PATH;
  if (!ok(o.from) || !ok(o.to)) return null;
  const proto = o.proto === 'tcp' || o.proto === 'udp' || o.proto === 'sctp' ? o.proto : null;
  return { from: o.from, to: o.to, ...(proto ? { proto } : {}) };
}

/** A kube-proxy mode read from storage or a link (whether the scenario runs in it is checked later). */
export function checkMode(v: unknown): KubeProxyMode | null {
  return v === 'iptables' || v === 'nftables' || v === 'ipvs' ? v : null;
}

export function checkId(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_ID ? v : null;
}

export function loadLast(kv: KeyValue | null): LastPlace | null {
  const raw = read(kv, `${PREFIX}last`);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Record<string, unknown> | null;
    const scenarioId = checkId(v?.scenarioId);
    if (!v || !scenarioId) return null;
    return {
      scenarioId,
      variant: checkId(v.variant),
      mode: checkMode(v.mode),
      path: checkPath(v.path),
    };
  } catch {
    return null;
  }
}

export function saveLast(kv: KeyValue | null, last: LastPlace): SaveStatus {
  return write(kv, `${PREFIX}last`, JSON.stringify(last));
}

export function loadPref(kv: KeyValue | null, name: string): string | null {
  return read(kv, `${PREFIX}pref:${name}`);
}

export function savePref(kv: KeyValue | null, name: string, value: string): SaveStatus {
  return write(kv, `${PREFIX}pref:${name}`, value);
}
