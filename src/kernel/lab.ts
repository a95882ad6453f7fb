/**
 * A NetworkSpec running on the real kernel: namespaces, listeners, probe agents and trace
 * monitors. Probes run one at a time; each one's kernel trace is the monitor output between
 * the probe's start and a marker packet sent after it (netlink delivers events in order).
 */
import type { HostSpec, NetworkSpec, ProbeSpec, SysctlSpec } from '../engine/index.ts';
import { LineProcess, ProbeAgent, startListeners, type AgentResult } from './agents.ts';
import {
  installTraceTable,
  isMarker,
  isMarkerLine,
  parseMonitor,
  readHandles,
  type HandleMap,
  type KernelBlock,
} from './kernel-trace.ts';
import { isNftMarkerLine, parseNftMonitor } from './nft-trace.ts';
import { nsRun, run } from './netns.ts';
import { ping } from './ping.ts';
import { applySysctls, buildTopology, type Topology } from './topology.ts';

/** A connection attempt, as the engine's ProbeSpec, with an optional client timeout. */
export type KernelProbe = Extract<ProbeSpec, { kind: 'connect' }> & { readonly timeoutMs?: number };

export interface KernelProbeResult {
  /** The probe as run: `sport` is always set, so the engine can replay the same tuple. */
  readonly probe: KernelProbe & { readonly sport: number };
  /**
   * Source ports of the lab's earlier probes: a packet addressed to one of them is a late packet
   * of an old connection (a server still retransmitting its SYN-ACK), never this probe's answer.
   */
  readonly earlierPorts: ReadonlySet<number>;
  readonly result: AgentResult;
  /** Per traced host: the monitor's blocks seen while this probe ran. */
  readonly traces: ReadonlyMap<string, readonly KernelBlock[]>;
  /** Per traced host: the monitor's own lines of that slice, as printed (trace fixtures). */
  readonly rawLines?: ReadonlyMap<string, readonly string[]>;
}

export interface LabOptions {
  /** Hosts whose rule trace is captured; default: every host with rules. */
  readonly trace?: readonly string[];
  /** Client timeout per probe (ms); default 1500. */
  readonly timeoutMs?: number;
  /** First source port given to probes without one; default 40100. */
  readonly firstPort?: number;
  /**
   * Which trace to read: `xtables-monitor --trace` (iptables notation, the default) or
   * `nft -a monitor trace` (nft notation: every table, rules of nft tables by handle).
   */
  readonly monitor?: 'xtables' | 'nft';
}

const DEFAULT_TIMEOUT = 1500;
/** Monitor lines before a probe's slice searched for a marker whose later lines are in it. */
const MARKER_LOOKBACK = 200;
/**
 * What `nft monitor` prints, on stdout, when its netlink socket overflowed (nftables src/mnl.c,
 * mnl_nft_event_listener, on ENOBUFS); it then goes on. Events before that line are missing.
 */
const NFT_LOST_EVENTS = '# ERROR: We lost some netlink events!';

/** A probe whose trace lost events: the slice cannot be compared, so the probe runs again. */
export class IncompleteTraceError extends Error {}
/** The tables iptables-nft keeps in family ip. */
const XT_TABLES = ['raw', 'mangle', 'nat', 'filter', 'security'];

export class KernelLab {
  private readonly agents = new Map<string, ProbeAgent>();
  private readonly monitors = new Map<string, LineProcess>();
  /** Per traced host: where nft handles sit in their chains, read after the rules were loaded. */
  readonly handles = new Map<string, HandleMap>();
  private nextPort: number;
  private readonly usedPorts = new Set<number>();
  /** Marker destination ports; kept clear of the probes' source ports. */
  private nextMark = 20000;
  private closed = false;
  /** The trace this lab reads (LabOptions.monitor). */
  readonly monitor: 'xtables' | 'nft';

  private constructor(
    spec: NetworkSpec,
    readonly topo: Topology,
    private readonly options: LabOptions,
  ) {
    this.current = spec;
    this.nextPort = options.firstPort ?? 40100;
    this.monitor = options.monitor ?? 'xtables';
  }

  private current: NetworkSpec;

  /** The spec as the namespaces are now (setRules / setSysctls change it). */
  get spec(): NetworkSpec {
    return this.current;
  }

  /** Builds the namespaces, starts listeners and trace monitors. Tears down on failure. */
  static async start(spec: NetworkSpec, options: LabOptions = {}): Promise<KernelLab> {
    const topo = buildTopology(spec);
    const lab = new KernelLab(spec, topo, options);
    try {
      // In parallel: each process is a Node start-up (~150 ms) inside its namespace.
      const traced = options.trace ?? spec.hosts.filter(hasRules).map((h) => h.name);
      await Promise.all([
        ...spec.hosts.map((h) => startListeners(topo, h)),
        ...traced.map((host) => lab.startMonitor(host)),
      ]);
      return lab;
    } catch (e) {
      lab.close();
      throw e;
    }
  }

