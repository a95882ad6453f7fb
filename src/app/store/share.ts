/**
 * Share links: the lab's doc, deflated (fflate) and base64url-encoded into the URL hash, so a
 * link restores the scenario, the edited manifests, the path and the exact step.
 */
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import type { LabDoc } from './lab-store.ts';

const VERSION = 1;

interface Wire {
  v: number;
  s: string;
  va?: string;
  /** Manifests only when edited: an unedited link stays short and follows scenario fixes. */
  m?: string;
  f?: string;
  t?: string;
  p?: string;
  r?: number;
  st?: number;
}

/** base64url without padding (RFC 4648 §5), as URLs carry it. */
export function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export function encodeShare(doc: LabDoc, original: string): string {
  const w: Wire = { v: VERSION, s: doc.scenarioId };
  if (doc.variant) w.va = doc.variant;
  if (doc.manifests !== original) w.m = doc.manifests;
  if (doc.path) {
    w.f = doc.path.from;
    w.t = doc.path.to;
    if (doc.path.proto) w.p = doc.path.proto;
  }
  if (doc.run) w.r = doc.run;
  if (doc.step) w.st = doc.step;
  return toBase64Url(deflateSync(strToU8(JSON.stringify(w)), { level: 9 }));
}

/** The doc a link carries; null when the text is not a link of ours. */
export function decodeShare(s: string): (Partial<LabDoc> & { scenarioId: string }) | null {
  try {
    const w = JSON.parse(strFromU8(inflateSync(fromBase64Url(s)))) as Wire;
    if (w.v !== VERSION || typeof w.s !== 'string') return null;
    const proto = w.p === 'tcp' || w.p === 'udp' || w.p === 'sctp' ? w.p : undefined;
    return {
      scenarioId: w.s,
      variant: w.va ?? null,
      ...(typeof w.m === 'string' ? { manifests: w.m } : {}),
      ...(w.f && w.t ? { path: { from: w.f, to: w.t, ...(proto ? { proto } : {}) } } : {}),
      run: w.r ?? 0,
      step: w.st ?? 0,
    };
  } catch {
    return null;
  }
}

/** The hash parameter name: `#lab=...`. */
export const SHARE_PARAM = 'lab';
