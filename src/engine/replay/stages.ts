/**
 * Kernel functions as the stages of a packet's path, for tracers that report functions, not
 * rules (pwru, Retis's kernel probes). Each hook is where the function calls NF_HOOK for it
 * (Linux 6.x sources):
 *
 * - net/ipv4/ip_input.c: ip_rcv / ip_list_rcv NF_INET_PRE_ROUTING (ip_rcv_core checks the
 *   header first), ip_local_deliver NF_INET_LOCAL_IN;
 * - net/ipv4/ip_forward.c: ip_forward NF_INET_FORWARD;
 * - net/ipv4/ip_output.c: __ip_local_out NF_INET_LOCAL_OUT (ip_local_out calls it),
 *   ip_output NF_INET_POST_ROUTING (then ip_finish_output, ip_finish_output2);
 * - net/ipv6/ip6_input.c ipv6_rcv, ip6_input; net/ipv6/ip6_output.c ip6_forward, ip6_output,
 *   ip6_finish_output; net/ipv6/output_core.c __ip6_local_out, ip6_local_out: the same for IPv6;
 * - net/bridge/br_input.c br_handle_frame(_finish), br_forward.c br_forward / __br_forward /
 *   br_dev_queue_push_xmit, br_device.c br_dev_xmit: the bridge; br_netfilter_hooks.c
 *   br_nf_pre_routing, br_nf_local_in, br_nf_forward_ip (br_nf_forward since 6.10),
 *   br_nf_post_routing: the IPv4 hooks run for a bridged frame (bridge-nf-call-iptables);
 * - net/netfilter/core.c nf_hook_slow (a hook with registered entries), net/ipv4/netfilter/
 *   ip_tables.c ipt_do_table, net/ipv6/netfilter/ip6_tables.c ip6t_do_table,
 *   net/netfilter/nf_tables_core.c nft_do_chain: a table ran at the current hook;
 * - net/core/dev.c __netif_receive_skb_core / netif_receive_skb (Retis: tp net:netif_receive_skb)
 *   received it, __dev_queue_xmit / dev_hard_start_xmit (tp net:net_dev_start_xmit) sent it;
 * - net/ipv4/tcp_ipv4.c tcp_v4_rcv, net/ipv4/udp.c udp_rcv, net/ipv6/tcp_ipv6.c tcp_v6_rcv,
 *   net/ipv6/udp.c udpv6_rcv: the socket layer;
 * - net/core/skbuff.c kfree_skb_reason (an inline calling sk_skb_reason_drop since 6.11), the
 *   skb:kfree_skb tracepoint: a drop, with its enum skb_drop_reason (SKB_CONSUMED is no drop).
 */
import type { RealStage, Stage } from './types.ts';

export const HOOK_STAGES: ReadonlySet<Stage> = new Set([
  'PREROUTING',
  'INPUT',
  'FORWARD',
  'OUTPUT',
  'POSTROUTING',
]);

const FUNC_STAGE: Readonly<Record<string, Stage>> = {
  netif_receive_skb: 'receive',
  __netif_receive_skb_core: 'receive',
  'net:netif_receive_skb': 'receive',
  ip_rcv: 'PREROUTING',
  ip_rcv_core: 'PREROUTING',
  ip_list_rcv: 'PREROUTING',
  ipv6_rcv: 'PREROUTING',
  br_nf_pre_routing: 'PREROUTING',
  ip_local_deliver: 'INPUT',
  ip6_input: 'INPUT',
  br_nf_local_in: 'INPUT',
  ip_forward: 'FORWARD',
  ip6_forward: 'FORWARD',
  br_nf_forward_ip: 'FORWARD',
  br_nf_forward: 'FORWARD',
  __ip_local_out: 'OUTPUT',
  ip_local_out: 'OUTPUT',
  __ip6_local_out: 'OUTPUT',
  ip6_local_out: 'OUTPUT',
  ip_output: 'POSTROUTING',
  ip_finish_output: 'POSTROUTING',
  ip_finish_output2: 'POSTROUTING',
  ip6_output: 'POSTROUTING',
  ip6_finish_output: 'POSTROUTING',
  br_nf_post_routing: 'POSTROUTING',
  br_handle_frame: 'bridge',
  br_handle_frame_finish: 'bridge',
  br_forward: 'bridge',
  __br_forward: 'bridge',
  br_dev_queue_push_xmit: 'bridge',
  br_dev_xmit: 'bridge',
  tcp_v4_rcv: 'socket',
  udp_rcv: 'socket',
  tcp_v6_rcv: 'socket',
  udpv6_rcv: 'socket',
  __dev_queue_xmit: 'xmit',
  dev_queue_xmit: 'xmit',
  dev_hard_start_xmit: 'xmit',
  'net:net_dev_start_xmit': 'xmit',
};

const TABLE_FUNCS = new Set(['nf_hook_slow', 'ipt_do_table', 'ip6t_do_table', 'nft_do_chain']);
const DROP_FUNCS = new Set(['kfree_skb_reason', 'sk_skb_reason_drop', 'skb:kfree_skb']);

/** `ip_rcv_core.isra.0` → `ip_rcv_core`: the compiler's clone suffixes (and pwru's `(tc)`). */
export function baseFunc(name: string): string {
  return name
    .replace(/\((tc|xdp)\)$/, '')
    .replace(/\.(isra|constprop|part|cold|llvm)(\.\d+)*$/, '');
}

/** `SKB_DROP_REASON_NETFILTER_DROP` → `NETFILTER_DROP` (Retis prints the short form). */
function shortReason(r: string | null): string | null {
  return r === null ? null : r.replace(/^SKB_DROP_REASON_/, '');
}

/**
 * One function the packet was seen in, added to its stages: a new stage when the function
 * starts one (consecutive functions of the same stage are one row), a mark on the current one
 * for a table, a drop row for a drop. Functions of no known stage are left out.
 */
export function addFunc(
  stages: RealStage[],
  line: number,
  func: string,
  reason: string | null,
): void {
  const f = baseFunc(func);
  const last = stages[stages.length - 1];
  if (TABLE_FUNCS.has(f)) {
    if (last && HOOK_STAGES.has(last.stage))
      stages[stages.length - 1] = { ...last, funcs: [...last.funcs, func], tables: true };
    return;
  }
  if (DROP_FUNCS.has(f)) {
    const why = shortReason(reason);
    if (why === 'SKB_CONSUMED' || why === 'CONSUMED') return;
    stages.push({ line, stage: 'drop', funcs: [func], tables: false, reason: why });
    return;
  }
  const stage = FUNC_STAGE[f];
  if (!stage) return;
  if (last && last.stage === stage) {
    if (!last.funcs.includes(func))
      stages[stages.length - 1] = { ...last, funcs: [...last.funcs, func] };
    return;
  }
  stages.push({ line, stage, funcs: [func], tables: false, reason: null });
}

/** The stages a trace can show at all: hooks only if it saw one hook function (pwru sees all). */
export function probedStages(all: readonly (readonly RealStage[])[]): Set<Stage> {
  const seen = new Set<Stage>(['drop']);
  for (const list of all) for (const s of list) seen.add(s.stage);
  if ([...seen].some((s) => HOOK_STAGES.has(s))) for (const h of HOOK_STAGES) seen.add(h);
  return seen;
}
