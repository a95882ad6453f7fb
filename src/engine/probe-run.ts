/**
 * One probe, run to its end: the driver's event loop. A queue holds packets waiting for a host's
 * stack (sent by a process, arriving on an interface, entering a bridge); each step runs one
 * through the stack and acts on what came out: put it on the wire (ARP decides the receiver),
 * loop it back, deliver it to the socket layer, or drop it, with the kernel's RST / ICMP answers.
 */
import type { Chooser } from './choice.ts';
import { isLocalAddr, sourceAddressFor } from './host.ts';
import type { Network, NetworkState, Outcome, ProbeSpec, RunResult } from './network.ts';
import type { Packet } from './packet.ts';
import type { Enqueue, QueueItem } from './queue.ts';
import { newHostState, type HostRuntime, type HostState } from './runtime.ts';
import { rejectCt, REJECT_ICMP_CODES, sendIcmpError, sendReset } from './senders.ts';
import { firstSource, registerClient, socketLayer, type SocketEnv } from './sockets.ts';
import { output, receive, type StackEnv } from './stack.ts';
import { bridgeInput, isBridge, masterOf, type BridgeResult } from './bridge.ts';
import { Tracer } from './trace.ts';
import { destBehind, resolveNextHop, wirePeer } from './wire.ts';

/** Steps (packets through a host's stack) before a probe is cut short. */
const MAX_STEPS = 256;

export function hostState(s: NetworkState, name: string): HostState {
  let h = s.hosts.get(name);
  if (!h) s.hosts.set(name, (h = newHostState()));
  return h;
}

type Result<K extends BridgeResult['kind']> = Extract<BridgeResult, { kind: K }>;

export class ProbeRun {
  readonly tracer = new Tracer();
  private readonly queue: QueueItem[] = [];
  private readonly probeId: number;
  private outcome: Outcome | null = null;
  private lastDrop: { host: string; reason: string } | null = null;
  private packetCounter = 0;
  private readonly enqueue: Enqueue = (item, packetId) =>
    this.queue.push({ ...item, packetId: packetId ?? ++this.packetCounter });
  private readonly sockets: SocketEnv = {
    tracer: this.tracer,
    enqueue: this.enqueue,
    setOutcome: (o) => this.setOutcome(o),
  };

  constructor(
    private readonly net: Network,
    private readonly state: NetworkState,
    private readonly probe: ProbeSpec,
    private readonly chooser: Chooser,
  ) {
    this.probeId = state.nextProbe++;
    this.tracer.trackId = this.probeId;
    state.now += 1;
  }

  /** The probe's packets, step by step, until none is left (or MAX_STEPS). */
  run(): RunResult {
    const unknown = this.start();
    if (unknown) return { outcome: unknown, events: [] };
    for (let steps = 0; this.queue.length && steps < MAX_STEPS; steps++)
      this.step(this.queue.shift() as QueueItem);
    return { outcome: this.outcome ?? this.noAnswer(), events: this.tracer.events };
  }

  /** Queues the first packet; an outcome when the probe names no host. */
  private start(): Outcome | null {
    const probe = this.probe;
    const name = probe.kind === 'connect' ? probe.from : probe.host;
    const src = this.net.hosts.get(name);
    if (!src) return { kind: 'unsupported', host: name, what: `no host named ${name}`, line: 0 };
    if (probe.kind === 'inject') {
      this.enqueue({
        host: probe.host,
        op: 'in',
        pkt: probe.packet,
        iface: probe.iface,
        ct: null,
        process: '',
      });
      return null;
    }
    const hs = hostState(this.state, probe.from);
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
    this.tracer.host = probe.from;
    this.tracer.packetId = 1;
    this.tracer.emit({
      type: 'send',
      packet: pkt,
      process,
      reason: 'probe',
      explain: {
        key: 'send.probe',
        params: { process, dst: probe.dst, dport: probe.dport, proto: probe.proto },
      },
    });
    this.enqueue({ host: probe.from, op: 'out', pkt, iface: null, ct: null, process });
    return null;
  }

