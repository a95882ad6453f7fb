/**
 * The ipsets kube-proxy's IPVS proxier creates and fills (pkg/proxy/ipvs/ipset.go, `ipsetInfo` in
 * pkg/proxy/ipvs/proxier.go; entry text from pkg/proxy/ipvs/ipset/ipset.go `Entry.String`), read at
 * danwinship/kubernetes 6c763fd5abda8a2e1b595e125a7810c9c0111b2f (kube-proxy v1.34/v1.35).
 * Sets are unordered in the kernel; entries are kept sorted here so the output is stable.
 */
import type { IpsetSpec } from '../../engine/index.ts';

export type SetType =
  'hash:ip' | 'hash:ip,port' | 'hash:ip,port,ip' | 'hash:ip,port,net' | 'bitmap:port';

export interface IpsetInfo {
  /** The IPv4 name; IPv6 proxiers write `KUBE-6-...` (see ipsetName). */
  readonly name: string;
  readonly type: SetType;
  readonly comment: string;
}

/** `ipsetInfo`, in source order: every set exists on an IPVS node, empty or not. */
export const IPSET_INFO: readonly IpsetInfo[] = [
  s(
    'KUBE-LOOP-BACK',
    'hash:ip,port,ip',
    'Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose',
  ),
  s(
    'KUBE-CLUSTER-IP',
    'hash:ip,port',
    'Kubernetes service cluster ip + port for masquerade purpose',
  ),
  s(
    'KUBE-EXTERNAL-IP',
    'hash:ip,port',
    'Kubernetes service external ip + port for masquerade and filter purpose',
  ),
  s(
    'KUBE-EXTERNAL-IP-LOCAL',
    'hash:ip,port',
    'Kubernetes service external ip + port with externalTrafficPolicy=local',
  ),
  s('KUBE-LOAD-BALANCER', 'hash:ip,port', 'Kubernetes service lb portal'),
  s(
    'KUBE-LOAD-BALANCER-FW',
    'hash:ip,port',
    'Kubernetes service load balancer ip + port for load balancer with sourceRange',
  ),
  s(
    'KUBE-LOAD-BALANCER-LOCAL',
    'hash:ip,port',
    'Kubernetes service load balancer ip + port with externalTrafficPolicy=local',
  ),
  s(
    'KUBE-LOAD-BALANCER-SOURCE-IP',
    'hash:ip,port,ip',
    'Kubernetes service load balancer ip + port + source IP for packet filter purpose',
  ),
  s(
    'KUBE-LOAD-BALANCER-SOURCE-CIDR',
    'hash:ip,port,net',
    'Kubernetes service load balancer ip + port + source cidr for packet filter purpose',
  ),
  s('KUBE-NODE-PORT-TCP', 'bitmap:port', 'Kubernetes nodeport TCP port for masquerade purpose'),
  s(
    'KUBE-NODE-PORT-LOCAL-TCP',
    'bitmap:port',
    'Kubernetes nodeport TCP port with externalTrafficPolicy=local',
  ),
  s('KUBE-NODE-PORT-UDP', 'bitmap:port', 'Kubernetes nodeport UDP port for masquerade purpose'),
  s(
    'KUBE-NODE-PORT-LOCAL-UDP',
    'bitmap:port',
    'Kubernetes nodeport UDP port with externalTrafficPolicy=local',
  ),
  s(
    'KUBE-NODE-PORT-SCTP-HASH',
    'hash:ip,port',
    "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'",
  ),
  s(
    'KUBE-NODE-PORT-LOCAL-SCTP-HASH',
    'hash:ip,port',
    "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'",
  ),
  s('KUBE-HEALTH-CHECK-NODE-PORT', 'bitmap:port', 'Kubernetes health check node port'),
  s('KUBE-IPVS-IPS', 'hash:ip', 'Addresses on the ipvs interface'),
];

function s(name: string, type: SetType, comment: string): IpsetInfo {
  return { name, type, comment };
}

/**
 * NewIPSet: an IPv6 proxier prefixes `KUBE-6-` (dual-stack needs both), cut to ipset's 31
 * characters (`KUBE-6-NODE-PORT-LOCAL-SCTP-HASH` becomes `...-SCTP-HAS`).
 */
export function ipsetName(name: string, family: 4 | 6): string {
  if (family === 4 || !name.startsWith('KUBE-')) return name;
  return name.replace('KUBE-', 'KUBE-6-').slice(0, 31);
}

/** One set as generated: its kernel name, type, family, comment and entries (Entry.String). */
export interface GeneratedSet {
  readonly base: string;
  readonly name: string;
  readonly type: SetType;
  readonly family: 'inet' | 'inet6';
  readonly comment: string;
  readonly entries: readonly string[];
}

/** Entry.String for hash:ip,port: `10.96.0.10,udp:53` (IPv6 addresses are written bare). */
export const ipPort = (ip: string, proto: string, port: number): string => `${ip},${proto}:${port}`;

/** The sets as kube-proxy leaves them after a sync, in ipsetInfo order. */
export class IpsetList {
  private readonly active = new Map<string, Set<string>>(
    IPSET_INFO.map((i) => [i.name, new Set()]),
  );

  constructor(private readonly family: 4 | 6) {}

  insert(base: string, entry: string): void {
    const set = this.active.get(base);
    if (!set) throw new Error(`no ipset ${base}`);
    set.add(entry);
  }

  isEmpty(base: string): boolean {
    return (this.active.get(base)?.size ?? 0) === 0;
  }

  /** The name the kernel knows the set by, for `--match-set`. */
  name(base: string): string {
    return ipsetName(base, this.family);
  }

  sets(): GeneratedSet[] {
    return IPSET_INFO.map((i) => ({
      base: i.name,
      name: ipsetName(i.name, this.family),
      type: i.type,
      family: this.family === 4 ? 'inet' : 'inet6',
      comment: i.comment,
      entries: [...(this.active.get(i.name) ?? [])].sort(compareEntries),
    }));
  }
}

/** Numeric ports sort as numbers, everything else as text. */
function compareEntries(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `ipset save` of the sets: `create` lines with the parameters kube-proxy's CreateSet passes
 * (hash types: family, hashsize 1024, maxelem 65536; bitmap:port: range 0-65535), then `add`
 * lines. (A recent ipset also prints bucketsize and initval; they change no membership.)
 */
export function ipsetSave(sets: readonly GeneratedSet[]): string {
  const out: string[] = [];
  for (const set of sets) {
    const params =
      set.type === 'bitmap:port'
        ? 'range 0-65535'
        : `family ${set.family} hashsize 1024 maxelem 65536`;
    out.push(`create ${set.name} ${set.type} ${params}`);
    for (const e of set.entries) out.push(`add ${set.name} ${e}`);
  }
  return `${out.join('\n')}\n`;
}

/** The sets as the engine takes them (HostSpec.ipsets). */
export function ipsetSpecs(sets: readonly GeneratedSet[]): IpsetSpec[] {
  return sets.map((set) => ({ name: set.name, type: set.type, entries: set.entries }));
}
