/**
 * An instructor's own exercise carried in the URL (`#exercise=…`), deflated with fflate and
 * base64url-encoded like share links (src/app/store/share.ts). Decoding stops at a size limit
 * of the unpacked text, so a link cannot make the page inflate something huge; the text is then
 * validated like a file before it opens.
 */
import { Inflate, deflateSync, strFromU8, strToU8 } from 'fflate';
import { fromBase64Url, toBase64Url } from '../store/share.ts';

export const EXERCISE_PARAM = 'exercise';
/** Unpacked exercise text, at most. The lab's own exercises are 5–12 KB. */
export const MAX_EXERCISE_BYTES = 64 * 1024;
/** Packed, in the URL, at most (browsers and servers cut long URLs). */
export const MAX_PARAM_CHARS = 48 * 1024;

export function encodeExercise(text: string): { param: string } | { error: string } {
  const bytes = strToU8(text);
  if (bytes.length > MAX_EXERCISE_BYTES)
    return {
      error: `the exercise is ${Math.ceil(bytes.length / 1024)} KB; a link carries at most ${MAX_EXERCISE_BYTES / 1024} KB`,
    };
  const param = toBase64Url(deflateSync(bytes, { level: 9 }));
  if (param.length > MAX_PARAM_CHARS)
    return {
      error: `the link would be ${Math.ceil(param.length / 1024)} KB long; shorten the exercise`,
    };
  return { param };
}

/** The exercise text a link carries, or why it cannot be read. */
export function decodeExercise(param: string): { text: string } | { error: string } {
  if (param.length > MAX_PARAM_CHARS) return { error: 'the exercise link is too long' };
  let packed: Uint8Array;
  try {
    packed = fromBase64Url(param);
  } catch {
    return { error: 'the exercise link is damaged (not base64url)' };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const inflate = new Inflate((chunk) => {
      size += chunk.length;
      if (size > MAX_EXERCISE_BYTES) throw new RangeError('too large');
      chunks.push(chunk);
    });
    inflate.push(packed, true);
  } catch (e) {
    return {
      error:
        e instanceof RangeError
          ? `the exercise in the link unpacks to more than ${MAX_EXERCISE_BYTES / 1024} KB`
          : 'the exercise link is damaged (it does not unpack)',
    };
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return { text: strFromU8(all) };
}

/** A stable id for a carried exercise (progress is kept under it): FNV-1a of the text. */
export function urlExerciseId(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `url-${h.toString(16).padStart(8, '0')}`;
}

/** The exercise param of a URL hash (`#exercise=…`), if any. */
export function exerciseParam(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get(EXERCISE_PARAM);
}