  private nsOf(host: string): string {
    const ns = this.topo.ns.get(host);
    if (!ns) throw new Error(`no host named ${host}`);
    return ns;
  }

  private agent(host: string): ProbeAgent {
    let a = this.agents.get(host);
    if (!a) this.agents.set(host, (a = new ProbeAgent(this.topo, this.nsOf(host))));
    return a;
  }

  private async startMonitor(host: string, install = true): Promise<void> {
    const ns = this.nsOf(host);
    if (install) installTraceTable(ns);
    this.handles.set(host, readHandles(ns));
    // Line-buffered: the monitor's stdout is a pipe, and we slice its output by time.
    const cmd =
      this.monitor === 'nft'
        ? ['-oL', 'nft', '-a', 'monitor', 'trace']
        : ['-oL', 'xtables-monitor', '--trace'];
    const mon = new LineProcess(this.topo, ns, 'stdbuf', cmd);
    this.monitors.set(host, mon);
    // The monitor has subscribed once it reports a marker packet; until then, keep marking.
    for (let i = 0; i < 40; i++) {
      if (await this.mark(host, mon, 0, 150)) return;
    }
    throw new Error(`the trace monitor in ${ns} reports nothing: ${mon.stderr}`);
  }

  /**
   * Sends a marker datagram through `host`'s stack and waits until its monitor prints it: every
   * event before that line has been delivered. Returns the marker's line index, or null.
   */
  private async mark(
    host: string,
    mon: LineProcess,
    from: number,
    timeoutMs: number,
  ): Promise<number | null> {
    const nonce = this.nextMark++;
    await this.agent(host).mark(nonce);
    const marker = this.monitor === 'nft' ? isNftMarkerLine : isMarkerLine;
    const m = await mon.waitFor((l) => marker(l, nonce), from, timeoutMs);
    return m ? m.index : null;
  }

  /**
   * Replaces a host's IPv4 iptables ruleset, as kube-proxy does when a Service comes or goes: the
   * iptables tables go, the new dump is restored, the trace table stays. Conntrack entries
   * survive, as they do on a real node. The lab's spec follows, for the engine. The host's nft
   * tables are loaded again after it (see load).
   */
  setRules(host: string, rules: string): void {
    this.load(host, { rules });
  }

  /**
   * Replaces a host's nftables ruleset (kube-proxy's table in nftables mode): the tables it
   * loaded go, the new text is loaded with `nft -f`; the iptables-nft tables and the trace
   * table stay. As kube-proxy's sync would, conntrack entries survive.
   */
  setNftables(host: string, nftables: string): void {
    this.load(host, { nftables });
  }

  /**
   * Loads a host's new rules (either kind, or both) so that its hooks are registered in the
   * order the engine assumes (src/engine/nft/hooks.ts): the iptables tables first, then the nft
   * tables. At equal priority the kernel runs the later-registered hook first
   * (nf_hook_entries_grow, net/netfilter/core.c; nat chains likewise in the NAT core's list,
   * nf_nat_register_fn, net/netfilter/nf_nat_core.c), so the order decides which of two nat
   * chains at dstnat binds a connection. iptables-nft-restore without --noflush deletes each
   * table it restores and creates it anew (NFT_COMPAT_TABLE_FLUSH is sent as NFT_MSG_DELTABLE,
   * nft_action in iptables/nft.c), registering its base chains again after the nft tables: so a
   * new iptables ruleset takes the nft tables down and loads them again after it. The trace table
   * (priority -350, nothing else there) stays.
   */
  load(host: string, next: { readonly rules?: string; readonly nftables?: string }): void {
    const ns = this.nsOf(host);
    const before = this.current.hosts.find((h) => h.name === host);
    const nftables = next.nftables ?? before?.nftables ?? '';
    const dropNft = nftTableNames(before?.nftables ?? '')
      .map((t) => `nft delete table ${t} 2>/dev/null;`)
      .join(' ');
    if (next.rules !== undefined) {
      const dropXt = XT_TABLES.map((t) => `nft delete table ip ${t} 2>/dev/null;`).join(' ');
      nsRun(ns, 'sh', ['-c', `${dropNft} ${dropXt} iptables-restore`], next.rules);
    } else nsRun(ns, 'sh', ['-c', dropNft]);
    if (nftables.trim() !== '') nsRun(ns, 'nft', ['-f', '-'], nftables);
    this.updateHost(host, (h) => ({
      ...h,
      ...(next.rules !== undefined ? { rules: next.rules } : {}),
      ...(next.nftables !== undefined ? { nftables: next.nftables } : {}),
    }));
    if (this.monitors.has(host)) this.handles.set(host, readHandles(ns));
  }

