/**
 * The trace: one structured event per step a packet takes (hook, rule, conntrack, routing,
 * socket, wire), in the order the kernel takes them. Modelled on Retis events and on the
 * `table:chain:rule N:verdict` notation of `xtables-monitor --trace`. The diagram, the trace
 * panel and the CLI all read this; fields are only ever added, never renamed.
 */
import type { CtDir, CtState, Tuple } from './conntrack.ts';
import type { Packet } from './packet.ts';
import type { Hook, TableName } from './rules/types.ts';

/** A plain-language explanation: a message key with parameters (see explain.ts for English). */
export interface Explain {
  readonly key: string;
  readonly params?: Readonly<Record<string, string | number>>;
}

export interface EventBase {
  readonly seq: number;
  readonly host: string;
  /** The connection this packet belongs to; it survives NAT and crossing hosts. */
  readonly trackId: number;
  /** Which packet of the exchange (1 = the probe's first packet, then replies, resets...). */
  readonly packetId: number;
  /** The packet as it is at this step (after any rewrite the step made). */
  readonly packet: Packet;
  readonly explain: Explain;
}

/** A connection entry as it stood at one step: its id in the host's table and both tuples. */
export interface CtSnapshot {
  readonly id: number;
  readonly orig: Tuple;
  readonly reply: Tuple;
}

/**
 * Where an nftables step happened, beside the xtables fields of the same event: for an nft
 * base chain, `table` of the event is the iptables table it runs beside at that hook (the
 * diagram row), and this names the real table, chain, rule handle and verdict as
 * `nft monitor trace` prints them (net/netfilter/nf_tables_trace.c).
 */
export interface NftTraceInfo {
  /** `ip`, `ip6` or `inet`. */
  readonly family: string;
  readonly table: string;
  readonly chain: string;
  /** The rule's handle (rule events), null otherwise. */
  readonly handle: number | null;
  /** Base chain type and priority (hook events). */
  readonly type?: 'filter' | 'nat' | 'route';
  readonly priority?: number;
  /** The verdict in nft's words: `accept`, `drop`, `continue`, `return`, `jump X`, `goto X`. */
  readonly verdict?: string;
}

/**
 * - `local`: the frame is for the bridge's own MAC (the pod's gateway): up the host's IP stack;
 * - `forward`: the bridge sends it out of the port behind which the destination sits;
 * - `hairpin-drop`: that port is the one it came in on and hairpin mode is off (should_deliver);
 * - `xmit`: the host's IP stack sends out of the bridge device (br_dev_xmit), to a port;
 * - `nf-prerouting`, `nf-forward`, `nf-postrouting`: br_netfilter runs the IPv4 hooks
 *   (bridge-nf-call-iptables=1);
 * - `nf-off`: bridge-nf-call-iptables=0, so a bridged frame meets no iptables rule and no
 *   conntrack;
 * - `dnat-bridged`: after a DNAT in br_netfilter's PREROUTING the new destination sits behind the
 *   same bridge, so the frame is bridged to it (br_nf_pre_routing_finish_bridge).
 */
export type BridgeAction =
  | 'local'
  | 'forward'
  | 'hairpin-drop'
  | 'xmit'
  | 'nf-prerouting'
  | 'nf-forward'
  | 'nf-postrouting'
  | 'nf-off'
  | 'dnat-bridged';

/** The kernel's verdict of a rule or chain, as xtables-monitor prints it. */
export type Verdict = 'CONTINUE' | 'ACCEPT' | 'DROP' | 'RETURN' | 'JUMP' | 'GOTO' | 'QUEUE';

