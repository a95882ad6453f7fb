/**
 * Hosts joined by L2 segments: ARP decides which host receives a frame, veth pairs are
 * point-to-point. The driver moves packets between hosts, runs each host's stack, and plays the
 * socket layer (listeners answer, clients check replies, the kernel answers RST / ICMP errors).
 */
import type { Chooser } from './choice.ts';
import { tupleOf, type CtInfo } from './conntrack.ts';
import {
  isLocalAddr,
  selectSourceAddr,
  sourceAddressFor,
  longestMatch,
  type HostConfig,
  type HostSpec,
} from './host.ts';
import { ipToNum, isLoopback } from './ip.ts';
import { ICMP_DEST_UNREACH, RST_ACK, SYN_ACK, type Packet } from './packet.ts';
import {
  buildHost,
  cloneHostState,
  newHostState,
  type ClientSocket,
  type HostProblem,
  type HostRuntime,
  type HostState,
  type ParsedRules,
  trimHostConfigs,
} from './runtime.ts';
import { output, receive, type StackEnv } from './stack.ts';
import {
  bridgeInput,
  isBridge,
  masterOf,
  portsOf,
  type BridgeDest,
  type BridgeResult,
} from './bridge.ts';
import { Tracer, type TraceEvent } from './trace.ts';

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
  problems: HostProblem[];
} {
  const problems: HostProblem[] = [];
  const hosts = new Map<string, HostRuntime>();
  const segments = new Map<string, Attachment[]>();
  for (const hs of spec.hosts) {
    if (hosts.has(hs.name))
      problems.push({ host: hs.name, field: 'name', message: `two hosts are named ${hs.name}` });
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
      problems.push({ host: owner, field: `arpOwners.${ip}`, message: `no host named ${owner}` });
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

function hostState(s: NetworkState, name: string): HostState {
  let h = s.hosts.get(name);
  if (!h) s.hosts.set(name, (h = newHostState()));
  return h;
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

interface QueueItem {
  readonly host: string;
  readonly packetId: number;
  /** `bridge`: a frame entering the bridge of port `iface`, addressed to `dest`. */
  readonly op: 'out' | 'in' | 'bridge';
  readonly dest?: BridgeDest;
  readonly pkt: Packet;
  readonly iface: string | null;
  readonly ct: CtInfo | null;
  readonly process: string;
}

export interface RunResult {
  readonly outcome: Outcome;
  readonly events: TraceEvent[];
}

const MAX_STEPS = 256;

/** Runs one probe to its end. Mutates `state` (conntrack entries, affinity lists). */
export function runProbe(
  net: Network,
  state: NetworkState,
  probe: ProbeSpec,
  chooser: Chooser,
): RunResult {
  const tracer = new Tracer();
  const probeId = state.nextProbe++;
  tracer.trackId = probeId;
  state.now += 1;
  let outcome: Outcome | null = null;
  let lastDrop: { host: string; reason: string } | null = null;
  let packetCounter = 0;
  const queue: QueueItem[] = [];
  const enqueue = (item: Omit<QueueItem, 'packetId'>, packetId?: number) =>
    queue.push({ ...item, packetId: packetId ?? ++packetCounter });

  if (probe.kind === 'connect') {
    const src = net.hosts.get(probe.from);
    if (!src)
      return {
        outcome: {
          kind: 'unsupported',
          host: probe.from,
          what: `no host named ${probe.from}`,
          line: 0,
        },
        events: [],
      };
    const hs = hostState(state, probe.from);
    const sport = probe.sport ?? hs.nextPort++;
    const pkt: Packet = {
      proto: probe.proto,
      // Shown on the send step; the output route decides it the same way.
      src: probe.src ?? sourceAddressFor(src.config, probe.dst) ?? '',
      dst: probe.dst,
      sport,
      dport: probe.proto === 'icmp' ? sport : probe.dport,
      mark: 0,
      ttl: 64,
      ...(probe.proto === 'tcp'
        ? { flags: { syn: true, ack: false, rst: false, fin: false, psh: false, urg: false } }
        : {}),
      ...(probe.proto === 'icmp' ? { icmpType: 8, icmpCode: 0 } : {}),
    };
    const process = probe.process ?? 'client';
    tracer.host = probe.from;
    tracer.packetId = 1;
    tracer.emit({
      type: 'send',
      packet: pkt,
      process,
      reason: 'probe',
      explain: {
        key: 'send.probe',
        params: { process, dst: probe.dst, dport: probe.dport, proto: probe.proto },
      },
    });
    enqueue({ host: probe.from, op: 'out', pkt, iface: null, ct: null, process });
  } else {
    if (!net.hosts.get(probe.host))
      return {
        outcome: {
          kind: 'unsupported',
          host: probe.host,
          what: `no host named ${probe.host}`,
          line: 0,
        },
        events: [],
      };
    enqueue({
      host: probe.host,
      op: 'in',
      pkt: probe.packet,
      iface: probe.iface,
      ct: null,
      process: '',
    });
  }

  const setOutcome = (o: Outcome) => {
    if (!outcome) outcome = o;
  };
  const isFirst = (item: QueueItem) => item.packetId === 1;

  for (let steps = 0; queue.length && steps < MAX_STEPS; steps++) {
    const item = queue.shift() as QueueItem;
    const runtime = net.hosts.get(item.host) as HostRuntime;
    const hs = hostState(state, item.host);
    tracer.host = item.host;
    tracer.packetId = item.packetId;
    const env: StackEnv = {
      tracer,
      host: runtime,
      state: hs,
      now: state.now,
      pick: (w, l, r) => chooser.pick(w, l, r),
    };
    let pkt = item.pkt;
    let res: BridgeResult;
    if (item.op === 'bridge') {
      const port = item.iface ?? '';
      const bridge = masterOf(runtime.config, port) ?? '';
      res = bridgeInput(env, pkt, bridge, port, item.dest ?? { kind: 'local' }, (ip) =>
        destBehind(net, item.host, bridge, resolveNextHop(net, item.host, bridge, ip)),
      );
    } else if (item.op === 'out') {
      res = output(env, pkt, item.ct);
      if (res.kind !== 'unreachable') {
        const srcFixed = res.pkt;
        // The socket learns its source address from the first routing decision.
        if (probe.kind === 'connect' && isFirst(item))
          registerClient(
            hs,
            { ...pkt, src: firstSource(tracer, item.packetId) ?? srcFixed.src },
            probe,
            probeId,
          );
      } else if (probe.kind === 'connect' && isFirst(item)) {
        setOutcome({ kind: 'unreachable', reason: res.reason, host: item.host });
      }
    } else {
      res = receive(env, pkt, item.iface ?? 'lo', item.ct);
    }
    pkt = res.pkt;
    switch (res.kind) {
      case 'bridged':
        tracer.emit({
          type: 'wire',
          packet: pkt,
          fromIf: res.outPort,
          toHost: res.toHost,
          toIf: res.toIf,
          segment: runtime.config.ifaces.get(res.outPort)?.segment ?? '',
          nextHop: pkt.dst,
          explain: {
            key: 'wire.send',
            params: {
              from: item.host,
              to: res.toHost,
              iface: res.toIf,
              segment: runtime.config.ifaces.get(res.outPort)?.segment ?? '',
            },
          },
        });
        enqueue(
          {
            host: res.toHost,
            op: 'in',
            pkt: { ...pkt, mark: 0 },
            iface: res.toIf,
            ct: null,
            process: '',
          },
          item.packetId,
        );
        break;
      case 'transmit': {
        const hop = resolveNextHop(net, item.host, res.outIf, res.nextHop, pkt.src);
        if (hop === 'no-segment') {
          tracer.emit({
            type: 'drop',
            packet: pkt,
            reason: 'left-network',
            explain: { key: 'wire.left', params: { iface: res.outIf, nextHop: res.nextHop } },
          });
          if (isFirst(item))
            setOutcome({
              kind: 'forwarded',
              host: item.host,
              iface: res.outIf,
              nextHop: res.nextHop,
              packet: pkt,
            });
          break;
        }
        if (hop === null) {
          tracer.emit({
            type: 'drop',
            packet: pkt,
            reason: 'arp-failed',
            explain: { key: 'wire.arp-failed', params: { nextHop: res.nextHop, iface: res.outIf } },
          });
          lastDrop = {
            host: item.host,
            reason: `nobody answers ARP for ${res.nextHop} on ${res.outIf}`,
          };
          if (item.op === 'out' && probe.kind === 'connect' && isFirst(item))
            setOutcome({
              kind: 'unreachable',
              reason: `no host answers ARP for ${res.nextHop}`,
              host: item.host,
            });
          else sendIcmpError(tracer, enqueue, item, pkt, 1);
          break;
        }
        // Out of a bridge device (br_dev_xmit): the bridge picks the port behind which the
        // next hop's MAC sits; no IPv4 hook runs again (br_nf_post_routing: no out port yet,
        // POSTROUTING already ran in the IP stack).
        let fromIf = res.outIf;
        if (isBridge(runtime.config, res.outIf)) {
          const d = destBehind(net, item.host, res.outIf, hop);
          fromIf = d?.kind === 'port' ? d.port : res.outIf;
          tracer.emit({
            type: 'bridge',
            packet: pkt,
            bridge: res.outIf,
            action: 'xmit',
            inPort: null,
            outPort: fromIf,
            explain: { key: 'bridge.xmit', params: { bridge: res.outIf, out: fromIf } },
          });
        }
        const segment = runtime.config.ifaces.get(fromIf)?.segment ?? '';
        // The first host on the wire: the answerer itself, or the bridge it sits behind.
        const peer = wirePeer(net, item.host, fromIf);
        const bridged =
          peer && !(peer.host === hop.host && peer.iface === hop.iface)
            ? masterOf((net.hosts.get(peer.host) as HostRuntime).config, peer.iface)
            : null;
        const to = bridged && peer ? peer : hop;
        tracer.emit({
          type: 'wire',
          packet: pkt,
          fromIf,
          toHost: to.host,
          toIf: to.iface,
          segment,
          nextHop: res.nextHop,
          explain: {
            key: 'wire.send',
            params: { from: item.host, to: to.host, iface: to.iface, segment },
          },
        });
        enqueue(
          {
            host: to.host,
            op: bridged ? 'bridge' : 'in',
            ...(bridged && peer
              ? { dest: destBehind(net, peer.host, bridged, hop) ?? { kind: 'local' as const } }
              : {}),
            pkt: { ...pkt, mark: 0 },
            iface: to.iface,
            ct: null,
            process: '',
          },
          item.packetId,
        );
        break;
      }
      case 'loopback':
        enqueue(
          { host: item.host, op: 'in', pkt, iface: 'lo', ct: res.ct, process: '' },
          item.packetId,
        );
        break;
      case 'dropped':
        tracer.emit({
          type: 'drop',
          packet: pkt,
          reason: res.reason,
          explain: { key: 'drop', params: { reason: res.reason } },
        });
        lastDrop = { host: item.host, reason: res.reason };
        if (probe.kind === 'inject' && isFirst(item))
          setOutcome({ kind: 'dropped', host: item.host, reason: res.reason });
        break;
      case 'rejected': {
        lastDrop = { host: item.host, reason: `rejected (${res.with})` };
        if (probe.kind === 'inject' && isFirst(item))
          setOutcome({ kind: 'refused', via: res.with, from: item.host, host: item.host });
        if (res.with === 'tcp-reset') {
          sendReset(tracer, enqueue, item, pkt, 'send.reject-rst', rejectCt(res.ct));
        } else {
          const code = {
            'icmp-net-unreachable': 0,
            'icmp-host-unreachable': 1,
            'icmp-proto-unreachable': 2,
            'icmp-port-unreachable': 3,
            'icmp-net-prohibited': 9,
            'icmp-host-prohibited': 10,
            'icmp-admin-prohibited': 13,
          }[res.with];
          sendIcmpError(
            tracer,
            enqueue,
            item,
            pkt,
            code,
            isLocalAddr(runtime.config, pkt.dst) ? pkt.dst : '',
            rejectCt(res.ct),
          );
        }
        break;
      }
      case 'unreachable':
        tracer.emit({
          type: 'drop',
          packet: pkt,
          reason: res.reason,
          explain: { key: 'drop.unreachable', params: { reason: res.reason } },
        });
        lastDrop = { host: item.host, reason: res.reason };
        if (!res.local) sendIcmpError(tracer, enqueue, item, pkt, res.code);
        break;
      case 'unsupported':
        setOutcome({ kind: 'unsupported', host: item.host, what: res.what, line: res.line });
        queue.length = 0;
        break;
      case 'local':
        socketLayer(
          item,
          res.pkt,
          runtime,
          hs,
          tracer,
          enqueue,
          setOutcome,
          probe.kind === 'inject' && isFirst(item),
        );
        break;
    }
  }
  if (!outcome) {
    outcome =
      probe.kind === 'inject'
        ? { kind: 'dropped', host: lastDrop?.host ?? '', reason: lastDrop?.reason ?? 'no answer' }
        : {
            kind: 'timeout',
            reason: lastDrop?.reason ?? 'no answer came back',
            host: lastDrop?.host ?? null,
          };
  }
  return { outcome, events: tracer.events };
}

function firstSource(tracer: Tracer, packetId: number): string | null {
  const ev = tracer.events.find((e) => e.type === 'route' && e.packetId === packetId);
  return ev ? ev.packet.src : null;
}

function registerClient(
  hs: HostState,
  pkt: Packet,
  probe: Extract<ProbeSpec, { kind: 'connect' }>,
  probeId: number,
): void {
  const sock: ClientSocket = {
    proto: probe.proto,
    local: pkt.src,
    localPort: pkt.sport,
    remote: probe.dst,
    remotePort: pkt.dport,
    process: probe.process ?? 'client',
    probeId,
  };
  hs.clients.push(sock);
}

/** The kernel answers a TCP segment with a reset (tcp_v4_send_reset, or REJECT --reject-with tcp-reset). */
function sendReset(
  tracer: Tracer,
  enqueue: (i: Omit<QueueItem, 'packetId'>) => void,
  item: QueueItem,
  about: Packet,
  explainKey: string,
  ct: CtInfo | null,
): void {
  const rst: Packet = {
    proto: 'tcp',
    src: about.dst,
    dst: about.src,
    sport: about.dport,
    dport: about.sport,
    flags: RST_ACK,
    mark: 0,
    ttl: 64,
  };
  tracer.emit({
    type: 'send',
    packet: rst,
    process: 'kernel',
    reason: 'reset',
    explain: { key: explainKey },
  });
  enqueue({ host: item.host, op: 'out', pkt: rst, iface: null, ct, process: 'kernel' });
}

function sendIcmpError(
  tracer: Tracer,
  enqueue: (i: Omit<QueueItem, 'packetId'>) => void,
  item: QueueItem,
  about: Packet,
  code: number,
  src = '',
  ct: CtInfo | null = null,
): void {
  if (about.proto === 'icmp' && about.icmpType === ICMP_DEST_UNREACH) return; // never an error about an error
  const err: Packet = {
    proto: 'icmp',
    src,
    dst: about.src,
    sport: 0,
    dport: 0,
    icmpType: ICMP_DEST_UNREACH,
    icmpCode: code,
    inner: tupleOf(about),
    mark: 0,
    ttl: 64,
  };
  tracer.emit({
    type: 'send',
    packet: err,
    process: 'kernel',
    reason: 'icmp-error',
    explain: { key: 'send.icmp-error', params: { code } },
  });
  enqueue({ host: item.host, op: 'out', pkt: err, iface: null, ct, process: 'kernel' });
}

/**
 * REJECT hands the rejected packet's connection to the RST or ICMP error it sends, as RELATED
 * in the other direction (nf_send_reset / icmp_glue_bits -> nf_ct_attach): `--ctstate INVALID`
 * rules in OUTPUT let it pass. Seen on Linux 6.18 with `-A OUTPUT -m conntrack --ctstate
 * INVALID -j DROP`: the client is still refused.
 */
function rejectCt(ct: CtInfo): CtInfo | null {
  if (!ct.conn) return null;
  return { conn: ct.conn, dir: ct.dir === 'original' ? 'reply' : 'original', state: 'RELATED' };
}

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
function segmentPeers(net: Network, host: string, iface: string): Attachment[] {
  const seg = net.hosts.get(host)?.config.ifaces.get(iface)?.segment;
  if (!seg) return [];
  return (net.segments.get(seg) ?? []).filter((m) => !(m.host === host && m.iface === iface));
}

/** The host a frame sent out of `iface` reaches first (a veth's peer; the first on a LAN). */
function wirePeer(net: Network, host: string, iface: string): Attachment | null {
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
function destBehind(
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

function socketLayer(
  item: QueueItem,
  pkt: Packet,
  runtime: HostRuntime,
  hs: HostState,
  tracer: Tracer,
  enqueue: (i: Omit<QueueItem, 'packetId'>, id?: number) => void,
  setOutcome: (o: Outcome) => void,
  injectedFirst: boolean,
): void {
  const cfg = runtime.config;
  const client = hs.clients.find(
    (c) =>
      c.proto === pkt.proto &&
      c.local === pkt.dst &&
      c.localPort === pkt.dport &&
      c.remote === pkt.src &&
      c.remotePort === pkt.sport,
  );
  const emitSocket = (
    result: 'delivered' | 'no-listener' | 'connected' | 'no-connection',
    process: string | null,
    bind: string | null,
    key: string,
    params: Record<string, string | number> = {},
  ) =>
    tracer.emit({
      type: 'socket',
      packet: pkt,
      result,
      process,
      bind,
      explain: {
        key,
        params: {
          dst: pkt.dst,
          dport: pkt.dport,
          src: pkt.src,
          ...(process ? { process } : {}),
          ...(bind ? { bind } : {}),
          ...params,
        },
      },
    });

  // ICMP errors and resets go to the client socket they are about.
  if (pkt.proto === 'icmp' && pkt.icmpType === ICMP_DEST_UNREACH && pkt.inner) {
    const inner = pkt.inner;
    // tcp_v4_err/udp_err find the socket by the embedded header: all four fields must match.
    const owner = hs.clients.find(
      (c) =>
        c.proto === inner.proto &&
        c.local === inner.src &&
        c.localPort === inner.sport &&
        c.remote === inner.dst &&
        c.remotePort === inner.dport,
    );
    if (owner) {
      emitSocket('connected', owner.process, null, 'socket.icmp-error', {
        code: pkt.icmpCode ?? 0,
      });
      const via = `icmp-${pkt.icmpCode === 3 ? 'port-unreachable' : pkt.icmpCode === 1 ? 'host-unreachable' : pkt.icmpCode === 0 ? 'net-unreachable' : pkt.icmpCode === 13 ? 'admin-prohibited' : `code-${pkt.icmpCode}`}`;
      setOutcome({ kind: 'refused', via, from: pkt.src, host: item.host });
    }
    return;
  }
  if (pkt.proto === 'tcp' && pkt.flags?.rst) {
    if (client) {
      emitSocket('connected', client.process, null, 'socket.rst');
      setOutcome({ kind: 'refused', via: 'tcp-reset', from: pkt.src, host: item.host });
    }
    return;
  }
  if (client) {
    emitSocket('connected', client.process, null, 'socket.answer', { payload: pkt.payload ?? '' });
    const delivered = tracer.events.find(
      (e) => e.type === 'socket' && e.result === 'delivered' && e.trackId === tracer.trackId,
    );
    const served = delivered?.type === 'socket' ? delivered : null;
    setOutcome({
      kind: 'answered',
      host: served?.host ?? pkt.src,
      process: served?.process ?? '',
      reply: pkt.payload ?? '',
      srcSeen: served?.packet.src ?? '',
      srcPortSeen: served?.packet.sport ?? 0,
      dstSeen: served?.packet.dst ?? '',
      dstPortSeen: served?.packet.dport ?? 0,
    });
    return;
  }
  if (pkt.proto === 'icmp') {
    if (pkt.icmpType === 8) {
      emitSocket('delivered', 'kernel', null, 'socket.echo');
      const reply: Packet = {
        ...pkt,
        src: pkt.dst,
        dst: pkt.src,
        icmpType: 0,
        mark: 0,
        ttl: 64,
        payload: `echo-reply from ${cfg.name}`,
      };
      enqueue({ host: item.host, op: 'out', pkt: reply, iface: null, ct: null, process: 'kernel' });
      if (injectedFirst)
        setOutcome({
          kind: 'delivered',
          host: item.host,
          process: 'kernel',
          srcSeen: pkt.src,
          srcPortSeen: 0,
          dstSeen: pkt.dst,
          dstPortSeen: 0,
        });
    }
    return;
  }
  const isSyn = pkt.proto !== 'tcp' || (pkt.flags?.syn === true && !pkt.flags.ack);
  const listener =
    cfg.listeners.find(
      (l) => l.proto === pkt.proto && l.port === pkt.dport && l.address === pkt.dst,
    ) ??
    cfg.listeners.find(
      (l) =>
        l.proto === pkt.proto &&
        l.port === pkt.dport &&
        (l.address === '0.0.0.0' || l.address === '::'),
    );
  if (listener && isSyn) {
    emitSocket(
      'delivered',
      listener.process,
      `${listener.address}:${listener.port}`,
      'socket.delivered',
    );
    if (injectedFirst)
      setOutcome({
        kind: 'delivered',
        host: item.host,
        process: listener.process,
        srcSeen: pkt.src,
        srcPortSeen: pkt.sport,
        dstSeen: pkt.dst,
        dstPortSeen: pkt.dport,
      });
    const reply: Packet = {
      proto: pkt.proto,
      src: pkt.dst,
      dst: pkt.src,
      sport: pkt.dport,
      dport: pkt.sport,
      mark: 0,
      ttl: 64,
      payload: listener.reply,
      ...(pkt.proto === 'tcp' ? { flags: SYN_ACK } : {}),
    };
    tracer.emit({
      type: 'send',
      packet: reply,
      process: listener.process,
      reason: 'reply',
      explain: { key: 'send.reply', params: { process: listener.process } },
    });
    enqueue({
      host: item.host,
      op: 'out',
      pkt: reply,
      iface: null,
      ct: null,
      process: listener.process,
    });
    return;
  }
  if (pkt.proto === 'tcp') {
    emitSocket(
      isSyn ? 'no-listener' : 'no-connection',
      null,
      null,
      isSyn ? 'socket.no-listener' : 'socket.no-connection',
    );
    if (injectedFirst)
      setOutcome({ kind: 'refused', via: 'tcp-reset', from: item.host, host: item.host });
    sendReset(
      tracer,
      enqueue,
      item,
      pkt,
      isSyn ? 'send.rst-no-listener' : 'send.rst-no-connection',
      null,
    );
    return;
  }
  emitSocket('no-listener', null, null, 'socket.no-listener-udp');
  if (injectedFirst)
    setOutcome({ kind: 'refused', via: 'icmp-port-unreachable', from: item.host, host: item.host });
  sendIcmpError(tracer, enqueue, item, pkt, 3, pkt.dst);
}
