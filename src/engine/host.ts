/** A host (a network namespace): interfaces, addresses, routes, sysctls, listening sockets, ipsets. */
import { fieldError, type Diagnostic } from './diagnostic.ts';
import {
  cidrContainsNum,
  formatIPv4,
  ipToNum,
  isLoopback,
  parseCidr,
  parseIPv4,
  parseIfAddr,
  type Cidr,
  type IfAddr,
} from './ip.ts';
import type { IpvsSpec } from './ipvs/spec.ts';
import type { L4Proto } from './packet.ts';

export type InterfaceKind = 'ether' | 'loopback' | 'dummy' | 'veth' | 'bridge';

/** Plain-data description of a host, as written in scenarios and CLI host files. */
export interface HostSpec {
  readonly name: string;
  readonly role?: 'node' | 'pod' | 'client' | 'router';
  readonly interfaces: readonly InterfaceSpec[];
  readonly routes?: readonly RouteSpec[];
  readonly sysctls?: SysctlSpec;
  readonly listeners?: readonly ListenerSpec[];
  readonly ipsets?: readonly IpsetSpec[];
  /** iptables-save text; empty or absent means no netfilter tables (and no conntrack). */
  readonly rules?: string;
  /**
   * Rules produced on demand (a generator's output), parsed when a packet first reaches the host.
   * Used instead of `rules` for large generated rulesets; must not contain errors.
   */
  readonly lazyRules?: () => string;
  /**
   * With lazyRules: the user chains whose rules are compiled when a packet first reaches them
   * (ParseOptions.deferChains), such as kube-proxy's per-Service chains.
   */
  readonly deferChains?: (chain: string) => boolean;
  /** ip6tables-save text, the IPv6 ruleset (IPv6 packets traverse only this one). */
  readonly rules6?: string;
  /**
   * An nftables ruleset as `nft -f` reads it (`nft list ruleset` text, a transaction file of
   * `add table/chain/rule/element` lines, or `nft -j list ruleset` JSON), beside the iptables
   * rules: on a real node kube-proxy's `ip kube-proxy` table sits next to the host firewall's
   * iptables-nft tables, and every base chain of both runs at its hook by priority.
   */
  readonly nftables?: string;
  /** Like `lazyRules`, for a generated nft ruleset (parsed when a packet first reaches the host). */
  readonly lazyNftables?: () => string;
  /**
   * With lazyNftables: the chains whose `add rule` lines are compiled when a packet first reaches
   * them (NftParseOptions.deferChains), such as kube-proxy's per-Service chains.
   */
  readonly deferNftChains?: (chain: string) => boolean;
  /** The IPVS table (kube-proxy's IPVS mode); absent means no IPVS virtual service. */
  readonly ipvs?: IpvsSpec;
  /**
   * A generator's host (a cluster's pods): built when the network is first asked for it (a
   * packet reaches it, a probe starts on it), not with the network. Must have no problems: one
   * then throws, as lazyRules' errors do.
   */
  readonly generated?: boolean;
}

export interface InterfaceSpec {
  readonly name: string;
  /**
   * `192.168.50.38/24`, `192.168.50.100/32` (a VIP), ...; `10.0.0.1/24 scope link` sets the
   * address scope as `ip addr add ... scope link` does (default: host for 127/8, else global).
   */
  readonly addresses: readonly string[];
  readonly kind?: InterfaceKind;
  /** The L2 segment (LAN, or a veth pair) this interface is plugged into. */
  readonly segment?: string;
  /** Answer ARP for any local address on behalf of the host (Linux default, arp_ignore=0). */
  readonly proxyArp?: boolean;
  /**
   * The bridge (an interface of kind `bridge` on the same host) this interface is a port of
   * (`ip link set vethX master cni0`). A port hands every frame to its bridge
   * (net/bridge/br_input.c br_handle_frame): the host's IP stack sees the bridge, not the port.
   */
  readonly master?: string;
  /**
   * Bridge port hairpin mode (`ip link set vethX type bridge_slave hairpin on`): the bridge may
   * send a frame back out of the port it came in on (net/bridge/br_forward.c should_deliver).
   */
  readonly hairpin?: boolean;
}