  private setOutcome(o: Outcome): void {
    if (!this.outcome) this.outcome = o;
  }

  /** The probe's own first packet (its outcome is decided by what happens to it). */
  private isFirst(item: QueueItem): boolean {
    return item.packetId === 1;
  }

  /** Nothing decided the outcome: the sender waits in vain, or the injected packet is gone. */
  private noAnswer(): Outcome {
    const last = this.lastDrop;
    return this.probe.kind === 'inject'
      ? { kind: 'dropped', host: last?.host ?? '', reason: last?.reason ?? 'no answer' }
      : {
          kind: 'timeout',
          reason: last?.reason ?? 'no answer came back',
          host: last?.host ?? null,
        };
  }

  /** One packet through one host's stack, then what its result asks for. */
  private step(item: QueueItem): void {
    const runtime = this.net.hosts.get(item.host) as HostRuntime;
    const hs = hostState(this.state, item.host);
    this.tracer.host = item.host;
    this.tracer.packetId = item.packetId;
    const res = this.runStack(item, runtime, hs);
    switch (res.kind) {
      case 'bridged':
        return this.bridged(item, runtime, res);
      case 'transmit':
        return this.transmit(item, runtime, res);
      case 'loopback':
        return this.enqueue(
          { host: item.host, op: 'in', pkt: res.pkt, iface: 'lo', ct: res.ct, process: '' },
          item.packetId,
        );
      case 'dropped':
        return this.dropped(item, res);
      case 'rejected':
        return this.rejected(item, runtime, res);
      case 'unreachable':
        this.emitDrop(res.pkt, res.reason, 'drop.unreachable', { reason: res.reason });
        this.lastDrop = { host: item.host, reason: res.reason };
        if (!res.local) sendIcmpError(this.tracer, this.enqueue, item, res.pkt, res.code);
        return;
      case 'unsupported':
        this.setOutcome({ kind: 'unsupported', host: item.host, what: res.what, line: res.line });
        this.queue.length = 0;
        return;
      case 'local':
        return socketLayer(
          this.sockets,
          item,
          res.pkt,
          runtime,
          hs,
          this.probe.kind === 'inject' && this.isFirst(item),
        );
    }
  }

  /** The host's stack for the item: a bridge's input, a locally sent packet, or a received one. */
  private runStack(item: QueueItem, runtime: HostRuntime, hs: HostState): BridgeResult {
    const { net, probe, chooser } = this;
    const env: StackEnv = {
      tracer: this.tracer,
      host: runtime,
      state: hs,
      now: this.state.now,
      pick: (w, l, r) => chooser.pick(w, l, r),
    };
    const pkt = item.pkt;
    if (item.op === 'bridge') {
      const port = item.iface ?? '';
      const bridge = masterOf(runtime.config, port) ?? '';
      return bridgeInput(env, pkt, bridge, port, item.dest ?? { kind: 'local' }, (ip) =>
        destBehind(net, item.host, bridge, resolveNextHop(net, item.host, bridge, ip)),
      );
    }
    if (item.op === 'in') return receive(env, pkt, item.iface ?? 'lo', item.ct);
    const res = output(env, pkt, item.ct);
    if (probe.kind === 'connect' && this.isFirst(item)) {
      // The socket learns its source address from the first routing decision.
      if (res.kind !== 'unreachable') {
        const src = firstSource(this.tracer, item.packetId) ?? res.pkt.src;
        registerClient(hs, { ...pkt, src }, probe, this.probeId);
      } else this.setOutcome({ kind: 'unreachable', reason: res.reason, host: item.host });
    }
    return res;
  }

  private emitDrop(
    pkt: Packet,
    reason: string,
    key: string,
    params: Record<string, string | number>,
  ): void {
    this.tracer.emit({ type: 'drop', packet: pkt, reason, explain: { key, params } });
  }

