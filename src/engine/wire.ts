/**
 * The wire between hosts: ARP and point-to-point delivery, segments and the bridges' broadcast
 * domains (which host and interface receive a frame sent out of an interface).
 */
import { isLocalAddr, longestMatch, selectSourceAddr, type HostConfig } from './host.ts';
import { ipToNum, isLoopback } from './ip.ts';
import type { HostRuntime } from './runtime.ts';
import { isBridge, masterOf, portsOf, type BridgeDest } from './bridge.ts';
import type { Attachment, Network } from './network.ts';

/** ARP / point-to-point: which host and interface receive a frame sent to `nextHop` out of `outIf`. */
export function resolveNextHop(
  net: Network,
  from: string,
  outIf: string,
  nextHop: string,
  /** Source address of the packet waiting for the answer (picks the ARP sender address). */
  pktSrc?: string,
): Attachment | null | 'no-segment' {
  const h = net.hosts.get(from);
  const members = l2Members(net, from, outIf);
  if (members.length === 0) return 'no-segment';
  const owner = net.arpOwners[nextHop];
  if (owner) {
    const m = members.find((x) => x.host === owner);
    if (m) return m;
  }
  // arp_solicit: the packet's own source when it is local, else the outgoing interface's address.
  const sender =
    pktSrc !== undefined && h && isLocalAddr(h.config, pktSrc)
      ? pktSrc
      : h
        ? selectSourceAddr(h.config, outIf, nextHop, 'link')
        : null;
  const answers = members.filter((m) => {
    const rt = net.hosts.get(m.host);
    if (!rt) return false;
    const cfg = rt.config;
    // arp_process routes the request (ip_route_input_noref) from the sender address, so
    // rp_filter applies: a sender whose reverse path is another interface gets no answer.
    // Seen on Linux 6.18 with rp_filter=1 and a client using a secondary source address.
    // IPv6 neighbour discovery has no rp_filter.
    if (sender !== null && !nextHop.includes(':') && !reversePathOk(cfg, sender, m.iface)) {
      return false;
    }
    const iface = cfg.ifaces.get(m.iface);
    // A veth peer is no exception: it answers ARP by the same rules as any interface.
    if (iface?.addrs.some((a) => a.ip === nextHop)) return true;
    // arp_ignore=0: any local address of the host, on any interface, is answered.
    if (cfg.arpIgnore === 0 && isLocalAddr(cfg, nextHop) && !isLoopback(nextHop)) return true;
    const proxy = rt.spec.interfaces.find((i) => i.name === m.iface)?.proxyArp === true;
    return proxy && cfg.ipForward && proxyArpRoutes(cfg, nextHop, m.iface);
  });
  return answers[0] ?? null;
}

/** The other ends of `iface`'s segment. */
export function segmentPeers(net: Network, host: string, iface: string): Attachment[] {
  const seg = net.hosts.get(host)?.config.ifaces.get(iface)?.segment;
  if (!seg) return [];
  return (net.segments.get(seg) ?? []).filter((m) => !(m.host === host && m.iface === iface));
}

/** The host a frame sent out of `iface` reaches first (a veth's peer; the first on a LAN). */
export function wirePeer(net: Network, host: string, iface: string): Attachment | null {
  return segmentPeers(net, host, iface)[0] ?? null;
}

/**
 * Who can answer ARP (and receive the frame) out of `outIf`: the segment's other members, where
 * a member that is a bridge port stands for its bridge's whole broadcast domain (the bridge
 * device itself, then the hosts behind its other ports: br_flood); out of a bridge device, the
 * hosts behind its ports.
 */
function l2Members(net: Network, from: string, outIf: string): Attachment[] {
  const cfg = net.hosts.get(from)?.config;
  if (!cfg) return [];
  if (isBridge(cfg, outIf)) return portsOf(cfg, outIf).flatMap((p) => segmentPeers(net, from, p));
  return segmentPeers(net, from, outIf).flatMap((m) => {
    const mc = (net.hosts.get(m.host) as HostRuntime).config;
    const br = masterOf(mc, m.iface);
    if (!br) return [m];
    return [
      { host: m.host, iface: br },
      ...portsOf(mc, br)
        .filter((p) => p !== m.iface)
        .flatMap((p) => segmentPeers(net, m.host, p)),
    ];
  });
}

/** Where, seen from `bridge` on `host`, the ARP answerer `hop` sits: the bridge itself or a port. */
export function destBehind(
  net: Network,
  host: string,
  bridge: string,
  hop: Attachment | null | 'no-segment',
): BridgeDest | null {
  if (hop === null || hop === 'no-segment') return null;
  if (hop.host === host && hop.iface === bridge) return { kind: 'local' };
  const cfg = (net.hosts.get(host) as HostRuntime).config;
  for (const port of portsOf(cfg, bridge)) {
    if (segmentPeers(net, host, port).some((m) => m.host === hop.host && m.iface === hop.iface))
      return { kind: 'port', port, host: hop.host, iface: hop.iface };
  }
  return null;
}

/**
 * proxy_arp answers only for a target the host routes as unicast out of another interface
 * (net/ipv4/arp.c arp_process: ip_route_input_noref, then arp_fwd_proxy returns 0 when
 * rt->dst.dev is the interface the request came in on). A Calico-style `169.254.1.1` gateway
 * therefore needs a route (usually the node's default route) on the node: checked on Linux 6.18.
 */
function proxyArpRoutes(cfg: HostConfig, target: string, inIf: string): boolean {
  const devs = routeDevs(cfg, target);
  return devs !== null && devs.some((d) => d !== null && d !== inIf);
}

/** Output devices of the unicast route to `ip` (one per next hop), or null without one. */
function routeDevs(cfg: HostConfig, ip: string): (string | null)[] | null {
  const n = ipToNum(ip);
  const route = n === null ? null : longestMatch(cfg, n);
  if (!route || route.type !== 'unicast') return null;
  const devOf = (dev: string | null, via: string | null): string | null => {
    if (dev !== null || via === null) return dev;
    const vn = ipToNum(via);
    return (vn === null ? null : longestMatch(cfg, vn))?.dev ?? null;
  };
  return route.nexthops.length
    ? route.nexthops.map((h) => devOf(h.dev ?? route.dev, h.via))
    : [devOf(route.dev, route.via)];
}

/** fib_validate_source for rp_filter: 1 = the route back leaves by `inIf`, 2 = any route back. */
function reversePathOk(cfg: HostConfig, src: string, inIf: string): boolean {
  if (cfg.rpFilter === 0) return true;
  const devs = routeDevs(cfg, src);
  if (devs === null) return false;
  return cfg.rpFilter === 2 || devs.includes(inIf);
}
