/** What an nft expression may look at while a packet crosses a base chain. */
import type { CtInfo } from '../conntrack.ts';
import type { HostConfig } from '../host.ts';
import type { Packet } from '../packet.ts';
import type { Hook } from '../rules/types.ts';
import type { Val } from './datatypes.ts';

/** Dynamic sets filled by `update @set { ... }` (kube-proxy's session affinity), per host. */
export type DynamicSets = Map<string, Map<string, number>>;

export interface NftCtx {
  readonly pkt: Packet;
  readonly family: 4 | 6;
  readonly hook: Hook;
  readonly inIf: string | null;
  readonly outIf: string | null;
  readonly ct: CtInfo;
  readonly host: HostConfig;
  /** Simulated clock, seconds. */
  readonly now: number;
  /** Elements added at run time, by `family table set`, then key, with their expiry time. */
  readonly dynamic: DynamicSets;
  /** The table being walked, `family name`, to find its dynamic sets. */
  readonly table: string;
  /** A uniform draw in [0, n) (numgen random); recorded so every branch can be enumerated. */
  random(n: number, label: string): number;
}

/** The packet's L4 protocol number (meta l4proto). */
export function l4protoNum(p: Packet, family: 4 | 6): number {
  switch (p.proto) {
    case 'tcp':
      return 6;
    case 'udp':
      return 17;
    case 'sctp':
      return 132;
    case 'icmp':
      return family === 6 ? 58 : 1;
  }
}

/** Ports exist for these protocols (th sport/dport read them at the same offsets). */
export function hasPorts(p: Packet): boolean {
  return p.proto === 'tcp' || p.proto === 'udp' || p.proto === 'sctp';
}

export function valEq(a: Val, b: Val): boolean {
  return a === b;
}
