/**
 * Addresses as Go's `netutils.ParseIPSloppy(s).String()` prints them (leading zeros dropped,
 * IPv6 compressed), restricted to one family. A fast path skips re-printing IPv4 addresses
 * that are already canonical, the common case on big clusters.
 */
import { canonicalIp } from '../../engine/index.ts';

const CANONICAL_V4 =
  /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** The canonical text of `s` if it is an address of `family`, else null. */
export function ipOfFamily(s: string, family: 4 | 6): string | null {
  if (family === 4 && CANONICAL_V4.test(s)) return s;
  const ip = canonicalIp(s);
  if (ip === null) return null;
  return ip.includes(':') === (family === 6) ? ip : null;
}