export type TraceEvent = EventBase &
  (
    | {
        readonly type: 'send';
        readonly process: string;
        readonly reason: 'probe' | 'reply' | 'reset' | 'icmp-error';
      }
    | {
        readonly type: 'wire';
        readonly fromIf: string;
        readonly toHost: string;
        readonly toIf: string;
        readonly segment: string;
        readonly nextHop: string;
      }
    | { readonly type: 'receive'; readonly iface: string }
    | {
        /**
         * A Linux bridge's decision about a frame (net/bridge/br_input.c br_handle_frame_finish,
         * br_forward.c, br_device.c br_dev_xmit) and br_netfilter's passes through the IPv4
         * hooks (br_netfilter_hooks.c): see BridgeAction.
         */
        readonly type: 'bridge';
        readonly bridge: string;
        readonly action: BridgeAction;
        /** The port the frame came in on (null: sent by the host itself, br_dev_xmit). */
        readonly inPort: string | null;
        /** The port it leaves by, once known. */
        readonly outPort: string | null;
      }
    | {
        readonly type: 'hook';
        readonly hook: Hook;
        readonly table: TableName;
        /** Set for nftables steps (see NftTraceInfo). */
        readonly nft?: NftTraceInfo;
        /** The table has this built-in chain only implicitly (not declared in the dump). */
        readonly implicit: boolean;
      }
    | {
        readonly type: 'rule';
        readonly hook: Hook;
        readonly table: TableName;
        /** Set for nftables steps (see NftTraceInfo). */
        readonly nft?: NftTraceInfo;
        readonly chain: string;
        readonly rule: number;
        readonly line: number;
        readonly text: string;
        readonly verdict: Verdict;
        /** Jump/goto destination, or the extension target (DNAT, MARK, ...). */
        readonly target: string | null;
        readonly before: Packet;
        /** Probability of the statistic branch this rule took, when it has one. */
        readonly probability: number | null;
        /**
         * The connection entry right after a NAT target bound its mapping (nf_nat_setup_info
         * alters the reply tuple the entry expects, nf_conntrack_alter_reply); absent otherwise.
         */
        readonly conn?: CtSnapshot;
      }
    | {
        readonly type: 'miss';
        readonly hook: Hook;
        readonly table: TableName;
        /** Set for nftables steps (see NftTraceInfo). */
        readonly nft?: NftTraceInfo;
        readonly chain: string;
        /** Inclusive range of consecutive rules that did not match. */
        readonly from: number;
        readonly to: number;
      }
    | {
        readonly type: 'return';
        readonly hook: Hook;
        readonly table: TableName;
        /** Set for nftables steps (see NftTraceInfo). */
        readonly nft?: NftTraceInfo;
        readonly chain: string;
      }
    | {
        readonly type: 'policy';
        readonly hook: Hook;
        readonly table: TableName;
        /** Set for nftables steps (see NftTraceInfo). */
        readonly nft?: NftTraceInfo;
        readonly chain: string;
        readonly verdict: 'ACCEPT' | 'DROP';
      }
    | {
        readonly type: 'nat-skip';
        readonly hook: Hook;
        readonly reason: 'not-new' | 'untracked' | 'invalid';
      }
    | {
        readonly type: 'conntrack';
        readonly action:
          'new' | 'lookup' | 'invalid' | 'untracked' | 'confirm' | 'nat' | 'keep' | 'related';
        /**
         * Where the kernel did it: nf_conntrack_in runs at PRE_ROUTING / LOCAL_OUT with priority
         * NF_IP_PRI_CONNTRACK (-200, after raw, before mangle); nf_conntrack_confirm at
         * POST_ROUTING / LOCAL_IN with NF_IP_PRI_CONNTRACK_CONFIRM (INT_MAX, after every table);
         * a recorded NAT binding is applied where the nat table sits (nf_nat_inet_fn).
         * (net/netfilter/nf_conntrack_proto.c ipv4_conntrack_ops; include/uapi/linux/netfilter_ipv4.h)
         */
        readonly hook: Hook;
        readonly state: CtState;
        readonly dir: CtDir;
        readonly connId: number | null;
        readonly orig: Tuple | null;
        readonly reply: Tuple | null;
        readonly before: Packet | null;
      }
    | {
        readonly type: 'route';
        readonly decision: 'local' | 'forward' | 'output' | 'reroute' | 'drop' | 'unreachable';
        readonly reason: string;
        readonly dev: string | null;
        readonly via: string | null;
        readonly routeText: string | null;
      }
    | {
        readonly type: 'socket';
        readonly result: 'delivered' | 'no-listener' | 'connected' | 'no-connection';
        readonly process: string | null;
        readonly bind: string | null;
      }
    | { readonly type: 'log'; readonly prefix: string; readonly via: 'LOG' | 'NFLOG' }
    | {
        /**
         * An IPVS decision at one of its hooks (net/netfilter/ipvs/ip_vs_core.c): a new
         * connection scheduled to a real server, a packet of a known connection, a reply
         * translated back, a virtual service without real servers. Modelled from the kernel
         * sources, not checked on a kernel.
         */
        readonly type: 'ipvs';
        readonly hook: Hook;
        readonly action:
          'schedule' | 'persist' | 'connection' | 'reply' | 'no-dest' | 'not-scheduled' | 'local';
        /** `TCP 10.96.0.10:53 rr`, as ipvsadm -Ln prints the virtual service. */
        readonly service: string | null;
        /** `10.244.1.5:53`: the real server. */
        readonly realServer: string | null;
        readonly before: Packet;
      }
    | {
        readonly type: 'unsupported';
        readonly what: string;
        readonly line: number | null;
        readonly text: string | null;
      }
    | { readonly type: 'drop'; readonly reason: string }
  );

