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

export function buildNetwork(
  spec: NetworkSpec,
  options: { readonly parsed?: ParsedRules } = {},
): {
  network: Network | null;
  problems: Diagnostic[];
} {
  const problems: Diagnostic[] = [];
  const hosts = new Map<string, HostRuntime>();
  const segments = new Map<string, Attachment[]>();
  for (const hs of spec.hosts) {
    if (hosts.has(hs.name))
      problems.push({ ...fieldError('name', `two hosts are named ${hs.name}`), source: hs.name });
    const { host, problems: p } = buildHost(hs, options.parsed);
    problems.push(...p);
    if (!host) continue;
    hosts.set(hs.name, host);
    for (const iface of host.config.ifaces.values()) {
      if (!iface.segment) continue;
      const list = segments.get(iface.segment) ?? [];
      list.push({ host: hs.name, iface: iface.name });
      segments.set(iface.segment, list);
    }
  }
  for (const [ip, owner] of Object.entries(spec.arpOwners ?? {})) {
    if (!hosts.has(owner))
      problems.push({ ...fieldError(`arpOwners.${ip}`, `no host named ${owner}`), source: owner });
  }
  trimHostConfigs(spec.hosts.length);
  if (problems.length) return { network: null, problems };
  return { network: { hosts, segments, arpOwners: spec.arpOwners ?? {} }, problems };
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
