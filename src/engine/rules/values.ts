/** Values several extensions read the same way: ports, marks, addresses, protocols. */
import { parseCidr, type Cidr } from '../ip.ts';
import { fail } from './extension.ts';
import type { PortRange } from './target-op.ts';

/** Digits only, at most 5, as a number; -1 otherwise. */
function digits(text: string, from: number, to: number): number {
  if (to <= from || to - from > 5) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}

/** `80`, `30000:32767`, `1024:` (to 65535), `6000-6100` (as NAT targets write ranges). */
export function parsePortRange(text: string, column: number): PortRange {
  // The usual `80` or `30000:32767`, read without a regular expression.
  const colon = text.indexOf(':');
  const lo = digits(text, 0, colon < 0 ? text.length : colon);
  const hi = colon < 0 ? lo : digits(text, colon + 1, text.length);
  if (lo >= 0 && hi >= lo && hi <= 65535) return lo === hi ? singlePort(lo) : { lo, hi };
  return parsePortRangeSlowly(text, column);
}

/**
 * One object per single port read: a kube-proxy dump's 30,000 DNAT rules name a handful of
 * ports, and every object a parse keeps costs its collection (ranges are never changed).
 */
const SINGLE_PORTS = new Map<number, PortRange>();

function singlePort(port: number): PortRange {
  let r = SINGLE_PORTS.get(port);
  if (r === undefined) {
    r = { lo: port, hi: port };
    SINGLE_PORTS.set(port, r);
  }
  return r;
}

function parsePortRangeSlowly(text: string, column: number): PortRange {
  const m = /^(\d{1,5})(?::(\d{0,5}))?$/.exec(text) ?? /^(\d{1,5})-(\d{1,5})$/.exec(text);
  if (!m) return fail(column, `'${text}' is not a port or port range`, 'Write 80 or 30000:32767.');
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : m[2] === '' ? 65535 : Number(m[2]);
  if (lo > 65535 || hi > 65535) fail(column, `port '${text}' is above 65535`);
  if (lo > hi) fail(column, `port range '${text}' is reversed`, `Write ${hi}:${lo}.`);
  return { lo, hi };
}

/** `0x4000/0x4000`, `16384`, `0x4000` (mask 0xffffffff). */
export function parseMarkMask(text: string, column: number): { value: number; mask: number } {
  const m = /^(0x[0-9a-fA-F]+|\d+)(?:\/(0x[0-9a-fA-F]+|\d+))?$/.exec(text);
  if (!m) return fail(column, `'${text}' is not a mark like 0x4000 or 0x4000/0x4000`);
  const value = Number(m[1]);
  const mask = m[2] === undefined ? 0xffffffff : Number(m[2]);
  if (value > 0xffffffff || mask > 0xffffffff) fail(column, `mark '${text}' does not fit 32 bits`);
  return { value: value >>> 0, mask: mask >>> 0 };
}

/** An address or prefix of the rule's family (`-s`, `-d`, `--ctorigdst`, ...). */
export function parseAddrOption(value: string, column: number, family: 4 | 6): Cidr {
  if (value.includes(',')) {
    fail(
      column,
      `'${value}' lists several addresses`,
      'iptables-restore expands address lists into one rule per address; write one rule for each.',
    );
  }
  const c = parseCidr(value);
  if (!c)
    return fail(
      column,
      `'${value}' is not an address or prefix`,
      'Write an address like 10.0.0.1 or a prefix like 10.244.0.0/16.',
    );
  if (c.family !== family) fail(column, `'${value}' is IPv${c.family} in an IPv${family} ruleset`);
  return c;
}

/** Protocol numbers iptables accepts in place of names (`-p 6`, `--ctproto 17`). */
export const PROTO_NUMBERS: Readonly<Record<string, string>> = {
  '6': 'tcp',
  '17': 'udp',
  '1': 'icmp',
  '132': 'sctp',
};

/** IANA numbers of the protocols a packet of the lab can have. */
export const IPPROTO: Readonly<Record<string, number>> = { tcp: 6, udp: 17, icmp: 1, sctp: 132 };
