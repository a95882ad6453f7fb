/**
 * Proxier-wide settings derived from ProxierConfig the way kube-proxy's iptables `NewProxier`
 * derives them (pkg/proxy/iptables/proxier.go; pkg/proxy/util/nodeport_addresses.go;
 * pkg/proxy/util/localdetector.go; cmd/kube-proxy/app/server.go for `primary`).
 * Followed: kube-proxy v1.34/v1.35.
 */
import { canonicalIp, cidrContains, ipFamily, parseCidr } from '../../engine/index.ts';
import type { ProxierConfig } from '../model.ts';

export interface ProxierSettings {
  readonly family: 4 | 6;
  /** `%#08x` of 1 << masqueradeBit, e.g. `0x00004000`. */
  readonly mark: string;
  /** localhostNodePorts after kube-proxy's overrides (IPv4 only, and only if allowed). */
  readonly localhostNodePorts: boolean;
  /** `--nodeport-addresses` of this family matches every local address. */
  readonly nodePortMatchAll: boolean;
  /** Without matchAll: the local addresses inside the configured CIDRs, sorted. */
  readonly nodePortIPs: readonly string[];
  /** `-s <cidr>` / `! -s <cidr>` of the cluster-CIDR local traffic detector, or null (none). */
  readonly podCIDR: string | null;
  /** The node IP of this family used for the LoadBalancer source-range check. */
  readonly primaryNodeIP: string | null;
}

/** Go's fmt `%#08x`: the hex digits zero-padded to 8, then the 0x prefix. */
export function formatMark(bit: number): string {
  return `0x${(2 ** bit).toString(16).padStart(8, '0')}`;
}

function familyOfCidr(s: string): 4 | 6 | null {
  return s.includes('/') ? (parseCidr(s)?.family ?? null) : null;
}

/**
 * The local detector's pod CIDR for this family. `clusterCIDR` may list one CIDR per family,
 * comma-separated, as `--cluster-cidr` does on dual-stack clusters.
 */
function podCidrFor(clusterCIDR: string | null, family: 4 | 6): string | null {
  if (clusterCIDR === null) return null;
  for (const part of clusterCIDR.split(',')) {
    const s = part.trim();
    if (familyOfCidr(s) === family) return s;
  }
  return null;
}

/**
 * The addresses kube-proxy's NetworkInterfacer would list: the node IPs plus loopback (every
 * node has `lo`). Only addresses of `family` can ever match a CIDR of that family.
 */
function interfaceAddresses(cfg: ProxierConfig): string[] {
  const all = [...cfg.nodeIPs, '127.0.0.1', '::1'];
  const out: string[] = [];
  for (const a of all) {
    const ip = canonicalIp(a);
    if (ip !== null && !out.includes(ip)) out.push(ip);
  }
  return out;
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.');
}

export function deriveSettings(cfg: ProxierConfig): ProxierSettings {
  const family = cfg.ipFamily;
  const nodeIPs = cfg.nodeIPs.map((a) => canonicalIp(a)).filter((a) => a !== null);
  const primaryNodeIP = nodeIPs.find((ip) => ipFamily(ip) === family) ?? null;
  // `primary` stands for the node's primary IP of each family (server.go).
  const cidrStrings: string[] = [];
  for (const s of cfg.nodePortAddresses) {
    if (s.trim() === 'primary') {
      if (primaryNodeIP && !isLoopback(primaryNodeIP)) {
        cidrStrings.push(`${primaryNodeIP}/${family === 4 ? 32 : 128}`);
      }
    } else if (familyOfCidr(s.trim()) === family) cidrStrings.push(s.trim());
  }
  if (cidrStrings.length === 0) cidrStrings.push(family === 4 ? '0.0.0.0/0' : '::/0');
  const cidrs = cidrStrings.map((s) => parseCidr(s)).filter((c) => c !== null);
  const matchAll = cidrs.some((c) => c.prefix === 0);
  const containsV4Loopback = cidrs.some(
    (c) => c.family === 4 && (c.text.startsWith('127.') || cidrContains(c, '127.0.0.0')),
  );
  const localhostNodePorts = family === 4 && cfg.localhostNodePorts && containsV4Loopback;
  const nodePortIPs = matchAll
    ? []
    : interfaceAddresses(cfg)
        .filter((ip) => cidrs.some((c) => cidrContains(c, ip)))
        .sort();
  return {
    family,
    mark: formatMark(cfg.masqueradeBit),
    localhostNodePorts,
    nodePortMatchAll: matchAll,
    nodePortIPs,
    podCIDR: podCidrFor(cfg.clusterCIDR, family),
    primaryNodeIP,
  };
}
