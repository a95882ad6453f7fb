/**
 * The parsed form of an nftables ruleset (`nft list ruleset`, an `nft -f` transaction file, or
 * `nft -j list ruleset`): tables of a family, their base and regular chains, rules compiled into
 * statements, named sets and maps. Mirrors the kernel's objects (net/netfilter/nf_tables_api.c):
 * handles are allocated per table in the order nft sends the objects, as the kernel does.
 */
import type { NatOp, RejectWith } from '../rules/target-op.ts';
import type { Diagnostic } from '../diagnostic.ts';
import type { DataType, Interval, Val } from './datatypes.ts';
import type { NftCtx } from './context.ts';

export type NftFamily = 'ip' | 'ip6' | 'inet' | 'arp' | 'bridge' | 'netdev';
export type NftHook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting' | 'ingress';
export type ChainType = 'filter' | 'nat' | 'route';

export interface BaseChain {
  readonly type: ChainType;
  readonly hook: NftHook;
  /** Numeric priority (named priorities resolved: `dstnat - 10` is -110). */
  readonly priority: number;
  /** The priority as written, for display. */
  readonly priorityText: string;
  policy: 'accept' | 'drop';
}

/** A verdict: what a rule (or a verdict map element) tells the chain walk. */
export type NftVerdict =
  | { readonly code: 'accept' | 'drop' | 'continue' | 'return' | 'queue' }
  | { readonly code: 'jump' | 'goto'; readonly chain: string };

/**
 * A left-hand expression: something read from the packet, its metadata or conntrack. `get`
 * returns null when the kernel would break out of the rule (the header is absent: `tcp dport`
 * on a UDP packet, `ip saddr` on an IPv6 packet in an inet table).
 */
export interface KeyExpr {
  readonly text: string;
  readonly type: DataType;
  get(c: NftCtx): Val | null;
  /** A statement may write it (`meta mark set`, `ct mark set`, `meta nftrace set`). */
  readonly writable?: 'mark' | 'ctmark' | 'nftrace';
  /** Reading it takes a random draw or a counter (numgen): a second walk may differ. */
  readonly stateful?: boolean;
  /** Needs the packet's conntrack entry (so conntrack must be loaded in the namespace). */
  readonly usesCt?: boolean;
}

export interface SetElement {
  readonly key: readonly Interval[];
  readonly data: NftVerdict | Interval | null;
  readonly comment: string | null;
  readonly line: number;
}

export interface NftSet {
  readonly name: string;
  readonly kind: 'set' | 'map';
  readonly anonymous: boolean;
  readonly line: number;
  readonly column: number;
  /** Anonymous sets get theirs once read: nft folds a one-element set into a comparison. */
  handle: number;
  /** Key fields (more than one for a concatenation). */
  fields: readonly DataType[];
  /** Map data: a data type, or verdicts; null for a set. */
  data: DataType | 'verdict' | null;
  readonly flags: Set<string>;
  comment: string | null;
  /** Default timeout of elements, seconds (0: they never expire). */
  timeout: number;
  /** Elements with only exact key parts, by key (see keyString). */
  readonly exact: Map<string, SetElement>;
  /** Elements with a prefix or range in a key part, in insertion order. */
  readonly ranges: SetElement[];
  /** Source text of the declaration, for the rules panel. */
  text: string;
}

/** A compiled statement of a rule; the walk (walk.ts) performs them in order. */
export type Stmt =
  | { readonly kind: 'test'; readonly text: string; test(c: NftCtx): boolean }
  | {
      readonly kind: 'vmap';
      readonly text: string;
      readonly key: readonly KeyExpr[];
      readonly set: SetRef;
    }
  | { readonly kind: 'verdict'; readonly text: string; readonly verdict: NftVerdict }
  | {
      readonly kind: 'nat';
      readonly text: string;
      readonly op: NatOp;
      /** What to show in traces: DNAT, SNAT, MASQUERADE, REDIRECT. */
      readonly target: string;
    }
  | { readonly kind: 'reject'; readonly text: string; readonly with: RejectWith }
  | {
      readonly kind: 'write';
      readonly text: string;
      readonly what: 'mark' | 'ctmark' | 'nftrace';
      value(c: NftCtx): number | null;
    }
  | { readonly kind: 'counter'; readonly text: string }
  | {
      readonly kind: 'log';
      readonly text: string;
      readonly prefix: string;
      readonly group: boolean;
    }
  | { readonly kind: 'notrack'; readonly text: string }
  | {
      readonly kind: 'update';
      readonly text: string;
      readonly set: SetRef;
      readonly key: readonly KeyExpr[];
    }
  | { readonly kind: 'unsupported'; readonly text: string; readonly what: string };

/** A named set (resolved when the ruleset is complete) or an anonymous one. */
export interface SetRef {
  readonly name: string;
  set: NftSet | null;
}

export interface NftRule {
  readonly chain: string;
  /** 1-based position in its chain (as `nft -a list` would list it); updated on insertion. */
  index: number;
  readonly handle: number;
  readonly line: number;
  readonly column: number;
  /** The statements as written (no `add rule ip t c` prefix, no `# handle` comment). */
  readonly text: string;
  readonly comment: string | null;
  readonly stmts: readonly Stmt[];
  /** Reads or writes state a second walk would see (numgen, dynamic sets, marks). */
  readonly stateful: boolean;
}

export interface NftChain {
  readonly name: string;
  readonly table: NftTable;
  readonly line: number;
  readonly column: number;
  readonly handle: number;
  base: BaseChain | null;
  rules: NftRule[];
  comment: string | null;
}

export interface NftTable {
  readonly family: NftFamily;
  readonly name: string;
  readonly line: number;
  readonly column: number;
  comment: string | null;
  readonly chains: Map<string, NftChain>;
  readonly sets: Map<string, NftSet>;
  /** The next object handle in this table (nf_tables_api.c: table->hgenerator, from 1). */
  nextHandle: number;
  /**
   * A rule uses conntrack (ct expressions, NAT): nft_ct_init / nft_nat_init take conntrack for
   * the table's family in the namespace (nf_ct_netns_get). Without it no packet is tracked.
   */
  conntrack: boolean;
  /** Its base chains in declaration order, listed when the ruleset is complete (hook plans). */
  bases: NftChain[];
}

export interface NftRuleset {
  readonly tables: NftTable[];
}

export interface NftParseResult {
  readonly ruleset: NftRuleset;
  readonly diagnostics: Diagnostic[];
  /** False when any diagnostic is an error; the ruleset then holds what could be read. */
  readonly ok: boolean;
}

/** `ip kube-proxy` */
export function tableId(t: { readonly family: NftFamily; readonly name: string }): string {
  return `${t.family} ${t.name}`;
}
