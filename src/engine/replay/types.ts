/**
 * A real trace as pasted by a user: the steps the kernel reported for each packet, read from
 * `xtables-monitor --trace` (iptables-nft 1.8), `nft monitor trace` (nftables 1.0), Retis's JSON
 * events (`retis collect -o`) or pwru's output (text or `--output-json`).
 */
import type { Diagnostic } from '../diagnostic.ts';

/** One rule, chain end or policy the kernel reported (net/netfilter/nf_tables_trace.c). */
export interface RealStep {
  /** 1-based line of the pasted text. */
  readonly line: number;
  /**
   * `ip`, `ip6`, `inet`... (nft monitor); xtables-monitor prints no family word: `ip`/`ip6`.
   * Empty when the tracer does not say (Retis's nft section names no family): any family.
   */
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

/**
 * Where the packet was in the stack, from a kernel function an eBPF tracer (pwru, Retis) saw
 * it in: the netfilter hook that function runs (see stages.ts), the device that received it,
 * the bridge, the socket layer, the device it left by, or its drop.
 */
export type Stage =
  | 'PREROUTING'
  | 'INPUT'
  | 'FORWARD'
  | 'OUTPUT'
  | 'POSTROUTING'
  | 'receive'
  | 'bridge'
  | 'socket'
  | 'xmit'
  | 'drop';

export interface RealStage {
  readonly line: number;
  readonly stage: Stage;
  /** The kernel functions seen there, in order, as the tracer printed them. */
  readonly funcs: readonly string[];
  /** A netfilter table ran there (nf_hook_slow, ipt_do_table, nft_do_chain were seen). */
  readonly tables: boolean;
  /** For a drop: the kernel's reason (`NETFILTER_DROP`, `NO_SOCKET`...), or null. */
  readonly reason: string | null;
}

/** Every step of one trace id: one packet (an skb) through the hooks of one host. */
export interface RealPacket {
  readonly id: string;
  readonly line: number;
  readonly hops: readonly RealHop[];
  readonly steps: readonly RealStep[];
  /**
   * The stages it passed, for tracers that report kernel functions (pwru; Retis's kernel
   * probes): empty for the netfilter monitors.
   */
  readonly stages: readonly RealStage[];
  /** `tcp 10.0.0.1:40100 → 10.96.0.10:80 SYN`, from its first header. */
  readonly summary: string;
}

export type TraceFormat = 'xtables' | 'nft' | 'retis' | 'pwru' | 'unknown';

export interface ParsedTrace {
  readonly format: TraceFormat;
  readonly packets: readonly RealPacket[];
  readonly errors: readonly Diagnostic[];
  /** Lines that are not trace output (prompts, blank lines, other messages): skipped. */
  readonly unknown: number;
  /**
   * The only verdicts the tracer collected, when it says so: Retis's nft collector reports
   * `drop,accept` unless asked for `--nft-verdicts all` (then the lab's other steps are not
   * compared).
   */
  readonly onlyVerdicts?: readonly string[];
}
