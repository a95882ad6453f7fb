/** ipset contents supplied with a host, and `-m set --match-set` lookups (ipset(8) types). */
import { cidrContainsNum, ipToNum, parseCidr, type Cidr } from './ip.ts';
import type { IpsetSpec } from './host.ts';

type Dim = 'ip' | 'net' | 'port';

export interface IpsetKey {
  readonly ip: (which: 'src' | 'dst') => string;
  readonly port: (which: 'src' | 'dst') => number;
  readonly proto: string;
}

interface Entry {
  readonly parts: readonly (
    | { kind: 'ip'; n: number | bigint }
    | { kind: 'net'; c: Cidr }
    | { kind: 'port'; proto: string; lo: number; hi: number }
  )[];
}

export interface CompiledSet {
  readonly name: string;
  readonly dims: readonly Dim[];
  readonly entries: readonly Entry[];
}

/** A bitmap:port entry: the port of any protocol that has ports. */
const ANY_PORT_PROTO = '*';
const PORT_PROTOS = new Set(['tcp', 'udp', 'sctp']);

export const SUPPORTED_SET_TYPES = [
  'hash:ip',
  'hash:net',
  'hash:ip,port',
  'hash:net,port',
  'hash:ip,port,ip',
  'hash:ip,port,net',
  'bitmap:port',
] as const;

/** Compiles a set; returns a message when an entry does not fit the type. */
export function compileIpset(spec: IpsetSpec): CompiledSet | { error: string } {
  const [, dimText] = spec.type.split(':');
  if (!dimText || !(SUPPORTED_SET_TYPES as readonly string[]).includes(spec.type)) {
    return {
      error: `ipset type '${spec.type}' is not supported; use one of ${SUPPORTED_SET_TYPES.join(', ')}`,
    };
  }
  const dims = dimText.split(',') as Dim[];
  const entries: Entry[] = [];
  for (const raw of spec.entries) {
    const fields = raw.trim().split(',');
    if (fields.length !== dims.length)
      return {
        error: `entry '${raw}' of set ${spec.name} needs ${dims.length} parts (${spec.type})`,
      };
    const parts: Entry['parts'][number][] = [];
    for (let i = 0; i < dims.length; i++) {
      const f = fields[i] as string;
      const d = dims[i] as Dim;
      if (d === 'ip') {
        const n = ipToNum(f);
        if (n === null) return { error: `'${f}' in set ${spec.name} is not an address` };
        parts.push({ kind: 'ip', n });
      } else if (d === 'net') {
        const c = parseCidr(f);
        if (!c) return { error: `'${f}' in set ${spec.name} is not a prefix` };
        parts.push({ kind: 'net', c });
      } else {
        const m = /^(?:(tcp|udp|sctp|icmp):)?(\d+)(?:-(\d+))?$/.exec(f);
        if (!m) return { error: `'${f}' in set ${spec.name} is not a port like tcp:80` };
        const lo = Number(m[2]);
        // bitmap:port stores bare port numbers and matches the port of a TCP, UDP or SCTP packet
        // whatever its protocol (ipset(8), bitmap:port); hash types default to tcp.
        const proto = m[1] ?? (spec.type === 'bitmap:port' ? ANY_PORT_PROTO : 'tcp');
        parts.push({ kind: 'port', proto, lo, hi: m[3] ? Number(m[3]) : lo });
      }
    }
    entries.push({ parts });
  }
  return { name: spec.name, dims, entries };
}

/** `--match-set NAME src,dst`: each flag says which packet field feeds the next dimension. */
export function ipsetMatch(
  set: CompiledSet,
  flags: readonly ('src' | 'dst')[],
  key: IpsetKey,
): boolean {
  const values = set.dims.map((d, i) => {
    const which = flags[i] ?? flags[flags.length - 1] ?? 'src';
    if (d === 'port') return { port: key.port(which), proto: key.proto };
    return { ip: ipToNum(key.ip(which)) };
  });
  return set.entries.some((e) =>
    e.parts.every((p, i) => {
      const v = values[i];
      if (!v) return false;
      if (p.kind === 'port') {
        if (!('port' in v) || v.proto === undefined) return false;
        const proto = p.proto === ANY_PORT_PROTO ? PORT_PROTOS.has(v.proto) : v.proto === p.proto;
        return proto && v.port >= p.lo && v.port <= p.hi;
      }
      if (!('ip' in v) || v.ip === null) return false;
      return p.kind === 'ip' ? p.n === v.ip : cidrContainsNum(p.c, v.ip);
    }),
  );
}
