/** The probe driver's work list: a packet to run through a host's stack, and how to add one. */
import type { BridgeDest } from './bridge.ts';
import type { CtInfo } from './conntrack.ts';
import type { Packet } from './packet.ts';

export interface QueueItem {
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

/** Adds a packet to the queue: a new packet id unless one is given (the same packet, moved). */
export type Enqueue = (item: Omit<QueueItem, 'packetId'>, packetId?: number) => void;
