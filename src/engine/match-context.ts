/** What a compiled match or target may look at while a packet traverses a chain. */
import type { CtInfo } from './conntrack.ts';
import type { HostConfig } from './host.ts';
import type { CompiledSet } from './ipset.ts';
import type { IpvsConn } from './ipvs/table.ts';
import type { Packet } from './packet.ts';
import type { Hook, Rule } from './rules/types.ts';

/**
 * struct nf_bridge_info as the physdev match reads it (include/linux/netfilter_bridge.h
 * nf_bridge_get_physindev / physoutdev): the bridge port a frame came in on, and the port it
 * leaves by once the bridge has decided (set in br_nf_forward_ip, so only in FORWARD and
 * POSTROUTING of a bridged frame). A routed packet that entered by a bridge keeps its in port.
 */
export interface PhysDevs {
  readonly in: string | null;
  readonly out: string | null;
}

/** Mutable per-host state that rules can read and write (xt_recent lists, statistic nth counters). */
export interface RuleState {
  /** recent lists: name -> address -> hit timestamps (seconds). */
  readonly recent: Map<string, Map<string, number[]>>;
  /** `-m statistic --mode nth` counters by rule identity. */
  readonly nth: Map<string, number>;
  /** nft dynamic sets (`update @set { ip saddr }`): `family table set` -> key -> expiry (s). */
  readonly nft: Map<string, Map<string, number>>;
}

export function newRuleState(): RuleState {
  return { recent: new Map(), nth: new Map(), nft: new Map() };
}

export function cloneRuleState(s: RuleState): RuleState {
  const recent = new Map<string, Map<string, number[]>>();
  for (const [k, v] of s.recent) recent.set(k, new Map([...v].map(([a, t]) => [a, [...t]])));
  const nft = new Map([...s.nft].map(([k, v]) => [k, new Map(v)]));
  return { recent, nth: new Map(s.nth), nft };
}

export interface MatchCtx {
  readonly pkt: Packet;
  /** The packet's protocol number (tcp 6, udp 17, icmp 1, sctp 132). */
  readonly protoNum: number;
  readonly srcNum: number | bigint | null;
  readonly dstNum: number | bigint | null;
  readonly inIf: string | null;
  readonly outIf: string | null;
  readonly hook: Hook;
  readonly ct: CtInfo;
  readonly host: HostConfig;
  readonly sets: ReadonlyMap<string, CompiledSet>;
  readonly state: RuleState;
  /** Simulated clock in seconds. */
  readonly now: number;
  /**
   * The rule whose matches are being evaluated (set by the chain walk before its matches run):
   * a match shared by many rules, such as a statistic chance, names its rule from here.
   */
  rule: Rule | null;
  /** Decides a `statistic --mode random` branch; the chooser records it for enumeration. */
  choose(probability: number, rule: Rule): boolean;
  /**
   * For `-m ipvs`: skb->ipvs_property (IPVS sent or translated this packet) and the host's IPVS
   * connection table. Absent where IPVS never touched the packet.
   */
  readonly ipvs?: { readonly property: boolean; readonly conns: readonly IpvsConn[] };
  /** skb->nf_bridge, absent when the packet never went through br_netfilter. */
  readonly phys?: PhysDevs;
}
