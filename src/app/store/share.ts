/**
 * Share links: the lab's doc, deflated (fflate) and base64url-encoded into the URL hash, so a
 * link restores the scenario, the edited manifests, the path and the exact step.
 *
 * A link is input from anyone: its length and its inflated size are capped (a 130 KB link can
 * inflate to 100 MB), and every field is checked before the lab sees it.
 */
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
import type { LabDoc } from './lab-store.ts';
import { checkId, checkMode, checkPath } from './persist.ts';

const VERSION = 1;

/** Longest link hash read (base64url characters): a link of an edited 5,000-Service cluster fits. */
export const MAX_LINK = 400_000;
/** Largest inflated doc: a few times the biggest manifests the lab handles. */
export const MAX_INFLATED = 8 * 1024 * 1024;
/** Steps and runs beyond this are not real traces. */
const MAX_INDEX = 1_000_000;

interface Wire {
  v: number;
  s: string;
  va?: string;
  /** kube-proxy's mode, when the sender chose one. */
  mo?: string;
  /** Manifests only when edited: an unedited link stays short and follows scenario fixes. */
  m?: string;
  f?: string;
  t?: string;
  p?: string;
  r?: number;
  st?: number;
  /** 1: the sender showed every rule, the ones that did not match too. */
  e?: number;
  /** What the sender compared with (a variant id, `original`). */
  c?: string;
  /** 'm': the sender looked at the probe matrix. */
  w?: string;
}

/** base64url without padding (RFC 4648 §5), as URLs carry it. */
export function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** How the sender looked at the trace, carried beside the doc. */
export interface ShareView {
  readonly everyRule?: boolean;
  readonly compare?: string | null;
  /** `host` is not carried: the user's dumps never leave the browser, the link opens the diagram. */
  readonly view?: 'diagram' | 'matrix' | 'host';
}

export function encodeShare(doc: LabDoc, original: string, view: ShareView = {}): string {
  const w: Wire = { v: VERSION, s: doc.scenarioId };
  if (doc.variant) w.va = doc.variant;
  if (doc.mode) w.mo = doc.mode;
  if (doc.manifests !== original) w.m = doc.manifests;
  if (doc.path) {
    w.f = doc.path.from;
    w.t = doc.path.to;
    if (doc.path.proto) w.p = doc.path.proto;
  }
  if (doc.run) w.r = doc.run;
  if (doc.step) w.st = doc.step;
  if (view.everyRule) w.e = 1;
  if (view.compare) w.c = view.compare;
  if (view.view === 'matrix') w.w = 'm';
  return toBase64Url(deflateSync(strToU8(JSON.stringify(w)), { level: 9 }));
}

/**
 * Inflates at most `max` bytes: the input is fed in small pieces and the output counted as it
 * comes, so a bomb is stopped after a bounded amount of work and memory (fflate's streaming API).
 */
export function inflateCapped(data: Uint8Array, max: number): Uint8Array | 'too-big' | 'corrupt' {
  const parts: Uint8Array[] = [];
  let size = 0;
  let over = false;
  let done = false;
  const inf = new Inflate((chunk, final) => {
    size += chunk.length;
    if (size > max) over = true;
    else parts.push(chunk);
    if (final) done = true;
  });
  // Deflate expands at most ~1032x: 1 KB of input yields at most ~1 MB before the next check.
  const PIECE = 1024;
  try {
    for (let i = 0; i < data.length && !over; i += PIECE)
      inf.push(data.subarray(i, i + PIECE), i + PIECE >= data.length);
  } catch {
    return 'corrupt';
  }
  if (over) return 'too-big';
  if (!done) return 'corrupt';
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export type SharedDoc = Partial<LabDoc> & {
  scenarioId: string;
  everyRule?: boolean;
  compare?: string;
  view?: 'matrix';
};

/** What reading a link gave: the doc, or why not (shown to the user). */
export type ShareRead =
  | { readonly ok: true; readonly doc: SharedDoc }
  | { readonly ok: false; readonly reason: 'too-long' | 'too-big' | 'corrupt' | 'invalid' };

const index = (v: unknown): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_INDEX ? v : 0;

/** Reads a link, checking its size and every field (types and ranges). Never throws. */
export function readShare(s: string): ShareRead {
  if (s.length > MAX_LINK) return { ok: false, reason: 'too-long' };
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(s);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  const raw = inflateCapped(bytes, MAX_INFLATED);
  if (raw === 'too-big' || raw === 'corrupt') return { ok: false, reason: raw };
  let w: Partial<Record<keyof Wire, unknown>>;
  try {
    const parsed: unknown = JSON.parse(strFromU8(raw));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { ok: false, reason: 'invalid' };
    w = parsed as Partial<Record<keyof Wire, unknown>>;
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
  const scenarioId = checkId(w.s);
  if (w.v !== VERSION || !scenarioId) return { ok: false, reason: 'invalid' };
  const path = checkPath({ from: w.f, to: w.t, proto: w.p });
  return {
    ok: true,
    doc: {
      scenarioId,
      variant: checkId(w.va),
      mode: checkMode(w.mo),
      ...(typeof w.m === 'string' ? { manifests: w.m } : {}),
      ...(path ? { path } : {}),
      run: index(w.r),
      step: index(w.st),
      ...(w.e === 1 ? { everyRule: true } : {}),
      ...(checkId(w.c) ? { compare: checkId(w.c) as string } : {}),
      ...(w.w === 'm' ? { view: 'matrix' as const } : {}),
    },
  };
}

/** The doc a link carries; null when the text is not a (readable) link of ours. */
export function decodeShare(s: string): SharedDoc | null {
  const r = readShare(s);
  return r.ok ? r.doc : null;
}

/** The hash parameter name: `#lab=...`. */
export const SHARE_PARAM = 'lab';