  /** Out of a bridge port to the host on its wire (the bridge forwarded the frame). */
  private bridged(item: QueueItem, runtime: HostRuntime, res: Result<'bridged'>): void {
    const segment = runtime.config.ifaces.get(res.outPort)?.segment ?? '';
    this.tracer.emit({
      type: 'wire',
      packet: res.pkt,
      fromIf: res.outPort,
      toHost: res.toHost,
      toIf: res.toIf,
      segment,
      nextHop: res.pkt.dst,
      explain: {
        key: 'wire.send',
        params: { from: item.host, to: res.toHost, iface: res.toIf, segment },
      },
    });
    this.enqueue(
      {
        host: res.toHost,
        op: 'in',
        pkt: { ...res.pkt, mark: 0 },
        iface: res.toIf,
        ct: null,
        process: '',
      },
      item.packetId,
    );
  }

  /** Out of an interface: ARP finds the receiver, or the packet leaves the network / is lost. */
  private transmit(item: QueueItem, runtime: HostRuntime, res: Result<'transmit'>): void {
    const { net } = this;
    const pkt = res.pkt;
    const hop = resolveNextHop(net, item.host, res.outIf, res.nextHop, pkt.src);
    if (hop === 'no-segment' || hop === null) return this.lost(item, res, hop);
    // Out of a bridge device (br_dev_xmit): the bridge picks the port behind which the
    // next hop's MAC sits; no IPv4 hook runs again (br_nf_post_routing: no out port yet,
    // POSTROUTING already ran in the IP stack).
    let fromIf = res.outIf;
    if (isBridge(runtime.config, res.outIf)) {
      const d = destBehind(net, item.host, res.outIf, hop);
      fromIf = d?.kind === 'port' ? d.port : res.outIf;
      this.tracer.emit({
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
    this.tracer.emit({
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
    this.enqueue(
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
  }

  /** Nobody receives the frame: the interface leads out of the modelled network, or ARP fails. */
  private lost(item: QueueItem, res: Result<'transmit'>, hop: 'no-segment' | null): void {
    const pkt = res.pkt;
    if (hop === 'no-segment') {
      this.emitDrop(pkt, 'left-network', 'wire.left', { iface: res.outIf, nextHop: res.nextHop });
      if (this.isFirst(item))
        this.setOutcome({
          kind: 'forwarded',
          host: item.host,
          iface: res.outIf,
          nextHop: res.nextHop,
          packet: pkt,
        });
      return;
    }
    this.emitDrop(pkt, 'arp-failed', 'wire.arp-failed', { nextHop: res.nextHop, iface: res.outIf });
    this.lastDrop = {
      host: item.host,
      reason: `nobody answers ARP for ${res.nextHop} on ${res.outIf}`,
    };
    if (item.op === 'out' && this.probe.kind === 'connect' && this.isFirst(item))
      this.setOutcome({
        kind: 'unreachable',
        reason: `no host answers ARP for ${res.nextHop}`,
        host: item.host,
      });
    else sendIcmpError(this.tracer, this.enqueue, item, pkt, 1);
  }

  private dropped(item: QueueItem, res: Result<'dropped'>): void {
    this.emitDrop(res.pkt, res.reason, 'drop', { reason: res.reason });
    this.lastDrop = { host: item.host, reason: res.reason };
    if (this.probe.kind === 'inject' && this.isFirst(item))
      this.setOutcome({ kind: 'dropped', host: item.host, reason: res.reason });
  }

  /** REJECT: the packet is dropped and the kernel answers with a reset or an ICMP error. */
  private rejected(item: QueueItem, runtime: HostRuntime, res: Result<'rejected'>): void {
    const pkt = res.pkt;
    this.lastDrop = { host: item.host, reason: `rejected (${res.with})` };
    if (this.probe.kind === 'inject' && this.isFirst(item))
      this.setOutcome({ kind: 'refused', via: res.with, from: item.host, host: item.host });
    if (res.with === 'tcp-reset') {
      sendReset(this.tracer, this.enqueue, item, pkt, 'send.reject-rst', rejectCt(res.ct));
      return;
    }
    const src = isLocalAddr(runtime.config, pkt.dst) ? pkt.dst : '';
    const code = REJECT_ICMP_CODES[res.with];
    sendIcmpError(this.tracer, this.enqueue, item, pkt, code, src, rejectCt(res.ct));
  }
}
