/**
 * Builds a HostSpec and a probe from `hookpath trace` command-line options. Every value is
 * checked here, so a bad one is reported with the option that carried it.
 */
import {
  canonicalIp,
  ipFamily,
  type HostSpec,
  type InterfaceSpec,
  type ListenerSpec,
  type ProbeSpec,
  type RouteSpec,
} from '../engine/index.ts';
import { parseCidr, parseIfAddr } from '../engine/index.ts';
import { UsageError } from './input-error.ts';

export interface HostArgs {
  readonly local?: string | undefined;
  readonly iface?: readonly string[] | undefined;
  readonly route?: readonly string[] | undefined;
  readonly listen?: readonly string[] | undefined;
  readonly ipset?: readonly string[] | undefined;
  readonly forward?: boolean | undefined;
  readonly routeLocalnet?: boolean | undefined;
}

/** A port as the kernel takes it: a whole number 1..65535 (0 only where `zero` allows it). */
export function parsePort(text: string | undefined, option: string, zero = false): number {
  const t = (text ?? '').trim();
  const n = /^\d{1,5}$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n > 65535 || (n === 0 && !zero))
    throw new UsageError(
      `${option} '${text ?? ''}': a port is a whole number from ${zero ? 0 : 1} to 65535`,
      { option },
    );
  return n;
}

/** `--seed N`: a whole number 0..4294967295 (the PRNG's 32-bit state). */
export function parseSeed(text: string | undefined): number {
  if (text === undefined) return 1;
  const t = text.trim();
  const n = /^\d{1,10}$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n > 0xffffffff)
    throw new UsageError(
      `--seed '${text}': give a whole number from 0 to 4294967295, e.g. --seed 7`,
      { option: '--seed' },
    );
  return n;
}

function address(text: string, option: string): string {
  const ip = canonicalIp(text);
  if (!ip)
    throw new UsageError(
      `${option} '${text}' is not an IP address (e.g. 192.168.50.10, or fd00::10)`,
    );
  return ip;
}

function ifAddress(text: string, option: string): string {
  if (!parseIfAddr(text))
    throw new UsageError(
      `${option} '${text}' is not an address with a prefix length, e.g. 192.168.50.38/24`,
    );
  return text;
}

/** `--route "default via 192.168.1.1"`, `--route "10.244.1.0/24 via 192.168.1.12 dev eth0"`. */
export function parseRoute(text: string): RouteSpec {
  const w = text.trim().split(/\s+/);
  const to = w[0];
  if (!to)
    throw new UsageError(`--route "${text}": give a destination, e.g. "default via 192.168.1.1"`);
  if (to !== 'default' && !parseCidr(to) && !canonicalIp(to))
    throw new UsageError(
      `--route "${text}": '${to}' is not a destination; write default or a prefix like 10.244.1.0/24`,
    );
  const route: { to: string; via?: string; dev?: string; src?: string } = { to };
  for (let i = 1; i < w.length; i += 2) {
    const k = w[i];
    const v = w[i + 1];
    if (v === undefined) throw new UsageError(`--route "${text}": '${k}' needs a value`);
    if (k === 'via') route.via = address(v, `--route "${text}": via`);
    else if (k === 'dev') route.dev = v;
    else if (k === 'src') route.src = address(v, `--route "${text}": src`);
    else throw new UsageError(`--route "${text}": unknown word '${k}' (use via, dev, src)`);
  }
  return route;
}