export type EventType = TraceEvent['type'];

/** Distributes the Omit over the union so each variant keeps its own fields. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewEvent = DistributiveOmit<TraceEvent, 'seq' | 'host' | 'trackId' | 'packetId'>;

/** Collects events; one per simulation run. */
export class Tracer {
  readonly events: TraceEvent[] = [];
  host = '';
  trackId = 0;
  packetId = 0;
  emit(e: NewEvent): void {
    this.events.push({
      ...e,
      seq: this.events.length,
      host: this.host,
      trackId: this.trackId,
      packetId: this.packetId,
    } as TraceEvent);
  }
}

/**
 * `nat:KUBE-SERVICES:rule:3:JUMP:KUBE-SVC-XYZ`, as xtables-monitor --trace writes rule events.
 * Null for nftables steps (see nftNotation) and for events that are not rule steps.
 */
export function xtablesNotation(e: TraceEvent): string | null {
  if ('nft' in e && e.nft) return null;
  switch (e.type) {
    case 'rule': {
      const v =
        e.verdict === 'JUMP' || e.verdict === 'GOTO' ? `${e.verdict}:${e.target}` : e.verdict;
      return `${e.table}:${e.chain}:rule:${e.rule}:${v}`;
    }
    case 'return':
      return `${e.table}:${e.chain}:return:`;
    case 'policy':
      return `${e.table}:${e.chain}:policy:${e.verdict}`;
    default:
      return null;
  }
}

/**
 * `ip kube-proxy services rule ip daddr . meta l4proto . th dport vmap @service-ips # handle 12
 * (verdict goto service-X)`, as `nft -a monitor trace` writes rule events (without its `trace
 * id`); `ip kube-proxy nat-prerouting policy accept` for a base chain's policy; `... packet`
 * where a base chain first sees the packet. Null for other events and for iptables steps.
 * The kernel prints rules in its canonical form (`meta mark set meta mark | 0x00004000`); the
 * lab prints them as written, so compare by handle and verdict, not by text.
 */
export function nftNotation(e: TraceEvent): string | null {
  if (!('nft' in e) || !e.nft) return null;
  const n = e.nft;
  const where = `${n.family} ${n.table} ${n.chain}`;
  switch (e.type) {
    case 'hook':
      return `${where} packet`;
    case 'rule':
      return `${where} rule ${e.text} # handle ${n.handle ?? 0} (verdict ${n.verdict ?? 'continue'})`;
    case 'policy':
      return `${where} policy ${e.verdict === 'ACCEPT' ? 'accept' : 'drop'}`;
    default:
      return null;
  }
}
