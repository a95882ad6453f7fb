/**
 * What a rule's target does when the rule matches, compiled once. iptables targets compile to
 * these operations, and so can other rule languages (nftables verdicts and statements): the walk
 * (chain.ts) knows only operations, not the syntax they came from.
 */
import type { Chain } from './types.ts';

export interface PortRange {
  readonly lo: number;
  readonly hi: number;
}

export type RejectWith =
  | 'icmp-net-unreachable'
  | 'icmp-host-unreachable'
  | 'icmp-port-unreachable'
  | 'icmp-proto-unreachable'
  | 'icmp-net-prohibited'
  | 'icmp-host-prohibited'
  | 'icmp-admin-prohibited'
  | 'tcp-reset';

export type NatOp =
  | { readonly kind: 'dnat'; readonly ip: string | null; readonly ports: PortRange | null }
  | {
      readonly kind: 'snat';
      readonly ip: string;
      readonly ports: PortRange | null;
      readonly randomPort: boolean;
    }
  | { readonly kind: 'masquerade'; readonly ports: PortRange | null; readonly randomPort: boolean }
  | { readonly kind: 'redirect'; readonly ports: PortRange | null };

export type MarkOp =
  | { readonly kind: 'mark'; readonly value: number; readonly mask: number }
  | {
      readonly kind: 'connmark';
      readonly mode: 'set';
      readonly value: number;
      readonly mask: number;
    }
  | {
      readonly kind: 'connmark';
      readonly mode: 'save' | 'restore';
      readonly nfmask: number;
      readonly ctmask: number;
    };

export type TargetOp =
  | { readonly kind: 'none' }
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop' }
  | { readonly kind: 'return' }
  | { readonly kind: 'jump'; readonly chain: Chain }
  | { readonly kind: 'goto'; readonly chain: Chain }
  | NatOp
  | MarkOp
  | { readonly kind: 'reject'; readonly with: RejectWith }
  | { readonly kind: 'log'; readonly prefix: string; readonly via: 'LOG' | 'NFLOG' }
  | { readonly kind: 'trace' }
  | { readonly kind: 'notrack' }
  | { readonly kind: 'unsupported'; readonly what: string };

/** Operations without data are shared by every rule that has them. */
export const NO_TARGET: TargetOp = { kind: 'none' };
export const ACCEPT: TargetOp = { kind: 'accept' };
export const DROP: TargetOp = { kind: 'drop' };
export const RETURN: TargetOp = { kind: 'return' };
export const TRACE: TargetOp = { kind: 'trace' };
export const NOTRACK: TargetOp = { kind: 'notrack' };

/** A user chain as a jump target: the jump and goto to it, one object each for every rule. */
export interface JumpTarget {
  readonly chain: Chain;
  readonly jump: TargetOp;
  readonly goto: TargetOp;
}

export function jumpTarget(chain: Chain): JumpTarget {
  return { chain, jump: { kind: 'jump', chain }, goto: { kind: 'goto', chain } };
}
