/**
 * Builds a NetworkSpec (the engine's own input) as real, isolated network namespaces: one per
 * host, a bridge in its own "switch" namespace for every L2 segment with more than two members,
 * a direct veth pair for two-member segments. Nothing is ever attached to the root namespace.
 */
import type { ChildProcess } from 'node:child_process';
import type { HostSpec, InterfaceSpec, NetworkSpec, RouteSpec } from '../engine/index.ts';
import {
  RUN_PREFIX,
  deleteNamespaces,
  deleteStaleNamespaces,
  ipBatch,
  nsRun,
  run,
  sanitize,
} from './netns.ts';

export interface Topology {
  readonly spec: NetworkSpec;
  /** Host name -> namespace name. */
  readonly ns: ReadonlyMap<string, string>;
  /** Namespaces holding a bridge, one per multi-member segment. */
  readonly switches: ReadonlyMap<string, string>;
  /** Processes started inside the namespaces (listeners, monitors); killed by teardown. */
  readonly children: Set<ChildProcess>;
  teardown(): void;
}

const live = new Set<Topology>();
let handlersInstalled = false;

/** Namespaces must disappear even when a test throws or the process is interrupted. */
function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const all = () => {
    for (const t of [...live]) t.teardown();
  };
  process.on('exit', all);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      all();
      process.exit(130);
    });
  }
}

let topologyCount = 0;

/**
 * Creates every namespace, link, address, route, sysctl, ipset and ruleset of `spec`. Commands
 * are batched (one `ip -batch` for all namespaces and links, one per namespace for addresses and
 * routes, one shell per host for sysctls and rules): each exec into a namespace costs ~20 ms.
 */
export function buildTopology(spec: NetworkSpec): Topology {
  deleteStaleNamespaces();
  installExitHandlers();
  // One run may build several topologies one after another; keep their names apart.
  const prefix = `${RUN_PREFIX}-${topologyCount++}`;
  const ns = new Map<string, string>();
  const switches = new Map<string, string>();
  const created: string[] = [];
  const children = new Set<ChildProcess>();
  const topo: Topology = {
    spec,
    ns,
    switches,
    children,
    teardown() {
      for (const c of children) {
        if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) c.kill('SIGKILL');
      }
      children.clear();
      deleteNamespaces(created.splice(0));
      live.delete(topo);
    },
  };
  live.add(topo);
  try {
    const used = new Set<string>();
    const unique = (base: string) => {
      let name = base;
      for (let k = 2; used.has(name); k++) name = `${base.slice(0, 36)}${k}`;
      used.add(name);
      created.push(name);
      return name;
    };
    for (const h of spec.hosts) ns.set(h.name, unique(`${prefix}-${sanitize(h.name, 24)}`));
    // Links are created from the root namespace's `ip`, but straight inside their target
    // namespaces (IFLA_NET_NS_FD): nothing ever appears in the root namespace.
    const links: string[] = [];
    const setup = new Map<string, string[]>();
    const later = (n: string, line: string) => setup.set(n, [...(setup.get(n) ?? []), line]);
    // An interface on no segment (or alone on one): a veth whose peer sits in an empty "void"
    // namespace, so frames sent there vanish. (Kernels without the dummy module are common in
    // CI sandboxes; a veth is always there.)
    let voidNs: string | null = null;
    let voidLegs = 0;
    const unplugged = (host: string, iface: string) => {
      voidNs ??= unique(`${prefix}s-void`);
      const leg = `v${voidLegs++}`;
      links.push(
        `link add ${iface} netns ${nsOf(ns, host)} type veth peer name ${leg} netns ${voidNs}`,
      );
      later(voidNs, `link set ${leg} up`);
    };
    const segments = new Map<string, { host: HostSpec; iface: InterfaceSpec }[]>();
    for (const h of spec.hosts) {
      for (const i of h.interfaces) {
        if (i.name === 'lo') continue;
        checkIfName(h.name, i.name);
        if (i.kind === 'bridge') {
          // A pod bridge (cni0): STP off, so its ports forward at once (no listening/learning).
          links.push(`link add ${i.name} netns ${nsOf(ns, h.name)} type bridge stp_state 0`);
          continue;
        }
        if (!i.segment) {
          unplugged(h.name, i.name);
          continue;
        }
        segments.set(i.segment, [...(segments.get(i.segment) ?? []), { host: h, iface: i }]);
      }
    }
    for (const [seg, members] of segments) {
      const [a, b] = members as [(typeof members)[number], (typeof members)[number]];
      if (members.length === 1) unplugged(a.host.name, a.iface.name);
      else if (members.length === 2) {
        links.push(
          `link add ${a.iface.name} netns ${nsOf(ns, a.host.name)} type veth peer name ${b.iface.name} netns ${nsOf(ns, b.host.name)}`,
        );
      } else {
        const sw = unique(`${prefix}s-${sanitize(seg, 24)}`);
        switches.set(seg, sw);
        // STP off: ports forward at once instead of spending forward_delay in listening/learning.
        // Snooping off: a snooping bridge joins the all-snoopers group 224.0.0.106 as it comes up
        // (net/bridge/br_multicast.c, br_multicast_join_snoopers) and its IGMPv3 reports, from
        // 0.0.0.0, reach every host of the segment within its first seconds: a traced packet
        // beside the first probe's (a flaky trace fixture). A plain switch floods, as the
        // engine's segments do.
        links.push(`link add br0 netns ${sw} type bridge stp_state 0 mcast_snooping 0`);
        later(sw, 'link set br0 up');
        members.forEach((m, k) => {
          links.push(
            `link add ${m.iface.name} netns ${nsOf(ns, m.host.name)} type veth peer name l${k} netns ${sw}`,
          );
          later(sw, `link set l${k} master br0`);
          later(sw, `link set l${k} up`);
        });
      }
    }
    run(
      'ip',
      ['-batch', '-'],
      `${[...created.map((n) => `netns add ${n}`), ...links].join('\n')}\n`,
    );
    for (const n of [...switches.values(), ...(voidNs ? [voidNs] : [])]) {
      ipBatch(n, setup.get(n) ?? []);
      setSysctls(n, { 'net/ipv6/conf/all/disable_ipv6': '1' }, '');
    }
    for (const h of spec.hosts) configureHost(nsOf(ns, h.name), h);
    pinArpOwners(spec, ns);
    return topo;
  } catch (e) {
    topo.teardown();
    throw e;
  }
}