  /**
   * After setRules / setNftables: `nft monitor trace` prints rules from the ruleset it read when
   * it started, so a rule made since prints as "unknown rule handle N" and its event is lost.
   * With that monitor, the host's monitor starts again on the new ruleset (xtables-monitor reads
   * each rule with its event and needs nothing).
   */
  async refreshTrace(host: string): Promise<void> {
    const mon = this.monitors.get(host);
    if (!mon || this.monitor !== 'nft') return;
    mon.stop();
    this.monitors.delete(host);
    await this.startMonitor(host, false);
  }

  /** Forgets a host's neighbour (ARP) cache: the next packet resolves its next hop afresh. */
  flushNeighbours(host: string): void {
    run('ip', ['-n', this.nsOf(host), 'neigh', 'flush', 'all']);
  }

  /** Changes a host's sysctls (e.g. route_localnet) in place. */
  setSysctls(host: string, sysctls: SysctlSpec): void {
    const h = this.updateHost(host, (x) => ({ ...x, sysctls }));
    applySysctls(this.nsOf(host), h);
  }

  private updateHost(host: string, f: (h: HostSpec) => HostSpec): HostSpec {
    let out: HostSpec | null = null;
    const hosts = this.current.hosts.map((h) => (h.name === host ? (out = f(h)) : h));
    if (!out) throw new Error(`no host named ${host}`);
    this.current = { ...this.current, hosts };
    return out;
  }

  /**
   * Runs one probe and collects the trace of every monitored host. xtables-monitor exits when its
   * netlink socket overflows ("No buffer space available": a long ruleset on a loaded machine);
   * the probe's trace is then incomplete, so the dead monitors are restarted and the probe is run
   * again from a fresh source port (twice at most). `nft monitor` lives on after an overflow and
   * says so in its output (IncompleteTraceError): the probe is run again the same way.
   */
  async probe(p: KernelProbe): Promise<KernelProbeResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.probeOnce(p);
      } catch (e) {
        const dead = [...this.monitors].filter(([, m]) => m.child.exitCode !== null);
        const lost = e instanceof IncompleteTraceError;
        if ((dead.length === 0 && !lost) || attempt >= 2 || p.sport !== undefined) throw e;
        for (const [host, m] of dead) {
          m.stop();
          await this.startMonitor(host, false);
        }
      }
    }
  }

  private async probeOnce(p: KernelProbe): Promise<KernelProbeResult> {
    if (this.closed) throw new Error('lab is closed');
    const sport = p.sport ?? this.nextPort++;
    const probe = { ...p, sport };
    const earlierPorts = new Set(this.usedPorts);
    this.usedPorts.add(sport);
    if (probe.proto !== 'tcp' && probe.proto !== 'udp' && probe.proto !== 'icmp')
      throw new Error(`kernel probes speak tcp, udp and icmp, not ${probe.proto}`);
    const starts = new Map([...this.monitors].map(([h, m]) => [h, m.lines.length]));
    const timeoutMs = p.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT;
    const src = probe.src ? { src: probe.src } : {};
    // An echo request is ping's job; its identifier is the probe's "source port" (the engine
    // gives an echo request sport = dport = its id, src/engine/network.ts).
    const result =
      probe.proto === 'icmp'
        ? await ping(this.topo, this.nsOf(p.from), { dst: probe.dst, id: sport, timeoutMs, ...src })
        : await this.agent(p.from).probe({
            proto: probe.proto,
            dst: probe.dst,
            dport: probe.dport,
            sport,
            timeoutMs,
            ...src,
          });
    if (probe.proto === 'icmp' && result.kind === 'answered')
      return this.finish(probe, earlierPorts, starts, {
        ...result,
        reply: `echo-reply from ${this.owner(p.from, result.dstSeen)}`,
      });
    return this.finish(probe, earlierPorts, starts, result);
  }

  /**
   * The host whose kernel answered a ping, by the reply's source address: the host with that
   * address (127/8: the sender itself). With a DNAT on the path the reply comes back from the
   * address pinged, not from the answering host's; such an answer names no host or the wrong
   * one, and fails the comparison rather than passing unchecked.
   */
  private owner(from: string, addr: string): string {
    if (addr.startsWith('127.')) return from;
    const h = this.current.hosts.find((x) =>
      x.interfaces.some((i) => i.addresses.some((a) => a.split('/')[0] === addr)),
    );
    return h?.name ?? `${addr} (an address of no host)`;
  }

  private async finish(
    probe: KernelProbeResult['probe'],
    earlierPorts: ReadonlySet<number>,
    starts: ReadonlyMap<string, number>,
    result: AgentResult,
  ): Promise<KernelProbeResult> {
    const traces = new Map<string, KernelBlock[]>();
    const rawLines = new Map<string, readonly string[]>();
    for (const [host, mon] of this.monitors) {
      const start = starts.get(host) ?? 0;
      // A live monitor on a loaded machine may lag by seconds; a dead one never answers.
      const m = mon.child.exitCode === null ? await this.mark(host, mon, start, 15000) : null;
      if (m === null) throw new Error(`trace monitor of ${host} lost the marker: ${mon.stderr}`);
      // The overflow is reported where it happened, which may be just past the marker.
      if (mon.lines.slice(start).includes(NFT_LOST_EVENTS))
        throw new IncompleteTraceError(`trace monitor of ${host} lost netlink events`);
      // The previous marker's later hooks may fall in this slice: leave markers out.
      const parse = this.monitor === 'nft' ? parseNftMonitor : parseMonitor;
      const blocks = parse(mon.lines, start, m);
      // Its packet line may even precede the slice, its rules inside it: look back for its id.
      const from = Math.max(0, start - MARKER_LOOKBACK);
      const markers = parse(mon.lines, from, m).filter(isMarker);
      traces.set(
        host,
        blocks.filter((b) => b.events.length > 0 && !isMarker(b)),
      );
      const markerLine = this.monitor === 'nft' ? isNftMarkerLine : isMarkerLine;
      const raw = mon.lines.slice(from, m).filter((l) => markerLine(l));
      rawLines.set(host, withoutMarkers(mon.lines.slice(start, m), markers, raw));
    }
    return { probe, earlierPorts, result, traces, rawLines };
  }

  /** Runs a command in a host's namespace (e.g. to change its rules between probes). */
  ns(host: string): string {
    return this.nsOf(host);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const a of this.agents.values()) a.stop();
    for (const m of this.monitors.values()) m.stop();
    this.topo.teardown();
  }
}

