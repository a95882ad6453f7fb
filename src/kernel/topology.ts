/**
 * Builds a NetworkSpec (the engine's own input) as real, isolated network namespaces: one per
 * host, a bridge in its own "switch" namespace for every L2 segment with more than two members,
 * a direct veth pair for two-member segments. Nothing is ever attached to the root namespace.
 */
import type { ChildProcess } from 'node:child_process';
import type { HostSpec, InterfaceSpec, NetworkSpec, RouteSpec } from '../engine/index.ts';
import {
  RUN_PREFIX,
  deleteNamespace,
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

/** Creates every namespace, link, address, route, sysctl, ipset and ruleset of `spec`. */
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
      for (const n of created.splice(0)) deleteNamespace(n);
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
      return name;
    };
    const addNs = (name: string) => {
      run('ip', ['netns', 'add', name]);
      created.push(name);
      baseSysctls(name, false);
    };
    for (const h of spec.hosts) {
      const name = unique(`${prefix}-${sanitize(h.name, 24)}`);
      ns.set(h.name, name);
      addNs(name);
    }
    // An interface on no segment (or alone on one): a veth whose peer sits in an empty "void"
    // namespace, so frames sent there vanish. (Kernels without the dummy module are common in
    // CI sandboxes; a veth is always there.)
    let voidNs: string | null = null;
    let voidLegs = 0;
    const unplugged = (host: string, iface: string) => {
      if (!voidNs) {
        voidNs = unique(`${prefix}s-void`);
        addNs(voidNs);
      }
      const leg = `v${voidLegs++}`;
      ipBatch(nsOf(ns, host), [`link add ${iface} type veth peer name ${leg} netns ${voidNs}`]);
      ipBatch(voidNs, [`link set ${leg} up`]);
    };
    const segments = new Map<string, { host: HostSpec; iface: InterfaceSpec }[]>();
    for (const h of spec.hosts) {
      for (const i of h.interfaces) {
        if (i.name === 'lo') continue;
        checkIfName(h.name, i.name);
        if (!i.segment) {
          unplugged(h.name, i.name);
          continue;
        }
        const list = segments.get(i.segment) ?? [];
        list.push({ host: h, iface: i });
        segments.set(i.segment, list);
      }
    }
    for (const [seg, members] of segments) {
      if (members.length === 1) {
        const m = members[0] as (typeof members)[number];
        unplugged(m.host.name, m.iface.name);
      } else if (members.length === 2) {
        const [a, b] = members as [(typeof members)[number], (typeof members)[number]];
        ipBatch(nsOf(ns, a.host.name), [
          `link add ${a.iface.name} type veth peer name ${b.iface.name} netns ${nsOf(ns, b.host.name)}`,
        ]);
      } else {
        const sw = unique(`${prefix}s-${sanitize(seg, 24)}`);
        switches.set(seg, sw);
        addNs(sw);
        // STP off: ports forward at once instead of spending forward_delay in listening/learning.
        ipBatch(sw, ['link add br0 type bridge stp_state 0', 'link set br0 up']);
        members.forEach((m, k) => {
          ipBatch(nsOf(ns, m.host.name), [
            `link add ${m.iface.name} type veth peer name l${k} netns ${sw}`,
          ]);
          ipBatch(sw, [`link set l${k} master br0`, `link set l${k} up`]);
        });
      }
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

/** `ip route` arguments for one RouteSpec. */
export function routeCommand(r: RouteSpec): string[] {
  const v6 = (r.via ?? r.nexthops?.[0]?.via ?? r.to).includes(':');
  const parts = [v6 ? '-6' : '-4', 'route', 'add'];
  if (r.type && r.type !== 'unicast') parts.push(r.type);
  parts.push(r.to);
  if (r.via) parts.push('via', r.via);
  if (r.dev) parts.push('dev', r.dev);
  for (const h of r.nexthops ?? []) {
    parts.push('nexthop', 'via', h.via);
    if (h.dev) parts.push('dev', h.dev);
    parts.push('weight', String(h.weight ?? 1));
  }
  if (r.src) parts.push('src', r.src);
  if (r.metric) parts.push('metric', String(r.metric));
  return parts;
}

/** Sysctls every namespace gets before its interfaces exist, so new interfaces inherit them. */
function baseSysctls(ns: string, ipv6: boolean): void {
  const v6 = ipv6 ? '0' : '1';
  // IPv6 off unless the host uses it: no router solicitations or DAD in the traces.
  setSysctls(ns, {
    'net/ipv6/conf/all/disable_ipv6': v6,
    'net/ipv6/conf/default/disable_ipv6': v6,
    // rp_filter is max(all, iface): set both to 0 explicitly, the engine's default.
    'net/ipv4/conf/all/rp_filter': '0',
    'net/ipv4/conf/default/rp_filter': '0',
  });
}

function setSysctls(ns: string, values: Readonly<Record<string, string>>): void {
  const args = Object.entries(values).map(([k, v]) => `${k}=${v}`);
  if (args.length) nsRun(ns, 'sysctl', ['-q', '-w', ...args]);
}

function configureHost(ns: string, h: HostSpec): void {
  const usesV6 = h.interfaces.some((i) => i.addresses.some((a) => a.includes(':')));
  if (usesV6) baseSysctls(ns, true);
  const lines: string[] = ['link set lo up'];
  for (const i of h.interfaces) {
    for (const a of i.addresses) lines.push(`addr add ${a} dev ${i.name}`);
    if (i.name !== 'lo') lines.push(`link set ${i.name} up`);
  }
  ipBatch(ns, lines);
  // Routes one by one, in spec order: a gateway must be reachable by an earlier route.
  for (const r of h.routes ?? []) run('ip', ['-n', ns, ...routeCommand(r)]);
  const s = h.sysctls ?? {};
  const rp = String(s.rpFilter ?? 0);
  const values: Record<string, string> = {
    'net/ipv4/ip_forward': s.ipForward ? '1' : '0',
    'net/ipv4/conf/all/rp_filter': rp,
    'net/ipv4/conf/default/rp_filter': rp,
    'net/ipv4/conf/all/arp_ignore': String(s.arpIgnore ?? 0),
    'net/ipv4/conf/all/accept_local': s.acceptLocal ? '1' : '0',
    'net/ipv4/conf/all/route_localnet': s.routeLocalnet === true ? '1' : '0',
  };
  for (const i of h.interfaces) {
    // Slash-separated keys: a dot in an interface name (eth0.100) stays a dot.
    const key = `net/ipv4/conf/${i.name}`;
    values[`${key}/rp_filter`] = rp;
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
    if (Array.isArray(s.routeLocalnet) && s.routeLocalnet.includes(i.name)) {
      values[`${key}/route_localnet`] = '1';
    }
  }
  setSysctls(ns, values);
  for (const set of h.ipsets ?? []) {
    const cmds = [
      `create ${set.name} ${set.type}`,
      ...set.entries.map((e) => `add ${set.name} ${e}`),
    ];
    nsRun(ns, 'ipset', ['restore'], `${cmds.join('\n')}\n`);
  }
  if (h.rules && h.rules.trim() !== '') nsRun(ns, 'iptables-restore', [], h.rules);
}
