/** Packets as the engine sees them: an IP header, an L4 header, and the skb mark. */

export type L4Proto = 'tcp' | 'udp' | 'sctp' | 'icmp';

export interface TcpFlags {
  readonly syn: boolean;
  readonly ack: boolean;
  readonly rst: boolean;
  readonly fin: boolean;
  readonly psh: boolean;
  readonly urg: boolean;
}

/** The tuple of the packet an ICMP error is about (its embedded header). */
export interface InnerTuple {
  readonly proto: L4Proto;
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
}

export interface Packet {
  readonly proto: L4Proto;
  readonly src: string;
  readonly dst: string;
  /** Source/destination port; for ICMP echo, both carry the echo identifier (as conntrack does). */
  readonly sport: number;
  readonly dport: number;
  readonly flags?: TcpFlags;
  readonly icmpType?: number;
  readonly icmpCode?: number;
  /** ICMP errors embed the header of the packet that caused them. */
  readonly inner?: InnerTuple;
  /** skb->mark. Cleared when a packet crosses into another network namespace or host. */
  readonly mark: number;
  readonly ttl: number;
  /** Application payload (the listeners' identity line), for display. */
  readonly payload?: string;
}

export const NO_FLAGS: TcpFlags = {
  syn: false,
  ack: false,
  rst: false,
  fin: false,
  psh: false,
  urg: false,
};
export const SYN: TcpFlags = { ...NO_FLAGS, syn: true };
export const SYN_ACK: TcpFlags = { ...NO_FLAGS, syn: true, ack: true };
export const ACK: TcpFlags = { ...NO_FLAGS, ack: true };
export const RST: TcpFlags = { ...NO_FLAGS, rst: true };
export const RST_ACK: TcpFlags = { ...NO_FLAGS, rst: true, ack: true };

export const ICMP_ECHO_REPLY = 0;
export const ICMP_DEST_UNREACH = 3;
export const ICMP_ECHO_REQUEST = 8;

/** ICMP destination-unreachable codes (RFC 792, RFC 1812). */
export const ICMP_UNREACH_CODES: Readonly<Record<number, string>> = {
  0: 'net-unreachable',
  1: 'host-unreachable',
  2: 'protocol-unreachable',
  3: 'port-unreachable',
  9: 'net-prohibited',
  10: 'host-prohibited',
  13: 'admin-prohibited',
};

export function flagsText(f: TcpFlags | undefined): string {
  if (!f) return '';
  const out: string[] = [];
  if (f.syn) out.push('SYN');
  if (f.ack) out.push('ACK');
  if (f.rst) out.push('RST');
  if (f.fin) out.push('FIN');
  if (f.psh) out.push('PSH');
  if (f.urg) out.push('URG');
  return out.join(',');
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** `tcp 10.0.0.1:5000 > 10.96.0.10:80 [SYN] mark=0x4000` */
export function packetText(p: Packet): string {
  let s: string;
  if (p.proto === 'icmp') {
    const what =
      p.icmpType === ICMP_DEST_UNREACH
        ? `unreachable ${ICMP_UNREACH_CODES[p.icmpCode ?? 0] ?? p.icmpCode}`
        : p.icmpType === ICMP_ECHO_REQUEST
          ? 'echo-request'
          : p.icmpType === ICMP_ECHO_REPLY
            ? 'echo-reply'
            : `type ${p.icmpType}`;
    s = `icmp ${p.src} > ${p.dst} ${what}`;
  } else {
    s = `${p.proto} ${hostPort(p.src, p.sport)} > ${hostPort(p.dst, p.dport)}`;
    const f = flagsText(p.flags);
    if (f) s += ` [${f}]`;
  }
  if (p.mark !== 0) s += ` mark=0x${p.mark.toString(16)}`;
  return s;
}

export function endpointText(ip: string, port: number): string {
  return hostPort(ip, port);
}
