/**
 * What the kernel sends on its own: a TCP reset (tcp_v4_send_reset, REJECT --reject-with
 * tcp-reset) and ICMP destination-unreachable errors (icmp_send, REJECT's icmp-* types).
 */
import { tupleOf, type CtInfo } from './conntrack.ts';
import { ICMP_DEST_UNREACH, RST_ACK, type Packet } from './packet.ts';
import type { Enqueue, QueueItem } from './queue.ts';
import type { RejectWith } from './rules/target-op.ts';
import type { Tracer } from './trace.ts';

/** ICMP codes of REJECT's `--reject-with icmp-*` types (include/uapi/linux/icmp.h). */
export const REJECT_ICMP_CODES: Readonly<Record<Exclude<RejectWith, 'tcp-reset'>, number>> = {
  'icmp-net-unreachable': 0,
  'icmp-host-unreachable': 1,
  'icmp-proto-unreachable': 2,
  'icmp-port-unreachable': 3,
  'icmp-net-prohibited': 9,
  'icmp-host-prohibited': 10,
  'icmp-admin-prohibited': 13,
};

/** The kernel answers a TCP segment with a reset (tcp_v4_send_reset, or REJECT --reject-with tcp-reset). */
export function sendReset(
  tracer: Tracer,
  enqueue: Enqueue,
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

export function sendIcmpError(
  tracer: Tracer,
  enqueue: Enqueue,
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
export function rejectCt(ct: CtInfo): CtInfo | null {
  if (!ct.conn) return null;
  return { conn: ct.conn, dir: ct.dir === 'original' ? 'reply' : 'original', state: 'RELATED' };
}
