/**
 * kube-proxy's iptables chain names (pkg/proxy/iptables/proxier.go, `portProtoHash` and
 * `servicePortEndpointChainName`): the first 16 characters of the RFC 4648 base32 encoding
 * (upper case, A-Z2-7) of SHA-256(text). 16 base32 characters are exactly the first 10 bytes of
 * the digest, so only those are encoded.
 */
import { sha256Text } from '../manifests/sha256.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * Names are hashed again on every re-simulation while the user types: remembered by text (the
 * same Services give the same chain names), forgotten wholesale past a bound.
 */
const memo = new Map<string, string>();
const MEMO_MAX = 400_000;

/** `H16(s)`: 16 base32 characters of SHA-256(s). */
export function hash16(text: string): string {
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  const out = computeHash16(text);
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(text, out);
  return out;
}

function computeHash16(text: string): string {
  // A big node hashes tens of thousands of names per sync: the plain hasher over reused buffers
  // (sha256.ts) takes ~1.5 µs a name where @noble/hashes' general one, even reused, took ~13.
  const d = sha256Text(text);
  let out = '';
  // Two 5-byte groups, 8 characters each (40 bits); numbers stay below 2^40, exact in a double.
  for (let g = 0; g < 10; g += 5) {
    let v =
      (d[g] as number) * 2 ** 32 +
      (d[g + 1] as number) * 2 ** 24 +
      (d[g + 2] as number) * 2 ** 16 +
      (d[g + 3] as number) * 2 ** 8 +
      (d[g + 4] as number);
    let chunk = '';
    for (let i = 0; i < 8; i++) {
      chunk = ALPHABET[v % 32] + chunk;
      v = Math.floor(v / 32);
    }
    out += chunk;
  }
  return out;
}

export const CHAIN_PREFIX = {
  cluster: 'KUBE-SVC-',
  local: 'KUBE-SVL-',
  external: 'KUBE-EXT-',
  firewall: 'KUBE-FW-',
  endpoint: 'KUBE-SEP-',
} as const;

const PER_SERVICE = Object.values(CHAIN_PREFIX);

/**
 * A chain kube-proxy writes per Service port or endpoint (KUBE-SVC-, SVL-, EXT-, FW-, SEP-): of
 * the 10,000 such chains of a 5,000-Service node a packet reaches one or two, so the engine
 * compiles them when reached (HostSpec.deferChains).
 */
export function isPerServiceChain(name: string): boolean {
  return name.startsWith('KUBE-') && PER_SERVICE.some((p) => name.startsWith(p));
}

/** The hash shared by a service port's SVC, SVL, EXT and FW chains: H16(`<spn><protocol>`). */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return hash16(servicePortName + protocol);
}

/** `KUBE-SEP-` + H16(`<spn><protocol><ip:port>`), IPv6 endpoints written `[addr]:port`. */
export function endpointChainName(
  servicePortName: string,
  protocol: string,
  endpoint: string,
): string {
  return CHAIN_PREFIX.endpoint + hash16(servicePortName + protocol + endpoint);
}