export interface RouteSpec {
  /** Destination prefix or `default`. */
  readonly to: string;
  readonly via?: string;
  readonly dev?: string;
  readonly src?: string;
  readonly metric?: number;
  readonly type?: 'unicast' | 'blackhole' | 'unreachable' | 'prohibit';
  /** ECMP: several next hops, chosen per flow. */
  readonly nexthops?: readonly {
    readonly via: string;
    readonly dev?: string;
    readonly weight?: number;
  }[];
}

export interface SysctlSpec {
  /** net.ipv4.ip_forward */
  readonly ipForward?: boolean;
  /** net.ipv4.conf.all.route_localnet (true), or per interface names. */
  readonly routeLocalnet?: boolean | readonly string[];
  /** net.ipv4.conf.*.rp_filter: 0 off, 1 strict, 2 loose. */
  readonly rpFilter?: 0 | 1 | 2;
  /** net.ipv4.conf.all.arp_ignore: 0 answers ARP for any local address on any interface. */
  readonly arpIgnore?: 0 | 1 | 2;
  /** net.ipv4.conf.all.accept_local */
  readonly acceptLocal?: boolean;
  /**
   * net.bridge.bridge-nf-call-iptables (per network namespace since Linux 5.3): bridged IPv4
   * frames traverse the iptables hooks (br_netfilter). Default true: the kernel's default once
   * br_netfilter is loaded (net/bridge/br_netfilter_hooks.c brnf_init_net: call_iptables = 1).
   */
  readonly bridgeNfCallIptables?: boolean;
}

export interface ListenerSpec {
  /** Process name, e.g. `sshd`. */
  readonly process: string;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  /** Bind address; `0.0.0.0` for any. */
  readonly address: string;
  readonly port: number;
  /** What the process answers (a banner like `SSH-2.0-OpenSSH_10.3`). */
  readonly reply?: string;
}

export interface IpsetSpec {
  readonly name: string;
  /** `hash:ip`, `hash:net`, `hash:ip,port`, `hash:ip,port,ip`, `hash:ip,port,net`, `bitmap:port`. */
  readonly type: string;
  readonly entries: readonly string[];
}

/**
 * An interface address as the kernel keeps it (struct in_ifaddr): its scope (RT_SCOPE_UNIVERSE,
 * LINK, HOST) and whether it is secondary (IFA_F_SECONDARY: a later address in the same subnet,
 * with the same prefix length, as an earlier one; __inet_insert_ifa in net/ipv4/devinet.c).
 */
export interface HostAddr extends IfAddr {
  readonly scope: AddrScope;
  readonly secondary: boolean;
}

/** rtm_scope of an address or route: global (RT_SCOPE_UNIVERSE, 0) < link (253) < host (254). */
export type AddrScope = 'global' | 'link' | 'host';

const SCOPE_RANK: Readonly<Record<AddrScope, number>> = { global: 0, link: 253, host: 254 };

export interface Iface {
  readonly name: string;
  readonly kind: InterfaceKind;
  /** In the kernel's list order: primaries (in the order added), then secondaries. */
  readonly addrs: readonly HostAddr[];
  readonly segment: string | null;
  /** The bridge this interface is a port of, or null. */
  readonly master: string | null;
  /** Bridge port hairpin mode (BR_HAIRPIN_MODE). */
  readonly hairpin: boolean;
}

export interface Route {
  readonly dst: Cidr;
  readonly dev: string | null;
  readonly via: string | null;
  readonly src: string | null;
  readonly metric: number;
  readonly type: 'unicast' | 'blackhole' | 'unreachable' | 'prohibit' | 'local';
  /**
   * fib_scope: link for routes without a gateway (connected, `dev` only: iproute2's default),
   * global for routes via a gateway. The source of a route without `src` is picked in this scope.
   */
  readonly scope: AddrScope;
  readonly nexthops: readonly { via: string; dev: string | null; weight: number }[];
  /** `ip route` style text, for traces. */
  readonly text: string;
  /** Added by the kernel for an interface address. */
  readonly connected: boolean;
}

export interface Listener {
  readonly process: string;
  readonly proto: L4Proto;
  readonly address: string;
  readonly port: number;
  readonly reply: string;
}