/**
 * `arpOwners` (kube-vip leader, MetalLB L2 speaker): the other hosts on the owner's segments
 * get a permanent neighbour entry for the address, as their caches hold after the owner's
 * gratuitous ARP. Holders that are not the owner would otherwise race to answer.
 */
function pinArpOwners(spec: NetworkSpec, ns: ReadonlyMap<string, string>): void {
  for (const [ip, owner] of Object.entries(spec.arpOwners ?? {})) {
    const o = spec.hosts.find((h) => h.name === owner);
    for (const oi of o?.interfaces ?? []) {
      if (!oi.segment) continue;
      const link = JSON.parse(
        run('ip', ['-n', nsOf(ns, owner), '-j', 'link', 'show', 'dev', oi.name]),
      ) as { address: string }[];
      const mac = link[0]?.address;
      if (!mac) continue;
      for (const h of spec.hosts) {
        if (h.name === owner) continue;
        for (const i of h.interfaces) {
          if (i.segment !== oi.segment) continue;
          ipBatch(nsOf(ns, h.name), [
            `neigh replace ${ip} lladdr ${mac} dev ${i.name} nud permanent`,
          ]);
        }
      }
    }
  }
}

function nsOf(ns: ReadonlyMap<string, string>, host: string): string {
  const n = ns.get(host);
  if (!n) throw new Error(`no namespace for host ${host}`);
  return n;
}

function checkIfName(host: string, name: string): void {
  // IFNAMSIZ is 16 including the NUL; '/' and spaces are refused by the kernel.
  if (name.length > 15 || !/^[A-Za-z0-9_.@:-]+$/.test(name)) {
    throw new Error(`host ${host}: interface name '${name}' cannot exist in Linux (max 15 chars)`);
  }
}

/** The `ip -batch` line for one RouteSpec (the family follows from the addresses). */
export function routeCommand(r: RouteSpec): string {
  const v6 = (r.via ?? r.nexthops?.[0]?.via ?? r.to).includes(':');
  const parts = ['route', 'add'];
  if (r.type && r.type !== 'unicast') parts.push(r.type);
  parts.push(r.to === 'default' && v6 ? '::/0' : r.to);
  if (r.via) parts.push('via', r.via);
  if (r.dev) parts.push('dev', r.dev);
  for (const h of r.nexthops ?? []) {
    parts.push('nexthop', 'via', h.via);
    if (h.dev) parts.push('dev', h.dev);
    parts.push('weight', String(h.weight ?? 1));
  }
  if (r.src) parts.push('src', r.src);
  if (r.metric) parts.push('metric', String(r.metric));
  return parts.join(' ');
}

/** Sets sysctls and then runs `then` (a shell command reading `input`), in one exec. */
function setSysctls(
  ns: string,
  values: Readonly<Record<string, string>>,
  then: string,
  input?: string,
): void {
  const args = Object.entries(values).map(([k, v]) => `${k}=${v}`);
  nsRun(ns, 'sh', ['-c', `sysctl -q -w "$@" ${then}`, 'sh', ...args], input);
}

