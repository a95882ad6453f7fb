/**
 * Hosts joined by L2 segments: ARP decides which host receives a frame, veth pairs are
 * point-to-point. The driver moves packets between hosts, runs each host's stack, and plays the
 * socket layer (listeners answer, clients check replies, the kernel answers RST / ICMP errors).
 */
import { fieldError, type Diagnostic } from './diagnostic.ts';
import type { Chooser } from './choice.ts';
import type { HostSpec } from './host.ts';
import type { Packet } from './packet.ts';
import { ProbeRun } from './probe-run.ts';
import {
  buildHost,
  cloneHostState,
  type HostRuntime,
  type HostState,
  type ParsedRules,
  trimHostConfigs,
} from './runtime.ts';
import type { TraceEvent } from './trace.ts';

export interface NetworkSpec {
  readonly hosts: readonly HostSpec[];
  /** Who answers ARP for an address several hosts hold (kube-vip leader, MetalLB L2 speaker). */
  readonly arpOwners?: Readonly<Record<string, string>>;
}

export interface Attachment {
  readonly host: string;
  readonly iface: string;
}

export interface Network {
  readonly hosts: ReadonlyMap<string, HostRuntime>;
  readonly segments: ReadonlyMap<string, readonly Attachment[]>;
  readonly arpOwners: Readonly<Record<string, string>>;
}

/**
 * The hosts of a network by name. A generated host (`HostSpec.generated`: a cluster's pods) is
 * built when it is first asked for, which is when a packet reaches it or a probe starts on it:
 * a 5,000-pod cluster builds the few pods on a probe's path, not all of them. Iterating builds
 * every host.
 */
class Hosts implements ReadonlyMap<string, HostRuntime> {
  constructor(
    private readonly built: Map<string, HostRuntime>,
    private readonly pending: Map<string, HostSpec>,
    private readonly parsed: ParsedRules | undefined,
  ) {}