/** Derived, read-only view of a HostSpec used by the stack. */
export interface HostConfig {
  readonly name: string;
  readonly role: HostSpec['role'];
  readonly ifaces: ReadonlyMap<string, Iface>;
  /** Local addresses (the kernel's `local` table) mapped to the interface holding them. */
  readonly local: ReadonlyMap<string, string>;
  readonly routes: readonly Route[];
  readonly ipForward: boolean;
  readonly routeLocalnet: (iface: string) => boolean;
  readonly rpFilter: 0 | 1 | 2;
  readonly arpIgnore: 0 | 1 | 2;
  readonly acceptLocal: boolean;
  /** net.bridge.bridge-nf-call-iptables */
  readonly bridgeNfCallIptables: boolean;
  readonly listeners: readonly Listener[];
  readonly ipsets: ReadonlyMap<string, IpsetSpec>;
}

/** Builds the kernel-side view of a host: connected routes, local table, loopback. */
export function buildHostConfig(spec: HostSpec): {
  config: HostConfig;
  problems: Diagnostic[];
} {
  const problems: Diagnostic[] = [];
  const ifaces = interfacesOf(spec, problems);
  checkBridgePorts(spec, ifaces, problems);
  const local = new Map<string, string>();
  const routes: Route[] = connectedRoutes(ifaces, local);
  routes.push(...staticRoutes(spec, ifaces, problems));
  const rl = spec.sysctls?.routeLocalnet;
  const routeLocalnet = (iface: string) => (Array.isArray(rl) ? rl.includes(iface) : rl === true);
  const listeners: Listener[] = (spec.listeners ?? []).map((l) => ({
    process: l.process,
    proto: l.proto,
    address: l.address,
    port: l.port,
    reply: l.reply ?? `${l.process}@${spec.name}`,
  }));
  const ipsets = new Map((spec.ipsets ?? []).map((s) => [s.name, s]));
  return {
    config: {
      name: spec.name,
      role: spec.role,
      ifaces,
      local,
      routes,
      ipForward: spec.sysctls?.ipForward ?? false,
      routeLocalnet,
      rpFilter: spec.sysctls?.rpFilter ?? 0,
      arpIgnore: spec.sysctls?.arpIgnore ?? 0,
      acceptLocal: spec.sysctls?.acceptLocal ?? false,
      bridgeNfCallIptables: spec.sysctls?.bridgeNfCallIptables ?? true,
      listeners,
      ipsets,
    },
    problems,
  };
}

/** The host's interfaces and their addresses, lo first (with both loopback addresses). */
function interfacesOf(spec: HostSpec, problems: Diagnostic[]): Map<string, Iface> {
  const ifaces = new Map<string, Iface>();
  const lo: Iface = {
    name: 'lo',
    kind: 'loopback',
    // Linux gives lo both loopback addresses.
    addrs: [
      { ip: '127.0.0.1', prefix: 8, family: 4, scope: 'host', secondary: false },
      { ip: '::1', prefix: 128, family: 6, scope: 'host', secondary: false },
    ],
    segment: null,
    master: null,
    hairpin: false,
  };
  ifaces.set('lo', lo);
  spec.interfaces.forEach((is, i) => {
    const addrs: HostAddr[] = is.name === 'lo' ? [...lo.addrs] : [];
    is.addresses.forEach((a, j) => {
      const parsed = parseHostAddr(a, addrs);
      if (!parsed)
        problems.push(
          fieldError(
            `interfaces[${i}].addresses[${j}]`,
            `'${a}' is not an address like 192.168.1.10/24 (optionally followed by scope link or scope host)`,
          ),
        );
      else insertAddr(addrs, parsed);
    });
    if (is.name === 'lo') {
      ifaces.set('lo', { ...lo, addrs });
      return;
    }
    if (ifaces.has(is.name))
      problems.push(fieldError(`interfaces[${i}].name`, `interface ${is.name} is defined twice`));
    ifaces.set(is.name, {
      name: is.name,
      kind: is.kind ?? 'ether',
      addrs,
      segment: is.segment ?? null,
      master: is.master ?? null,
      hairpin: is.hairpin ?? false,
    });
  });
  return ifaces;
}

