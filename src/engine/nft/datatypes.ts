/**
 * nftables data types (nftables src/datatype.c, src/proto.c, src/ct.c, src/meta.c): how a value
 * of each type is written and what it compares as. IPv4 addresses and integers are numbers,
 * IPv6 addresses bigints, interface names strings. A value in a set or on the right of a match
 * is an Interval (`lo == hi` for a single value; prefixes and ranges otherwise).
 */
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip.ts';

export type Val = number | bigint | string;

export interface Interval {
  readonly lo: Val;
  readonly hi: Val;
}

export interface DataType {
  readonly name: string;
  readonly kind: 'addr4' | 'addr6' | 'int' | 'string' | 'bitmask' | 'verdict';
  /** Parses one written value; a string is an error message. */
  parse(text: string): Interval | string;
  format(v: Val): string;
}

const U32 = 0xffffffff;

function parseInteger(text: string, max: number): number | null {
  let n: number;
  if (/^0x[0-9a-f]+$/i.test(text)) n = parseInt(text.slice(2), 16);
  else if (/^\d+$/.test(text)) n = Number(text);
  else return null;
  return n <= max ? n : null;
}

function exact(v: Val): Interval {
  return { lo: v, hi: v };
}

/** `a-b` ranges of any type, parsed by `one` on each side. */
function withRange(text: string, one: (t: string) => Val | null): Interval | null {
  const v = one(text);
  if (v !== null) return exact(v);
  const dash = text.indexOf('-', 1);
  if (dash < 0) return null;
  const lo = one(text.slice(0, dash));
  const hi = one(text.slice(dash + 1));
  if (lo === null || hi === null || typeof lo !== typeof hi || lo > hi) return null;
  return { lo, hi };
}

const ipv4: DataType = {
  name: 'ipv4_addr',
  kind: 'addr4',
  parse(text) {
    const slash = text.indexOf('/');
    if (slash > 0) {
      const a = parseIPv4(text.slice(0, slash));
      const len = text.slice(slash + 1);
      if (a === null || !/^\d{1,2}$/.test(len) || Number(len) > 32)
        return `'${text}' is not an IPv4 prefix like 10.0.0.0/8`;
      const p = Number(len);
      const mask = p === 0 ? 0 : (U32 << (32 - p)) >>> 0;
      const lo = (a & mask) >>> 0;
      return { lo, hi: (lo | (~mask >>> 0)) >>> 0 };
    }
    return (
      withRange(text, parseIPv4) ??
      `'${text}' is not an IPv4 address (write 10.0.0.1, 10.0.0.0/8 or 10.0.0.1-10.0.0.9)`
    );
  },
  format: (v) => (typeof v === 'number' ? formatIPv4(v) : String(v)),
};

const ALL6 = (1n << 128n) - 1n;

const ipv6: DataType = {
  name: 'ipv6_addr',
  kind: 'addr6',
  parse(text) {
    const t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    const slash = t.indexOf('/');
    if (slash > 0) {
      const a = parseIPv6(t.slice(0, slash));
      const len = t.slice(slash + 1);
      if (a === null || !/^\d{1,3}$/.test(len) || Number(len) > 128)
        return `'${text}' is not an IPv6 prefix like fd00::/64`;
      const host = (1n << BigInt(128 - Number(len))) - 1n;
      const lo = a & (ALL6 ^ host);
      return { lo, hi: lo | host };
    }
    const r = withRange(t, parseIPv6);
    return r ?? `'${text}' is not an IPv6 address (write fd00::1 or fd00::/64)`;
  },
  format: (v) => (typeof v === 'bigint' ? formatIPv6(v) : String(v)),
};

/** A type of small integers with symbolic names (`tcp`, `established`, `local`...). */
function symbolic(
  name: string,
  symbols: Readonly<Record<string, number>>,
  max: number,
  kind: 'int' | 'bitmask' = 'int',
): DataType {
  const names = new Map(Object.entries(symbols).map(([k, v]) => [v, k]));
  const one = (t: string): number | null => symbols[t] ?? parseInteger(t, max);
  return {
    name,
    kind,
    parse(text) {
      return (
        withRange(text, one) ??
        `'${text}' is not a ${name} value (one of: ${Object.keys(symbols).slice(0, 12).join(', ')})`
      );
    },
    format: (v) => (typeof v === 'number' ? (names.get(v) ?? String(v)) : String(v)),
  };
}

/** IANA protocol numbers (/etc/protocols) for the names nft prints. */
export const PROTOCOLS: Readonly<Record<string, number>> = {
  icmp: 1,
  igmp: 2,
  tcp: 6,
  udp: 17,
  gre: 47,
  esp: 50,
  ah: 51,
  icmpv6: 58,
  'ipv6-icmp': 58,
  sctp: 132,
  udplite: 136,
};

