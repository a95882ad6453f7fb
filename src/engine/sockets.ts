/**
 * The socket layer the driver plays on each host: client sockets (a probe's connection),
 * listeners that answer, the kernel's own echo replies, resets and port-unreachable errors.
 */
import type { Listener } from './host.ts';
import { ICMP_DEST_UNREACH, SYN_ACK, type Packet } from './packet.ts';
import type { Outcome, ProbeSpec } from './network.ts';
import type { Enqueue, QueueItem } from './queue.ts';
import type { ClientSocket, HostRuntime, HostState } from './runtime.ts';
import { sendIcmpError, sendReset } from './senders.ts';
import type { Tracer } from './trace.ts';

export function firstSource(tracer: Tracer, packetId: number): string | null {
  const ev = tracer.events.find((e) => e.type === 'route' && e.packetId === packetId);
  return ev ? ev.packet.src : null;
}

export function registerClient(
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

/** What the socket layer answers with: the trace, the queue, the probe's outcome. */
export interface SocketEnv {
  readonly tracer: Tracer;
  readonly enqueue: Enqueue;
  readonly setOutcome: (o: Outcome) => void;
}

type SocketResult = 'delivered' | 'no-listener' | 'connected' | 'no-connection';

/** Emits the socket event of `pkt`: what the socket layer did with it, and why. */
type EmitSocket = (
  result: SocketResult,
  process: string | null,
  bind: string | null,
  key: string,
  params?: Record<string, string | number>,
) => void;

function socketEmitter(tracer: Tracer, pkt: Packet): EmitSocket {
  return (result, process, bind, key, params = {}) =>
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
}

/** One packet's place in the socket layer. */
interface Delivery {
  readonly env: SocketEnv;
  readonly item: QueueItem;
  readonly pkt: Packet;
  readonly hs: HostState;
  readonly emit: EmitSocket;
  /** The packet is the first of an injected probe: its outcome is decided here. */
  readonly injectedFirst: boolean;
}

/**
 * A packet delivered locally (after INPUT): an ICMP error or reset for a client socket, the answer
 * a client waits for, an echo request, a new connection to a listener, or the kernel's refusal.
 */
export function socketLayer(
  env: SocketEnv,
  item: QueueItem,
  pkt: Packet,
  runtime: HostRuntime,
  hs: HostState,
  injectedFirst: boolean,
): void {
  const d: Delivery = { env, item, pkt, hs, emit: socketEmitter(env.tracer, pkt), injectedFirst };
  if (toClient(d)) return;
  if (pkt.proto === 'icmp') {
    if (pkt.icmpType === 8) echoReply(d, runtime.config.name);
    return;
  }
  const isSyn = pkt.proto !== 'tcp' || (pkt.flags?.syn === true && !pkt.flags.ack);
  const cfg = runtime.config;
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
  if (listener && isSyn) accept(d, listener);
  else refuse(d, isSyn);
}

/**
 * Whatever comes back to a client socket: an ICMP error or a reset about its connection (refused),
 * or the answer (the probe is answered). False when the packet is for no client socket.
 */
function toClient(d: Delivery): boolean {
  const { pkt, hs, item, emit } = d;
  const { tracer, setOutcome } = d.env;
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
      emit('connected', owner.process, null, 'socket.icmp-error', { code: pkt.icmpCode ?? 0 });
      setOutcome({ kind: 'refused', via: icmpVia(pkt.icmpCode), from: pkt.src, host: item.host });
    }
    return true;
  }
  const client = hs.clients.find(
    (c) =>
      c.proto === pkt.proto &&
      c.local === pkt.dst &&
      c.localPort === pkt.dport &&
      c.remote === pkt.src &&
      c.remotePort === pkt.sport,
  );
  if (pkt.proto === 'tcp' && pkt.flags?.rst) {
    if (client) {
      emit('connected', client.process, null, 'socket.rst');
      setOutcome({ kind: 'refused', via: 'tcp-reset', from: pkt.src, host: item.host });
    }
    return true;
  }
  if (!client) return false;
  emit('connected', client.process, null, 'socket.answer', { payload: pkt.payload ?? '' });
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
  return true;
}

/** How a client was refused, by the ICMP code it received. */
function icmpVia(code: number | undefined): string {
  const name =
    code === 3
      ? 'port-unreachable'
      : code === 1
        ? 'host-unreachable'
        : code === 0
          ? 'net-unreachable'
          : code === 13
            ? 'admin-prohibited'
            : `code-${code}`;
  return `icmp-${name}`;
}

/** The kernel answers an echo request itself (icmp_echo). */
function echoReply(d: Delivery, hostName: string): void {
  const { pkt, item } = d;
  d.emit('delivered', 'kernel', null, 'socket.echo');
  const reply: Packet = {
    ...pkt,
    src: pkt.dst,
    dst: pkt.src,
    icmpType: 0,
    mark: 0,
    ttl: 64,
    payload: `echo-reply from ${hostName}`,
  };
  d.env.enqueue({
    host: item.host,
    op: 'out',
    pkt: reply,
    iface: null,
    ct: null,
    process: 'kernel',
  });
  if (d.injectedFirst)
    d.env.setOutcome({
      kind: 'delivered',
      host: item.host,
      process: 'kernel',
      srcSeen: pkt.src,
      srcPortSeen: 0,
      dstSeen: pkt.dst,
      dstPortSeen: 0,
    });
}

/** A listener takes the new connection and answers (SYN-ACK, or the UDP reply). */
function accept(d: Delivery, listener: Listener): void {
  const { pkt, item } = d;
  const { tracer, enqueue, setOutcome } = d.env;
  d.emit('delivered', listener.process, `${listener.address}:${listener.port}`, 'socket.delivered');
  if (d.injectedFirst)
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
}

/** No socket wants it: TCP gets a reset (tcp_v4_send_reset), UDP a port unreachable. */
function refuse(d: Delivery, isSyn: boolean): void {
  const { pkt, item } = d;
  const { tracer, enqueue, setOutcome } = d.env;
  if (pkt.proto === 'tcp') {
    d.emit(
      isSyn ? 'no-listener' : 'no-connection',
      null,
      null,
      isSyn ? 'socket.no-listener' : 'socket.no-connection',
    );
    if (d.injectedFirst)
      setOutcome({ kind: 'refused', via: 'tcp-reset', from: item.host, host: item.host });
    const key = isSyn ? 'send.rst-no-listener' : 'send.rst-no-connection';
    sendReset(tracer, enqueue, item, pkt, key, null);
    return;
  }
  d.emit('no-listener', null, null, 'socket.no-listener-udp');
  if (d.injectedFirst)
    setOutcome({ kind: 'refused', via: 'icmp-port-unreachable', from: item.host, host: item.host });
  sendIcmpError(tracer, enqueue, item, pkt, 3, pkt.dst);
}
