/** Builds a HostSpec and a probe from `hookpath trace` command-line options. */
import {
  canonicalIp,
  type HostSpec,
  type InterfaceSpec,
  type ListenerSpec,
  type ProbeSpec,
  type RouteSpec,
} from '../engine/index.ts';

export class UsageError extends Error {}

export interface HostArgs {
  readonly local?: string | undefined;
  readonly iface?: readonly string[] | undefined;
  readonly route?: readonly string[] | undefined;
  readonly listen?: readonly string[] | undefined;
  readonly ipset?: readonly string[] | undefined;
  readonly forward?: boolean | undefined;
  readonly routeLocalnet?: boolean | undefined;
}

/** `--route "default via 192.168.1.1"`, `--route "10.244.1.0/24 via 192.168.1.12 dev eth0"`. */
export function parseRoute(text: string): RouteSpec {
  const w = text.trim().split(/\s+/);
  const to = w[0];
  if (!to)
    throw new UsageError(`--route "${text}": give a destination, e.g. "default via 192.168.1.1"`);
  const route: { to: string; via?: string; dev?: string; src?: string } = { to };
  for (let i = 1; i < w.length; i += 2) {
    const k = w[i];
    const v = w[i + 1];
    if (v === undefined) throw new UsageError(`--route "${text}": '${k}' needs a value`);
    if (k === 'via') route.via = v;
    else if (k === 'dev') route.dev = v;
    else if (k === 'src') route.src = v;
    else throw new UsageError(`--route "${text}": unknown word '${k}' (use via, dev, src)`);
  }
  return route;
}

/** `--listen "sshd tcp 0.0.0.0:22 [reply text]"`. */
export function parseListener(text: string): ListenerSpec {
  const m = /^(\S+)\s+(tcp|udp|sctp)\s+(\S+):(\d+)(?:\s+(.*))?$/.exec(text.trim());
  if (!m)
    throw new UsageError(
      `--listen "${text}": write "PROCESS PROTO ADDRESS:PORT [REPLY]", e.g. "sshd tcp 0.0.0.0:22"`,
    );
  const [, process, proto, address, port, reply] = m as unknown as [
    string,
    string,
    'tcp' | 'udp' | 'sctp',
    string,
    string,
    string | undefined,
  ];
  return { process, proto, address, port: Number(port), ...(reply ? { reply } : {}) };
}

export function hostFromArgs(name: string, rules: string, a: HostArgs): HostSpec {
  const interfaces: InterfaceSpec[] = [];
  if (a.local)
    interfaces.push({
      name: 'eth0',
      addresses: a.local.split(',').map((s) => (s.includes('/') ? s : `${s}/24`)),
    });
  for (const def of a.iface ?? []) {
    const [ifname, addrs = ''] = def.split('=');
    if (!ifname)
      throw new UsageError(`--iface "${def}": write NAME=ADDR/LEN,... e.g. eth1=10.0.0.5/24`);
    const kind = ifname.startsWith('kube-ipvs') || ifname.startsWith('dummy') ? 'dummy' : 'ether';
    interfaces.push({ name: ifname, kind, addresses: addrs ? addrs.split(',') : [] });
  }
  if (interfaces.length === 0)
    throw new UsageError(
      'give the host its addresses: --local 192.168.50.38/24,192.168.50.100/32 (on eth0) or --iface NAME=ADDRS',
    );
  const ipsets = (a.ipset ?? []).map((def) => {
    const [setName, type, entries = ''] = def.trim().split(/\s+/);
    if (!setName || !type)
      throw new UsageError(
        `--ipset "${def}": write "NAME TYPE entry,entry", e.g. "KUBE-CLUSTER-IP hash:ip,port 10.96.0.1,tcp:443"`,
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

/** `--packet "tcp 192.168.50.10:40000 > 192.168.50.100:22"` or the separate options. */
export function probeFromArgs(host: string, a: PacketArgs): ProbeSpec {
  let proto = a.proto ?? 'tcp';
  let src = a.src;
  let dst = a.dst;
  let sport = a.sport;
  let dport = a.dport;
  if (a.packet) {
    const m = /^\s*(tcp|udp|sctp|icmp)\s+(?:(\S+?)(?::(\d+))?\s*>\s*)?(\S+?)(?::(\d+))?\s*$/.exec(
      a.packet,
    );
    if (!m)
      throw new UsageError(
        `--packet "${a.packet}": write "PROTO SRC:PORT > DST:PORT", e.g. "tcp 192.168.50.10:40000 > 192.168.50.100:22"`,
      );
    [, proto = 'tcp', src, sport, dst, dport] = m;
  }
  if (!dst || !canonicalIp(dst))
    throw new UsageError('give a destination address: --dst 192.168.50.100 (or --packet "...")');
  if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp' && proto !== 'icmp')
    throw new UsageError(`--proto ${proto}: use tcp, udp, sctp or icmp`);
  const dp = Number(dport ?? (proto === 'icmp' ? 0 : NaN));
  if (!Number.isInteger(dp) || dp < 0 || dp > 65535)
    throw new UsageError('give a destination port: --dport 22 (or DST:PORT in --packet)');
  const sp = sport === undefined ? 40000 : Number(sport);
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
  if (!src || !canonicalIp(src))
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