function configureHost(ns: string, h: HostSpec): void {
  // Routes after addresses and in spec order: a gateway must be reachable by an earlier route.
  const lines: string[] = ['link set lo up'];
  // Bridge ports first (ip link set vethX master cni0), then their hairpin mode.
  for (const i of h.interfaces) {
    if (!i.master) continue;
    lines.push(`link set ${i.name} master ${i.master}`);
    if (i.hairpin) lines.push(`link set ${i.name} type bridge_slave hairpin on`);
  }
  for (const i of h.interfaces) {
    for (const a of i.addresses) lines.push(`addr add ${a} dev ${i.name}`);
    if (i.name !== 'lo') lines.push(`link set ${i.name} up`);
  }
  ipBatch(ns, [...lines, ...(h.routes ?? []).map(routeCommand)]);
  for (const set of h.ipsets ?? []) {
    const cmds = [
      `create ${set.name} ${set.type}`,
      ...set.entries.map((e) => `add ${set.name} ${e}`),
    ];
    nsRun(ns, 'ipset', ['restore'], `${cmds.join('\n')}\n`);
  }
  const rules = (h.rules ?? '').trim() !== '';
  setSysctls(ns, hostSysctls(h), rules ? '&& iptables-restore' : '', rules ? h.rules : undefined);
  if (h.rules6 && h.rules6.trim() !== '') nsRun(ns, 'ip6tables-restore', [], h.rules6);
  // kube-proxy's nftables mode: its own table, loaded as kube-proxy loads it (nft -f), after
  // iptables, as the engine assumes: at equal priorities the hook registered last runs first
  // (src/engine/nft/hooks.ts).
  if (h.nftables && h.nftables.trim() !== '') nsRun(ns, 'nft', ['-f', '-'], h.nftables);
}

/** Applies a host's `sysctls` (and the harness's own settings) to its namespace again. */
export function applySysctls(ns: string, h: HostSpec): void {
  setSysctls(ns, hostSysctls(h), '');
}

/** The sysctl keys and values that make a namespace behave as the HostSpec says. */
function hostSysctls(h: HostSpec): Record<string, string> {
  const s = h.sysctls ?? {};
  const rp = String(s.rpFilter ?? 0);
  // IPv6 off unless the host uses it: no router solicitations or DAD in the traces.
  const v6 = h.interfaces.some((i) => i.addresses.some((a) => a.includes(':'))) || !!h.rules6;
  const values: Record<string, string> = {
    'net/ipv6/conf/all/disable_ipv6': v6 ? '0' : '1',
    'net/ipv4/ip_forward': s.ipForward ? '1' : '0',
    // rp_filter is max(all, iface): set both, 0 unless the spec says otherwise.
    'net/ipv4/conf/all/rp_filter': rp,
    'net/ipv4/conf/default/rp_filter': rp,
    'net/ipv4/conf/all/arp_ignore': String(s.arpIgnore ?? 0),
    'net/ipv4/conf/all/accept_local': s.acceptLocal ? '1' : '0',
    'net/ipv4/conf/all/route_localnet': s.routeLocalnet === true ? '1' : '0',
  };
  // br_netfilter's switch is per network namespace (Linux 5.3+); only hosts with a bridge of
  // their own get it (the harness's segment switches have no rules at all).
  if (h.interfaces.some((i) => i.kind === 'bridge'))
    values['net/bridge/bridge-nf-call-iptables'] = s.bridgeNfCallIptables === false ? '0' : '1';
  for (const i of h.interfaces) {
    // Slash-separated keys: a dot in an interface name (eth0.100) stays a dot.
    const key = `net/ipv4/conf/${i.name}`;
    values[`${key}/rp_filter`] = rp;
    values[`${key}/route_localnet`] =
      Array.isArray(s.routeLocalnet) && s.routeLocalnet.includes(i.name) ? '1' : '0';
    if (i.name !== 'lo') {
      // Timing only, never outcomes: an unanswered ARP gives up after 3 x 100 ms instead of
      // 3 x 1 s, so "no host answers ARP" (EHOSTUNREACH, ICMP host unreachable) shows up
      // within a probe's 1.5 s rather than as a timeout.
      values[`net/ipv4/neigh/${i.name}/retrans_time_ms`] = '100';
    }
    if (i.proxyArp) {
      values[`${key}/proxy_arp`] = '1';
      // Proxy replies to broadcast requests are otherwise delayed by up to 0.8 s at random.
      values[`net/ipv4/neigh/${i.name}/proxy_delay`] = '0';
    }
  }
  return values;
}
