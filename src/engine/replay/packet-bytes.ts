/**
 * The headers of a packet Retis captured (its `packet` section, retis-events/src/packet.rs:
 * `data` is the packet's bytes in base64 from the MAC header on, `len` and `capture_len`
 * beside), read into xtables-monitor's field names (SRC, DST, PROTO, SPORT, DPORT, FLAGS) so
 * every parser's packets read alike.
 */

/**
 * base64 → bytes; null if it is not base64. At most `max` bytes are kept (headers only): only
 * the characters for them are decoded (the platform's atob, in Node and in workers alike).
 */
export function fromBase64(text: string, max = 256): Uint8Array | null {
  const s = text.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(s) || s.length % 4 === 1) return null;
  // Whole groups of 4 characters (3 bytes) up to `max` bytes; the last group as it is.
  const head = s.slice(0, Math.ceil(max / 3) * 4);
  const padded = head + '='.repeat((4 - (head.length % 4)) % 4);
  let bin: string;
  try {
    bin = atob(padded);
  } catch {
    return null;
  }
  const out = new Uint8Array(Math.min(bin.length, max));
  for (let k = 0; k < out.length; k++) out[k] = bin.charCodeAt(k);
  return out;
}

const PROTOS: Readonly<Record<number, string>> = {
  1: 'icmp',
  6: 'tcp',
  17: 'udp',
  58: 'icmpv6',
  132: 'sctp',
};
/** TCP header flag bits (RFC 9293 §3.1), as xtables-monitor names them. */
export const TCP_BITS: readonly [string, number][] = [
  ['FIN', 1],
  ['SYN', 2],
  ['RST', 4],
  ['PSH', 8],
  ['ACK', 16],
  ['URG', 32],
];

/** TCP flag bits (struct tcphdr) as xtables-monitor names them: `SYN,ACK`. */
export function tcpFlagNames(bits: number): string {
  return TCP_BITS.filter(([, b]) => bits & b)
    .map(([n]) => n)
    .join(',');
}

function ipv6Text(b: Uint8Array, at: number): string {
  const words = Array.from(
    { length: 8 },
    (_, i) => ((b[at + 2 * i] ?? 0) << 8) | (b[at + 2 * i + 1] ?? 0),
  );
  // The longest run of zero words becomes `::` (RFC 5952).
  let best = [-1, 0];
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > (best[1] as number) && j - i > 1) best = [i, j - i];
    i = j > i ? j : i + 1;
  }
  const hex = words.map((w) => w.toString(16));
  const [from, len] = best as [number, number];
  if (from < 0) return hex.join(':');
  return `${hex.slice(0, from).join(':')}::${hex.slice(from + len).join(':')}`;
}

function l4(b: Uint8Array, at: number, proto: number, f: Record<string, string>): void {
  const name = PROTOS[proto];
  f.PROTO = name ?? String(proto);
  if ((proto === 6 || proto === 17 || proto === 132) && b.length >= at + 4) {
    f.SPORT = String(((b[at] ?? 0) << 8) | (b[at + 1] ?? 0));
    f.DPORT = String(((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0));
  }
  if (proto === 6 && b.length > at + 13) {
    const flags = tcpFlagNames(b[at + 13] ?? 0);
    if (flags) f.FLAGS = flags;
  }
}

/** The fields of an Ethernet frame (or a bare IP packet) as far as its bytes go. */
export function packetFields(b: Uint8Array): Record<string, string> {
  const f: Record<string, string> = {};
  let at = 0;
  const type = (i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
  const first = (b[0] ?? 0) >> 4;
  if (b.length >= 14 && [0x0800, 0x86dd, 0x8100].includes(type(12))) {
    at = type(12) === 0x8100 ? 18 : 14;
  } else if (first !== 4 && first !== 6) return f;
  const version = (b[at] ?? 0) >> 4;
  if (version === 4 && b.length >= at + 20) {
    f.SRC = Array.from(b.slice(at + 12, at + 16)).join('.');
    f.DST = Array.from(b.slice(at + 16, at + 20)).join('.');
    l4(b, at + ((b[at] ?? 0) & 0x0f) * 4, b[at + 9] ?? 0, f);
  } else if (version === 6 && b.length >= at + 40) {
    f.SRC = ipv6Text(b, at + 8);
    f.DST = ipv6Text(b, at + 24);
    l4(b, at + 40, b[at + 6] ?? 0, f);
  }
  return f;
}