/** A bridge port's master must be a bridge of the host; bridges and lo are never ports. */
function checkBridgePorts(
  spec: HostSpec,
  ifaces: ReadonlyMap<string, Iface>,
  problems: Diagnostic[],
): void {
  spec.interfaces.forEach((is, i) => {
    if (is.master === undefined) return;
    const br = ifaces.get(is.master);
    if (!br || br.kind !== 'bridge')
      problems.push(
        fieldError(
          `interfaces[${i}].master`,
          `${is.master} is not an interface of kind bridge on ${spec.name}`,
        ),
      );
    else if (is.kind === 'bridge' || is.name === 'lo')
      problems.push(
        fieldError(
          `interfaces[${i}].master`,
          `${is.name} cannot be a bridge port (only ether and veth interfaces can)`,
        ),
      );
  });
}

/** The local table (address -> interface) and each primary address's prefix route. */
function connectedRoutes(ifaces: ReadonlyMap<string, Iface>, local: Map<string, string>): Route[] {
  const routes: Route[] = [];
  for (const iface of ifaces.values()) {
    for (const a of iface.addrs) {
      if (!local.has(a.ip)) local.set(a.ip, iface.name);
      const net = parseCidr(`${a.ip}/${a.prefix}`) as Cidr;
      if (iface.kind === 'loopback') continue;
      if (a.prefix === (a.family === 4 ? 32 : 128)) continue;
      // fib_add_ifaddr: a secondary shares its primary's prefix route.
      if (a.secondary) continue;
      routes.push({
        dst: net,
        dev: iface.name,
        via: null,
        src: a.ip,
        metric: 0,
        type: 'unicast',
        scope: 'link',
        nexthops: [],
        text: `${net.text} dev ${iface.name} proto kernel scope link src ${a.ip}`,
        connected: true,
      });
    }
  }
  return routes;
}

/**
 * Routes by the spec they were compiled from. A route is read from its spec alone (an interface
 * it names is checked against each host apart), and cluster builders share one spec among many
 * hosts: a routed CNI gives each of N nodes a route to each other node's pods.
 */
const compiledRoutes = new WeakMap<RouteSpec, Route>();

/** The spec's own routes (`ip route add ...`), checked, with their `ip route` text. */
function staticRoutes(
  spec: HostSpec,
  ifaces: ReadonlyMap<string, Iface>,
  problems: Diagnostic[],
): Route[] {
  const routes: Route[] = [];
  (spec.routes ?? []).forEach((r, i) => {
    const known = compiledRoutes.get(r);
    if (known && (r.dev === undefined || ifaces.has(r.dev))) {
      routes.push(known);
      return;
    }
    const field = `routes[${i}]`;
    const dst = r.to === 'default' ? parseCidr('0.0.0.0/0') : parseCidr(r.to);
    if (!dst) {
      problems.push(
        fieldError(`${field}.to`, `'${r.to}' is not a prefix like 10.244.0.0/16 or 'default'`),
      );
      return;
    }
    if (r.dev !== undefined && !ifaces.has(r.dev)) {
      problems.push(fieldError(`${field}.dev`, `no interface named ${r.dev}`));
      return;
    }
    const hops = (r.nexthops ?? []).map((h) => ({
      via: h.via,
      dev: h.dev ?? null,
      weight: h.weight ?? 1,
    }));
    for (const [k, h] of hops.entries()) {
      if (parseIPv4(h.via) === null)
        problems.push(
          fieldError(`${field}.nexthops[${k}].via`, `'${h.via}' is not an IPv4 address`),
        );
    }
    if (r.via !== undefined && ipToNum(r.via) === null) {
      problems.push(fieldError(`${field}.via`, `'${r.via}' is not an address`));
      return;
    }
    const type = r.type ?? 'unicast';
    let text =
      type === 'unicast' ? (r.to === 'default' ? 'default' : dst.text) : `${type} ${dst.text}`;
    if (r.via) text += ` via ${r.via}`;
    if (r.dev) text += ` dev ${r.dev}`;
    for (const h of hops)
      text += ` nexthop via ${h.via}${h.dev ? ` dev ${h.dev}` : ''} weight ${h.weight}`;
    if (r.src) text += ` src ${r.src}`;
    if (r.metric) text += ` metric ${r.metric}`;
    const route: Route = {
      dst,
      dev: r.dev ?? null,
      via: r.via ?? null,
      src: r.src ?? null,
      metric: r.metric ?? 0,
      type,
      scope: r.via || hops.length ? 'global' : 'link',
      nexthops: hops,
      text,
      connected: false,
    };
    // Only a route without problems: a bad next hop is reported for every host that has it.
    if (!hops.some((h) => parseIPv4(h.via) === null)) compiledRoutes.set(r, route);
    routes.push(route);
  });
  return routes;
}

