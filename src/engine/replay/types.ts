/**
 * A real trace as pasted by a user: the steps the kernel reported for each packet, read from
 * `xtables-monitor --trace` (iptables-nft 1.8) or `nft monitor trace` (nftables 1.0) output.
 */

/** One rule, chain end or policy the kernel reported (net/netfilter/nf_tables_trace.c). */
export interface RealStep {
  /** 1-based line of the pasted text. */
  readonly line: number;
  /** `ip`, `ip6`, `inet`... (nft monitor); xtables-monitor prints no family word: `ip`/`ip6`. */
  readonly family: string;
  readonly table: string;
  readonly chain: string;
  readonly kind: 'rule' | 'return' | 'policy';
  /** The nft rule handle (xtables-monitor prints it in hex); null for chain ends and policies. */
  readonly handle: number | null;
  /** In nft's words: `accept`, `drop`, `continue`, `return`, `jump X`, `goto X`, `queue`. */
  readonly verdict: string;
  /** The rule as the monitor printed it (`-A KUBE-SERVICES ...` or nft syntax). */
  readonly text: string;
  /**
   * Only switches tracing on (`-j TRACE`, `meta nftrace set 1`), or belongs to a table that does
   * nothing else: not part of the ruleset under test.
   */
  readonly tracing: boolean;
}

/** Where a base chain first saw the packet: its `PACKET:` / `packet:` line. */
export interface RealHop {
  readonly line: number;
  readonly table: string;
  readonly chain: string | null;
  /** `IN`, `OUT`, `SRC`, `DST`, `SPORT`, `DPORT`, `PROTO`... (xtables-monitor's names). */
  readonly fields: Readonly<Record<string, string>>;
}

/** Every step of one trace id: one packet (an skb) through the hooks of one host. */
export interface RealPacket {
  readonly id: string;
  readonly line: number;
  readonly hops: readonly RealHop[];
  readonly steps: readonly RealStep[];
  /** `tcp 10.0.0.1:40100 → 10.96.0.10:80 SYN`, from its first header. */
  readonly summary: string;
}

/** A line that looks like trace output but cannot be read. */
export interface TraceParseError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface ParsedTrace {
  readonly format: 'xtables' | 'nft' | 'unknown';
  readonly packets: readonly RealPacket[];
  readonly errors: readonly TraceParseError[];
  /** Lines that are not trace output (prompts, blank lines, other messages): skipped. */
  readonly unknown: number;
}