/** `--listen "sshd tcp 0.0.0.0:22 [reply text]"` (IPv6: `[::]:22`). */
export function parseListener(text: string): ListenerSpec {
  const m = /^(\S+)\s+(tcp|udp|sctp)\s+(\[[^\]\s]+\]|[^\s\]]+):(\S+)(?:\s+(.*))?$/.exec(
    text.trim(),
  );
  if (!m)
    throw new UsageError(
      `--listen "${text}": write "PROCESS PROTO ADDRESS:PORT [REPLY]", e.g. "sshd tcp 0.0.0.0:22"`,
    );
  const [, process, proto, rawAddress, port, reply] = m as unknown as [
    string,
    string,
    'tcp' | 'udp' | 'sctp',
    string,
    string,
    string | undefined,
  ];
  const where = `--listen "${text}":`;
  return {
    process,
    proto,
    address: address(rawAddress.replace(/^\[|\]$/g, ''), `${where} address`),
    port: parsePort(port, `${where} port`),
    ...(reply ? { reply } : {}),
  };
}

/** Linux interface names: at most 15 bytes (IFNAMSIZ - 1), no '/', ':' or white space. */
function ifName(name: string, option: string): string {
  if (!/^[^\s/:]{1,15}$/.test(name) || name === '.' || name === '..')
    throw new UsageError(
      `${option}: '${name}' is not an interface name (1 to 15 characters, no '/', ':' or spaces)`,
    );
  return name;
}

export function hostFromArgs(name: string, rules: string, a: HostArgs): HostSpec {
  const interfaces: InterfaceSpec[] = [];
  if (a.local !== undefined)
    interfaces.push({
      name: 'eth0',
      addresses: a.local
        .split(',')
        .map((s) => s.trim())
        .map((s) =>
          ifAddress(s.includes('/') ? s : `${s}/${s.includes(':') ? 64 : 24}`, '--local'),
        ),
    });
  for (const def of a.iface ?? []) {
    const eq = def.indexOf('=');
    const ifname = ifName(eq < 0 ? def : def.slice(0, eq), `--iface "${def}"`);
    const addrs = eq < 0 ? '' : def.slice(eq + 1);
    const kind = ifname.startsWith('kube-ipvs') || ifname.startsWith('dummy') ? 'dummy' : 'ether';
    interfaces.push({
      name: ifname,
      kind,
      addresses: addrs ? addrs.split(',').map((s) => ifAddress(s.trim(), `--iface "${def}"`)) : [],
    });
  }
  if (interfaces.length === 0)
    throw new UsageError(
      'give the host its addresses: --local 192.168.50.38/24,192.168.50.100/32 (on eth0) or --iface NAME=ADDRS',
    );
  const ipsets = (a.ipset ?? []).map((def) => {
    const [setName, type, entries = ''] = def.trim().split(/\s+/);
    if (!setName || !type)
      throw new UsageError(
        `--ipset "${def}": write "NAME TYPE entry;entry", e.g. "KUBE-CLUSTER-IP hash:ip,port 10.96.0.1,tcp:443"`,
      );
    return { name: setName, type, entries: entries ? entries.split(';') : [] };
  });
  return {
    name,
    role: 'node',
    interfaces,
    routes: (a.route ?? []).map(parseRoute),
    listeners: (a.listen ?? []).map(parseListener),
    ipsets,
    sysctls: { ipForward: a.forward ?? false, routeLocalnet: a.routeLocalnet ?? false },
    rules,
  };
}

export interface PacketArgs {
  readonly packet?: string | undefined;
  readonly proto?: string | undefined;
  readonly src?: string | undefined;
  readonly sport?: string | undefined;
  readonly dst?: string | undefined;
  readonly dport?: string | undefined;
  readonly in?: string | undefined;
  readonly localOut?: boolean | undefined;
}

/**
 * One end of `--packet`: `192.168.50.10:40000`, `192.168.50.10`, `[fd00::10]:40000`, `[fd00::10]`
 * or a bare `fd00::10` (an IPv6 address with a port needs the brackets, as in URLs).
 */