/** True when `ip` is an address of this host (the kernel's local table; all of 127/8 is local). */
export function isLocalAddr(h: HostConfig, ip: string): boolean {
  return h.local.has(ip) || isLoopback(ip);
}

/** The interface a local address lives on (`lo` for 127/8). */
export function localIface(h: HostConfig, ip: string): string | null {
  return h.local.get(ip) ?? (isLoopback(ip) ? 'lo' : null);
}

export type AddrType =
  | 'UNSPEC'
  | 'UNICAST'
  | 'LOCAL'
  | 'BROADCAST'
  | 'ANYCAST'
  | 'MULTICAST'
  | 'BLACKHOLE'
  | 'UNREACHABLE'
  | 'PROHIBIT';

/** inet_addr_type / inet_dev_addr_type: what the routing tables say an address is. */
export function addrType(h: HostConfig, ip: string, limitIface: string | null): AddrType {
  const n = ipToNum(ip);
  if (n === null) return 'UNSPEC';
  if (n === 0 || n === 0n) return 'UNSPEC';
  if (typeof n === 'number') {
    if (n >>> 28 === 0xe) return 'MULTICAST';
    if (n === 0xffffffff) return 'BROADCAST';
  }
  const where = localIface(h, ip);
  if (where !== null && (limitIface === null || where === limitIface)) return 'LOCAL';
  for (const iface of h.ifaces.values()) {
    if (limitIface !== null && iface.name !== limitIface) continue;
    for (const a of iface.addrs) {
      if (a.family !== 4 || a.prefix >= 31 || typeof n !== 'number') continue;
      const base = parseIPv4(a.ip) as number;
      const mask = (0xffffffff << (32 - a.prefix)) >>> 0;
      if ((n | mask) >>> 0 === n && (base & mask) >>> 0 === (n & mask) >>> 0) return 'BROADCAST';
    }
  }
  const r = longestMatch(h, n);
  if (r && r.type !== 'unicast' && r.type !== 'local') {
    return r.type === 'blackhole'
      ? 'BLACKHOLE'
      : r.type === 'unreachable'
        ? 'UNREACHABLE'
        : 'PROHIBIT';
  }
  return 'UNICAST';
}

/** Longest-prefix match over the main table (lowest metric wins a tie). */
export function longestMatch(h: HostConfig, n: number | bigint): Route | null {
  let best: Route | null = null;
  for (const r of h.routes) {
    if (!cidrContainsNum(r.dst, n)) continue;
    if (
      !best ||
      r.dst.prefix > best.dst.prefix ||
      (r.dst.prefix === best.dst.prefix && r.metric < best.metric)
    )
      best = r;
  }
  return best;
}

/** One address of `parseHostAddr`'s text: `ip/prefix` and an optional `scope link|host|global`. */
function parseHostAddr(text: string, earlier: readonly HostAddr[]): HostAddr | null {
  const words = text.trim().split(/\s+/);
  const base = parseIfAddr(words[0] ?? '');
  if (!base) return null;
  let scope: AddrScope = isLoopback(base.ip) ? 'host' : 'global';
  if (words.length === 3 && words[1] === 'scope') {
    const w = words[2] === 'universe' ? 'global' : words[2];
    if (w !== 'global' && w !== 'link' && w !== 'host') return null;
    scope = w;
  } else if (words.length !== 1) return null;
  // __inet_insert_ifa: an address whose mask and subnet equal an earlier one's is secondary.
  const secondary =
    base.family === 4 &&
    earlier.some((e) => e.family === 4 && e.prefix === base.prefix && sameSubnet(e, base));
  return { ...base, scope, secondary };
}

function sameSubnet(a: IfAddr, b: IfAddr): boolean {
  const x = parseIPv4(a.ip);
  const y = parseIPv4(b.ip);
  if (x === null || y === null) return false;
  const mask = a.prefix === 0 ? 0 : (0xffffffff << (32 - a.prefix)) >>> 0;
  return (x & mask) >>> 0 === (y & mask) >>> 0;
}