/**
 * The tables an nft text creates, as `family name`: `add table ip kube-proxy` (kube-proxy's
 * transaction form) and `table inet x {` (nft's block form) alike.
 */
export function nftTableNames(text: string): string[] {
  const re = /^\s*(?:add\s+)?table\s+(ip6?|inet|arp|bridge|netdev)\s+([^\s{]+)/gm;
  return [...new Set([...text.matchAll(re)].map((m) => `${m[1]} ${m[2]}`))];
}

function hasRules(h: HostSpec): boolean {
  return (h.rules ?? '').trim() !== '' || (h.nftables ?? '').trim() !== '';
}

/** Builds the spec on the kernel, runs every probe in order, tears everything down. */
export async function runKernelProbes(
  spec: NetworkSpec,
  probes: readonly KernelProbe[],
  options: LabOptions = {},
): Promise<KernelProbeResult[]> {
  const lab = await KernelLab.start(spec, options);
  try {
    const out: KernelProbeResult[] = [];
    for (const p of probes) out.push(await lab.probe(p));
    return out;
  } finally {
    lab.close();
  }
}

/**
 * The monitor's lines of a slice as a user would paste them, without the marker datagrams' own
 * (a marker's later hooks, looped back through lo under a new trace id, can land in the next
 * probe's slice): the lines of every trace id whose packet is a marker are left out.
 */
export function withoutMarkers(
  lines: readonly string[],
  markers: readonly KernelBlock[],
  markerLines: readonly string[] = [],
): string[] {
  // `trace id 4a102771 ip ...` (nft monitor); `PACKET: 2 4a102771 ...`, ` TRACE: 2 4a102771 ...`.
  const idOf = (l: string) =>
    /^trace id ([0-9a-f]+) /.exec(l)?.[1] ?? /^\s*(?:PACKET|TRACE): \d+ ([0-9a-f]+) /.exec(l)?.[1];
  // Any line that shows the marker names its trace id, the trace table's own included: a block's
  // header may be the line a loaded monitor did not get.
  const ids = new Set([
    ...markers.map((b) => b.traceId),
    ...markerLines.map(idOf).filter((id) => id !== undefined),
  ]);
  if (!ids.size) return [...lines];
  return lines.filter((l) => {
    const id = idOf(l);
    return id === undefined || !ids.has(id);
  });
}