function endpoint(text: string, side: string): { ip: string; port: string | undefined } {
  const t = text.trim();
  const bracket = /^\[([^\]]*)\](?::(.*))?$/.exec(t);
  if (bracket) return { ip: address(bracket[1] as string, `--packet ${side}`), port: bracket[2] };
  const colons = (t.match(/:/g) ?? []).length;
  if (colons > 1) {
    if (canonicalIp(t)) return { ip: canonicalIp(t) as string, port: undefined };
    throw new UsageError(
      `--packet ${side} '${t}' is not an address; write an IPv6 address with a port in brackets, e.g. [fd00::10]:22`,
    );
  }
  const [ip = '', port] = t.split(':');
  return { ip: address(ip, `--packet ${side}`), port };
}

/** `--packet "tcp 192.168.50.10:40000 > 192.168.50.100:22"` or the separate options. */
// eslint-disable-next-line max-lines-per-function -- checks each packet option in turn, each message naming its option
export function probeFromArgs(host: string, a: PacketArgs): ProbeSpec {
  let proto = a.proto ?? 'tcp';
  let src = a.src === undefined ? undefined : address(a.src, '--src');
  let dst = a.dst === undefined ? undefined : address(a.dst, '--dst');
  let sport = a.sport;
  let dport = a.dport;
  if (a.packet !== undefined) {
    const both = (['proto', 'src', 'sport', 'dst', 'dport'] as const).filter(
      (k) => a[k] !== undefined,
    );
    if (both.length)
      throw new UsageError(
        `--packet already gives the protocol, addresses and ports: drop ${both.map((k) => `--${k}`).join(', ')}, or write it into --packet`,
      );
    const m = /^\s*(\S+)\s+(.*)$/.exec(a.packet);
    const rest = m?.[2] ?? '';
    const parts = rest.split('>');
    if (!m || !rest.trim() || parts.length > 2)
      throw new UsageError(
        `--packet "${a.packet}": write "PROTO SRC:PORT > DST:PORT", e.g. "tcp 192.168.50.10:40000 > 192.168.50.100:22"`,
      );
    proto = m[1] as string;
    if (parts.length === 2) {
      const s = endpoint(parts[0] as string, 'source');
      src = s.ip;
      sport = s.port;
    }
    const d = endpoint(parts[parts.length - 1] as string, 'destination');
    dst = d.ip;
    dport = d.port;
  }
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp' && proto !== 'icmp')
    throw new UsageError(`protocol '${proto}': use tcp, udp, sctp or icmp`);
  if (!dst)
    throw new UsageError(
      'give a destination address: --dst 192.168.50.100 --dport 22 (or --packet "tcp SRC:PORT > DST:PORT")',
    );
  if (src && ipFamily(src) !== ipFamily(dst))
    throw new UsageError(
      `the source ${src} and the destination ${dst} are of different IP versions; a packet has one`,
    );
  const dp =
    proto === 'icmp'
      ? 0
      : dport === undefined
        ? (() => {
            throw new UsageError('give a destination port: --dport 22 (or DST:PORT in --packet)');
          })()
        : parsePort(dport, a.packet !== undefined ? '--packet destination port' : '--dport');
  const sp =
    sport === undefined
      ? 40000
      : parsePort(sport, a.packet !== undefined ? '--packet source port' : '--sport');
  if (a.localOut) {
    return {
      kind: 'connect',
      from: host,
      proto,
      dst,
      dport: dp,
      sport: sp,
      ...(src ? { src } : {}),
    };
  }
  if (!src)
    throw new UsageError(
      'a packet from the wire needs a source: --src 192.168.50.10 (or use --local-out for a packet sent by the host)',
    );
  return {
    kind: 'inject',
    host,
    iface: a.in ?? 'eth0',
    packet: {
      proto,
      src,
      dst,
      sport: sp,
      dport: proto === 'icmp' ? sp : dp,
      mark: 0,
      ttl: 64,
      ...(proto === 'tcp'
        ? { flags: { syn: true, ack: false, rst: false, fin: false, psh: false, urg: false } }
        : {}),
      ...(proto === 'icmp' ? { icmpType: 8, icmpCode: 0 } : {}),
    },
  };
}