/**
 * __inet_insert_ifa's list order: a secondary goes to the end; a primary goes after the last
 * primary whose scope is not narrower than its own (so global addresses precede link ones).
 */
function insertAddr(list: HostAddr[], a: HostAddr): void {
  if (a.secondary) {
    list.push(a);
    return;
  }
  let at = 0;
  list.forEach((x, i) => {
    if (!x.secondary && SCOPE_RANK[a.scope] <= SCOPE_RANK[x.scope]) at = i + 1;
  });
  list.splice(at, 0, a);
}

/**
 * inet_select_addr (net/ipv4/devinet.c, Linux 6.18): the source address the kernel picks on
 * `iface` for `toward` (a next hop, or null: "any"), in `scope` — RT_SCOPE_UNIVERSE for
 * MASQUERADE (nf_nat_masquerade_ipv4) and gateway routes, RT_SCOPE_LINK for ARP requests
 * (arp_solicit) and routes without a gateway (fib_result_prefsrc with the route's fib_scope).
 * Secondaries are never chosen; on the device an address whose scope is narrower than asked for
 * (127.0.0.1 is scope host) is skipped, except that route_localnet widens host scope to link; the
 * first primary in the subnet of `toward` wins, else its first eligible primary. With none,
 * in_dev_select_addr walks every device in order, lo first, and takes the first primary whose
 * scope is not link and not narrower than asked for (route_localnet plays no part there).
 */
export function selectSourceAddr(
  h: HostConfig,
  iface: string,
  toward: string | null,
  scope: AddrScope = 'global',
): string | null {
  const want = SCOPE_RANK[scope];
  const dev = h.ifaces.get(iface);
  if (dev) {
    const localnet = h.routeLocalnet(dev.name) ? SCOPE_RANK.link : SCOPE_RANK.host;
    const cands = dev.addrs.filter(
      (a) => a.family === 4 && !a.secondary && Math.min(SCOPE_RANK[a.scope], localnet) <= want,
    );
    const t = toward === null ? null : parseIPv4(toward);
    if (t !== null && t !== 0) {
      // inet_ifa_match: the destination is in the address's subnet (a /32 matches itself).
      const hit = cands.find((a) => {
        const c = parseCidr(`${a.ip}/${a.prefix}`);
        return c !== null && cidrContainsNum(c, t);
      });
      if (hit) return hit.ip;
    }
    if (cands[0]) return cands[0].ip;
  }
  for (const other of h.ifaces.values()) {
    const a = other.addrs.find(
      (x) => x.family === 4 && !x.secondary && x.scope !== 'link' && SCOPE_RANK[x.scope] <= want,
    );
    if (a) return a.ip;
  }
  return null;
}

export function formatAddr(n: number): string {
  return formatIPv4(n);
}

/**
 * The source address a new connection to `dst` gets (ip_route_output_key_hash_rcu in
 * net/ipv4/route.c): for a local destination the local route's prefsrc (the address itself,
 * 127.0.0.1 for 127/8); else fib_result_prefsrc — the route's `src`, or inet_select_addr on the
 * route's device towards its gateway (none for a route without one) in the route's scope.
 */
export function sourceAddressFor(h: HostConfig, dst: string): string | null {
  if (isLocalAddr(h, dst)) return isLoopback(dst) ? (dst.includes(':') ? '::1' : '127.0.0.1') : dst;
  const n = ipToNum(dst);
  const r = n === null ? null : longestMatch(h, n);
  if (!r || r.type !== 'unicast') return null;
  if (r.src) return r.src;
  const hop = r.nexthops[0];
  const via = hop?.via ?? r.via;
  let dev = hop?.dev ?? r.dev;
  if (!dev && via) {
    const vn = ipToNum(via);
    dev = (vn === null ? null : longestMatch(h, vn))?.dev ?? null;
  }
  return dev ? routeSource(h, r, dev, via) : null;
}

/** fib_result_prefsrc: a route's `src`, else inet_select_addr(dev, gateway, fib_scope). */
export function routeSource(
  h: HostConfig,
  r: Route,
  dev: string,
  gateway: string | null,
): string | null {
  return r.src ?? selectSourceAddr(h, dev, gateway, r.scope);
}
