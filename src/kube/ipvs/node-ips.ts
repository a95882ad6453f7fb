/**
 * Which node addresses the IPVS proxier uses: for binding (an address that exists on another
 * interface is not added to kube-ipvs0) and for NodePort virtual services. From
 * pkg/proxy/ipvs/proxier.go (syncProxyRules: nodeAddressSet, nodeIPs) and
 * pkg/proxy/ipvs/netlink_linux.go (GetAllLocalAddressesExcept, isValidForSet), kube-proxy
 * v1.34/v1.35.
 */
import { canonicalIp, ipToNum } from '../../engine/index.ts';
import { deriveSettings } from '../proxier/config.ts';
import type { ProxierConfig } from '../model.ts';

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`), which Go's net.IP treats as IPv4. */
function isV4Mapped(ip: string): boolean {
  const n = ipToNum(ip);
  return typeof n === 'bigint' && n >> 32n === 0xffffn;
}

function isV6LinkLocal(ip: string): boolean {
  const n = ipToNum(ip);
  return typeof n === 'bigint' && n >> 118n === 0x3fan;
}

function isLoopbackIp(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.');
}

/**
 * netlinkHandle.isValidForSet: an address of the proxier's family, not loopback, and for IPv6
 * not link-local (IPv4 link-local is kept).
 */
export function isValidForSet(ip: string, family: 4 | 6): boolean {
  const c = canonicalIp(ip);
  if (c === null) return false;
  const v6 = c.includes(':') && !isV4Mapped(c);
  if (v6 !== (family === 6)) return false;
  if (v6 && isV6LinkLocal(c)) return false;
  if (isLoopbackIp(c) || (isV4Mapped(c) && ((ipToNum(c) as bigint) & 0xff000000n) === 0x7f000000n))
    return false;
  return true;
}

/** GetAllLocalAddressesExcept("kube-ipvs0"): the node's own addresses of this family. */
export function nodeAddressSet(cfg: ProxierConfig): string[] {
  const out: string[] = [];
  for (const a of cfg.nodeIPs) {
    const ip = canonicalIp(a);
    if (ip !== null && isValidForSet(ip, cfg.ipFamily) && !out.includes(ip)) out.push(ip);
  }
  return out;
}

/**
 * The addresses NodePort virtual services are created on: every node address when
 * --nodeport-addresses matches all, else the interface addresses inside its CIDRs, loopback
 * excluded (IPVS cannot serve 127.0.0.1: there are no localhost NodePorts in IPVS mode).
 */
export function nodePortIPs(cfg: ProxierConfig): string[] {
  const settings = deriveSettings(cfg);
  if (settings.nodePortMatchAll) return nodeAddressSet(cfg);
  return settings.nodePortIPs.filter((ip) => !isLoopbackIp(ip));
}
