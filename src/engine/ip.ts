/** IPv4/IPv6 address and prefix helpers. IPv4 addresses are uint32 numbers, IPv6 are bigints. */

export type Family = 4 | 6;

export interface Cidr {
  readonly family: Family;
  /** Network address (host bits cleared). */
  readonly addr: number | bigint;
  readonly prefix: number;
  readonly text: string;
}

/**
 * Parses dotted-quad IPv4: four groups of 1 to 3 digits, each at most 255. Leading zeros are
 * accepted as decimal (as kube-proxy normalises them). Called for every address of every rule
 * and packet, so it reads characters rather than running a regular expression.
 */
export function parseIPv4(s: string): number | null {
  return parseIPv4At(s, 0, s.length);
}

/** parseIPv4 on `s[from, to)`; null unless that whole range is an address. */
function parseIPv4At(s: string, from: number, to: number): number | null {
  let n = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digits > 3) return null;
      octet = octet * 10 + (c - 48);
    } else if (c === 46) {
      if (digits === 0 || octet > 255 || ++dots > 3) return null;
      n = n * 256 + octet;
      octet = 0;
      digits = 0;
    } else return null;
  }
  if (dots !== 3 || digits === 0 || octet > 255) return null;
  return n * 256 + octet;
}

/**
 * `a.b.c.d` or `a.b.c.d/len` as one number, `prefix * 2^32 + address` (no object for the
 * hundred thousand addresses of a large ruleset); -1 for anything else (parseCidr then decides).
 */
export function parseIPv4Prefix(s: string): number {
  const slash = s.indexOf('/');
  const addr = parseIPv4At(s, 0, slash < 0 ? s.length : slash);
  if (addr === null) return -1;
  let prefix = 32;
  if (slash >= 0) {
    const len = s.length - slash - 1;
    if (len < 1 || len > 2) return -1;
    prefix = 0;
    for (let i = slash + 1; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) return -1;
      prefix = prefix * 10 + (c - 48);
    }
    if (prefix > 32) return -1;
  }
  const masked = prefix === 0 ? 0 : (addr & ((0xffffffff << (32 - prefix)) >>> 0)) >>> 0;
  return prefix * 4294967296 + masked;
}

export function formatIPv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Parses an IPv6 address (with :: and an optional embedded IPv4 tail). */
export function parseIPv6(s: string): bigint | null {
  if (!s.includes(':') || s.length > 45) return null;
  let head = s;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const v4part = s.slice(lastColon + 1);
  if (v4part.includes('.')) {
    const v4 = parseIPv4(v4part);
    if (v4 === null) return null;
    tail = [(v4 >>> 16) & 0xffff, v4 & 0xffff];
    head = s.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const dbl = head.indexOf('::');
  if (dbl !== head.lastIndexOf('::')) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  let groups: number[];
  if (dbl >= 0) {
    const left = parseGroups(head.slice(0, dbl));
    const right = parseGroups(head.slice(dbl + 2));
    if (!left || !right) return null;
    const fill = 8 - tail.length - left.length - right.length;
    if (fill < 1) return null;
    groups = [...left, ...new Array<number>(fill).fill(0), ...right, ...tail];
  } else {
    const all = parseGroups(head);
    if (!all) return null;
    groups = [...all, ...tail];
  }
  if (groups.length !== 8) return null;
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  return v;
}

export function formatIPv6(v: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run of two or more zero groups.
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function ipFamily(s: string): Family | null {
  if (parseIPv4(s) !== null) return 4;
  if (parseIPv6(s) !== null) return 6;
  return null;
}

/** Canonical text of an address (leading zeros dropped, IPv6 compressed), or null when invalid. */
export function canonicalIp(s: string): string | null {
  const v4 = parseIPv4(s);
  if (v4 !== null) return formatIPv4(v4);
  const v6 = parseIPv6(s);
  return v6 === null ? null : formatIPv6(v6);
}

export function ipToNum(s: string): number | bigint | null {
  const v4 = parseIPv4(s);
  if (v4 !== null) return v4;
  return parseIPv6(s);
}

function maskV4(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

function maskV6(prefix: number): bigint {
  return prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
}

/** Parses `addr`, `addr/len` or `addr/dotted-mask`. A bare address is a host prefix. */
export function parseCidr(s: string): Cidr | null {
  const slash = s.indexOf('/');
  const addrText = slash < 0 ? s : s.slice(0, slash);
  const lenText = slash < 0 ? null : s.slice(slash + 1);
  const v4 = parseIPv4(addrText);
  if (v4 !== null) {
    let prefix = 32;
    if (lenText !== null) {
      if (/^\d{1,2}$/.test(lenText)) prefix = Number(lenText);
      else {
        const m = parseIPv4(lenText);
        if (m === null) return null;
        prefix = maskToPrefix(m);
        if (prefix < 0) return null;
      }
      if (prefix > 32) return null;
    }
    const addr = (v4 & maskV4(prefix)) >>> 0;
    return { family: 4, addr, prefix, text: `${formatIPv4(addr)}/${prefix}` };
  }
  const v6 = parseIPv6(addrText);
  if (v6 === null) return null;
  let prefix = 128;
  if (lenText !== null) {
    if (!/^\d{1,3}$/.test(lenText)) return null;
    prefix = Number(lenText);
    if (prefix > 128) return null;
  }
  const addr = v6 & maskV6(prefix);
  return { family: 6, addr, prefix, text: `${formatIPv6(addr)}/${prefix}` };
}

function maskToPrefix(m: number): number {
  let p = 0;
  let seenZero = false;
  for (let i = 31; i >= 0; i--) {
    const bit = (m >>> i) & 1;
    if (bit && seenZero) return -1;
    if (bit) p++;
    else seenZero = true;
  }
  return p;
}

/** True when `ip` (numeric, same family) lies inside `c`. */
export function cidrContainsNum(c: Cidr, ip: number | bigint): boolean {
  if (c.family === 4) {
    if (typeof ip !== 'number') return false;
    return (ip & maskV4(c.prefix)) >>> 0 === c.addr;
  }
  if (typeof ip !== 'bigint') return false;
  return (ip & maskV6(c.prefix)) === c.addr;
}

export function cidrContains(c: Cidr, ip: string): boolean {
  const n = ipToNum(ip);
  return n !== null && cidrContainsNum(c, n);
}

/** An address with its prefix length, as configured on an interface (`192.168.50.38/24`). */
export interface IfAddr {
  readonly ip: string;
  readonly prefix: number;
  readonly family: Family;
}

export function parseIfAddr(s: string): IfAddr | null {
  const slash = s.indexOf('/');
  const ipText = slash < 0 ? s : s.slice(0, slash);
  const ip = canonicalIp(ipText);
  if (ip === null) return null;
  const family: Family = ip.includes(':') ? 6 : 4;
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const t = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(t)) return null;
    prefix = Number(t);
    if (prefix > max) return null;
  }
  return { ip, prefix, family };
}

export function isLoopback(ip: string): boolean {
  const v4 = parseIPv4(ip);
  if (v4 !== null) return v4 >>> 24 === 127;
  return ip === '::1';
}

export function isMulticastOrBroadcast(ip: string): boolean {
  const v4 = parseIPv4(ip);
  if (v4 === null) return ip.toLowerCase().startsWith('ff');
  return v4 >>> 28 === 0xe || v4 === 0xffffffff;
}