  get(name: string): HostRuntime | undefined {
    const hit = this.built.get(name);
    if (hit !== undefined) return hit;
    const spec = this.pending.get(name);
    if (spec === undefined) return undefined;
    const { host, problems } = buildHost(spec, this.parsed);
    // A generator's host with a problem is the generator's bug, as lazyRules' errors are.
    if (!host)
      throw new Error(
        `generated host ${name} does not build: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      );
    this.pending.delete(name);
    this.built.set(name, host);
    return host;
  }

  has(name: string): boolean {
    return this.built.has(name) || this.pending.has(name);
  }

  get size(): number {
    return this.built.size + this.pending.size;
  }

  private all(): Map<string, HostRuntime> {
    for (const name of [...this.pending.keys()]) this.get(name);
    return this.built;
  }

  forEach(
    f: (value: HostRuntime, key: string, map: ReadonlyMap<string, HostRuntime>) => void,
    thisArg?: unknown,
  ): void {
    for (const [k, v] of this.all()) f.call(thisArg, v, k, this);
  }

  entries(): MapIterator<[string, HostRuntime]> {
    return this.all().entries();
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<HostRuntime> {
    return this.all().values();
  }

  [Symbol.iterator](): MapIterator<[string, HostRuntime]> {
    return this.all()[Symbol.iterator]();
  }
}

export function buildNetwork(
  spec: NetworkSpec,
  options: { readonly parsed?: ParsedRules } = {},
): {
  network: Network | null;
  problems: Diagnostic[];
} {
  const problems: Diagnostic[] = [];
  const hosts = new Map<string, HostRuntime>();
  const pending = new Map<string, HostSpec>();
  const segments = new Map<string, Attachment[]>();
  const attach = (host: string, iface: string, segment: string | null | undefined) => {
    if (!segment) return;
    const list = segments.get(segment);
    if (list) list.push({ host, iface });
    else segments.set(segment, [{ host, iface }]);
  };
  for (const hs of spec.hosts) {
    if (hosts.has(hs.name) || pending.has(hs.name))
      problems.push({ ...fieldError('name', `two hosts are named ${hs.name}`), source: hs.name });
    if (hs.generated) {
      // Its segments as its config would list them: each interface name once, the last one's.
      const byName = new Map(hs.interfaces.map((i) => [i.name, i]));
      for (const i of byName.values()) if (i.name !== 'lo') attach(hs.name, i.name, i.segment);
      pending.set(hs.name, hs);
      continue;
    }
    const { host, problems: p } = buildHost(hs, options.parsed);
    problems.push(...p);
    if (!host) continue;
    hosts.set(hs.name, host);
    for (const iface of host.config.ifaces.values()) attach(hs.name, iface.name, iface.segment);
  }
  for (const [ip, owner] of Object.entries(spec.arpOwners ?? {})) {
    if (!hosts.has(owner) && !pending.has(owner))
      problems.push({ ...fieldError(`arpOwners.${ip}`, `no host named ${owner}`), source: owner });
  }
  trimHostConfigs(spec.hosts.length);
  if (problems.length) return { network: null, problems };
  return {
    network: {
      hosts: new Hosts(hosts, pending, options.parsed),
      segments,
      arpOwners: spec.arpOwners ?? {},
    },
    problems,
  };
}

/** Mutable state of every host (conntrack, recent lists, open client sockets) and the clock. */
export interface NetworkState {
  readonly hosts: Map<string, HostState>;
  now: number;
  nextProbe: number;
}

export function newNetworkState(): NetworkState {
  return { hosts: new Map(), now: 1000, nextProbe: 1 };
}

export function cloneNetworkState(s: NetworkState): NetworkState {
  return {
    hosts: new Map([...s.hosts].map(([k, v]) => [k, cloneHostState(v)])),
    now: s.now,
    nextProbe: s.nextProbe,
  };
}

/** What the sender (or, for injected packets, the first packet) ended with. */
export type Outcome =
  | {
      readonly kind: 'answered';
      readonly host: string;
      readonly process: string;
      readonly reply: string;
      /** Source address the listening socket saw. */
      readonly srcSeen: string;
      readonly srcPortSeen: number;
      readonly dstSeen: string;
      readonly dstPortSeen: number;
    }
  | { readonly kind: 'refused'; readonly via: string; readonly from: string; readonly host: string }
  | { readonly kind: 'timeout'; readonly reason: string; readonly host: string | null }
  | { readonly kind: 'unreachable'; readonly reason: string; readonly host: string }
  | {
      readonly kind: 'delivered';
      readonly host: string;
      readonly process: string;
      readonly srcSeen: string;
      readonly srcPortSeen: number;
      readonly dstSeen: string;
      readonly dstPortSeen: number;
    }
  | {
      readonly kind: 'forwarded';
      readonly host: string;
      readonly iface: string;
      readonly nextHop: string;
      readonly packet: Packet;
    }
  | { readonly kind: 'dropped'; readonly host: string; readonly reason: string }
  | {
      readonly kind: 'unsupported';
      readonly host: string;
      readonly what: string;
      readonly line: number;
    };

/** A connection attempt from a process on a host, or a packet injected on a host's interface. */
export type ProbeSpec =
  | {
      readonly kind: 'connect';
      readonly from: string;
      readonly process?: string;
      readonly proto: 'tcp' | 'udp' | 'icmp' | 'sctp';
      readonly dst: string;
      readonly dport: number;
      readonly src?: string;
      readonly sport?: number;
    }
  | {
      readonly kind: 'inject';
      readonly host: string;
      readonly iface: string;
      readonly packet: Packet;
    };

export interface RunResult {
  readonly outcome: Outcome;
  readonly events: TraceEvent[];
}

/** Runs one probe to its end. Mutates `state` (conntrack entries, affinity lists). */
export function runProbe(
  net: Network,
  state: NetworkState,
  probe: ProbeSpec,
  chooser: Chooser,
): RunResult {
  return new ProbeRun(net, state, probe, chooser).run();
}

export { resolveNextHop } from './wire.ts';