/** A few of /etc/services, the names `nft list` prints for well-known ports. */
const SERVICES: Readonly<Record<string, number>> = {
  ftp: 21,
  ssh: 22,
  telnet: 23,
  smtp: 25,
  domain: 53,
  http: 80,
  https: 443,
  ntp: 123,
  bgp: 179,
  ldap: 389,
  kerberos: 88,
  'http-alt': 8080,
};

/** nf_conntrack_common.h: NF_CT_STATE_BIT(ctinfo) and the INVALID / UNTRACKED bits. */
export const CT_STATE: Readonly<Record<string, number>> = {
  invalid: 1,
  established: 2,
  related: 4,
  new: 8,
  untracked: 64,
};

/** enum ip_conntrack_status bits. */
export const CT_STATUS: Readonly<Record<string, number>> = {
  expected: 1,
  'seen-reply': 2,
  assured: 4,
  confirmed: 8,
  snat: 16,
  dnat: 32,
  dying: 512,
};

/** TCP header flag bits. */
export const TCP_FLAGS: Readonly<Record<string, number>> = {
  fin: 1,
  syn: 2,
  rst: 4,
  psh: 8,
  ack: 16,
  urg: 32,
  ecn: 64,
  cwr: 128,
};

/** enum rtn_type (include/uapi/linux/rtnetlink.h), as `fib ... type` returns it. */
export const FIB_ADDRTYPE: Readonly<Record<string, number>> = {
  unspec: 0,
  unicast: 1,
  local: 2,
  broadcast: 3,
  anycast: 4,
  multicast: 5,
  blackhole: 6,
  unreachable: 7,
  prohibit: 8,
};

const ICMP_TYPES: Readonly<Record<string, number>> = {
  'echo-reply': 0,
  'destination-unreachable': 3,
  'echo-request': 8,
  'time-exceeded': 11,
};

const ifname: DataType = {
  name: 'ifname',
  kind: 'string',
  parse(text) {
    if (text.length === 0 || text.length > 15)
      return `'${text}' is not an interface name (1 to 15 characters)`;
    // `eth*` matches every name starting with eth (nft's wildcard, a prefix compare).
    if (text.endsWith('*')) return { lo: text.slice(0, -1), hi: `${text.slice(0, -1)}\uffff` };
    return exact(text);
  },
  format: (v) => `"${String(v)}"`,
};

const integer = (name: string, max: number): DataType => ({
  name,
  kind: 'int',
  parse(text) {
    return (
      withRange(text, (t) => parseInteger(t, max)) ??
      `'${text}' is not a number from 0 to ${max} (decimal or 0x hex)`
    );
  },
  format: (v) => (name === 'mark' && typeof v === 'number' ? `0x${v.toString(16)}` : String(v)),
});

export const TYPES = {
  ipv4_addr: ipv4,
  ipv6_addr: ipv6,
  inet_proto: symbolic('inet_proto', PROTOCOLS, 255),
  inet_service: symbolic('inet_service', SERVICES, 65535),
  mark: integer('mark', U32),
  integer: integer('integer', U32),
  ifname,
  iface_index: { ...ifname, name: 'iface_index' },
  ct_state: symbolic('ct_state', CT_STATE, U32, 'bitmask'),
  ct_status: symbolic('ct_status', CT_STATUS, U32, 'bitmask'),
  ct_dir: symbolic('ct_dir', { original: 0, reply: 1 }, 1),
  nf_proto: symbolic('nf_proto', { ipv4: 2, ipv6: 10 }, 255),
  pkt_type: symbolic('pkt_type', { host: 0, broadcast: 1, multicast: 2, other: 3 }, 255),
  tcp_flag: symbolic('tcp_flag', TCP_FLAGS, 255, 'bitmask'),
  fib_addrtype: symbolic('fib_addrtype', FIB_ADDRTYPE, 255),
  icmp_type: symbolic('icmp_type', ICMP_TYPES, 255),
  icmp_code: integer('icmp_code', 255),
  ipv4_ttl: integer('integer', 255),
} as const satisfies Record<string, DataType>;

/** Set declarations name these (`type ipv4_addr . inet_proto . inet_service`). */
export function typeByName(name: string): DataType | null {
  return (TYPES as Record<string, DataType>)[name] ?? null;
}

/** True when a value of `key` can be looked up in a set field of type `field`. */
export function compatible(key: DataType, field: DataType): boolean {
  if (key.name === field.name) return true;
  const num = (t: DataType) => t.kind === 'int' || t.kind === 'bitmask';
  return num(key) && num(field) && (key.name === 'integer' || field.name === 'integer');
}

export function inInterval(v: Val, iv: Interval): boolean {
  return typeof v === typeof iv.lo && v >= iv.lo && v <= iv.hi;
}

/** The key of a set element with exact parts, and of a packet's values looked up in it. */
export function keyString(values: readonly Val[]): string {
  if (values.length === 1) return String(values[0]);
  return values.join('\u0001');
}
