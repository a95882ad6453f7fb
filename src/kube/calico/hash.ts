/** The hashes Felix names things with. */
import { sha224, sha256 } from '@noble/hashes/sha2.js';

const enc = new TextEncoder();

/** base64.RawURLEncoding. */
export function b64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * generictables.RuleHashes (felix/generictables/rules.go): SHA-224 of the chain name, then of
 * each previous hash followed by the rule as RenderAppend writes it with the word HASH in place
 * of the hash comment; base64url, 16 characters. These are the `cali:...` comments.
 */
export function ruleHashes(chain: string, rendered: readonly string[]): string[] {
  let h = sha224(enc.encode(chain));
  return rendered.map((r) => {
    const body = enc.encode(r);
    const buf = new Uint8Array(h.length + body.length);
    buf.set(h);
    buf.set(body, h.length);
    h = sha224(buf);
    return b64url(h).slice(0, 16);
  });
}

/**
 * hash.GetLengthLimitedID (libcalico-go/lib/hash/unique_id.go): prefix + suffix, or, when longer
 * than maxLength (28 for iptables chains), prefix + "_" + base64url(SHA-256(suffix)) cut to fit.
 */
export function lengthLimitedId(prefix: string, suffix: string, maxLength = 28): string {
  const s = suffix === '' ? '_' : suffix;
  const total = prefix.length + s.length;
  if (total > maxLength || (total === maxLength && s.startsWith('_')))
    return `${prefix}_${b64url(sha256(enc.encode(s))).slice(0, maxLength - 1 - prefix.length)}`;
  return prefix + s;
}

/** hash.MakeUniqueID: `prefix:` + base64url(SHA-224(prefix + ":" + content)). */
export function makeUniqueId(prefix: string, content: string): string {
  return `${prefix}:${b64url(sha224(enc.encode(`${prefix}:${content}`)))}`;
}

/** IPVersionConfig.NameForMainIPSet (felix/ipsets/ipset_defs.go): "cali40" + id, at most 31. */
export function ipsetName(id: string): string {
  return `cali40${id}`.slice(0, 31);
}
