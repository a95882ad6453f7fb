/**
 * Names shortened to fit a box (SVG text neither wraps nor clips). kube-proxy's chain names end
 * in a hash that tells one Service or endpoint from another (KUBE-SVC-<16 base32>, KUBE-SEP-…,
 * nft `service-<8>-ns/name/proto/port`; pkg/proxy/iptables/proxier.go servicePortChainName,
 * pkg/proxy/nftables/proxier.go servicePortChainNameBase), so a cut keeps the hash, never cuts
 * the end off blindly: the ellipsis goes in the middle. The full name goes in a tooltip.
 */

/** The first hash-like run (8+ capitals and digits, with a digit or 16+ long), or null. */
function hashOf(s: string): { start: number; end: number } | null {
  for (const m of s.matchAll(/[A-Z0-9]{8,}/g)) {
    const h = m[0];
    if (/\d/.test(h) || h.length >= 16) return { start: m.index, end: m.index + h.length };
  }
  return null;
}

/** `s` head and tail kept around one ellipsis, `n` characters in all. */
function middle(s: string, n: number): string {
  const head = Math.ceil((n - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (n - 1 - head))}`;
}

/**
 * `s` in at most `n` characters: whole when it fits; else, for a name with a hash, its prefix
 * and the hash (and as much of the end as fits); else its head and tail around an ellipsis.
 */
export function shorten(s: string, n: number): string {
  if (s.length <= n) return s;
  if (n <= 1) return '…';
  if (n < 6) return `${s.slice(0, n - 1)}…`;
  const h = hashOf(s);
  if (h) {
    const room = n - 1 - h.end;
    // The prefix and the whole hash fit: then the end (the port of service-…/tcp/p80) if 4+ fit.
    if (room >= 4) return `${s.slice(0, h.end)}…${s.slice(s.length - room)}`;
    if (room >= 0) return `${s.slice(0, h.end)}…`;
    // KUBE-SVC-ABCDEFGHIJKLMNOP: the prefix, then the hash's last characters.
    const tail = n - 1 - h.start;
    if (tail >= 6) return `${s.slice(0, h.start)}…${s.slice(h.end - tail, h.end)}`;
  }
  return middle(s, n);
}
