/**
 * IPVS in the netfilter path, as net/netfilter/ipvs/ip_vs_core.c registers it (ip_vs_ops4; read
 * at torvalds/linux f5ca0eb3afa9, where the entries are ip_vs_reply4 / ip_vs_remote_request4 /
 * ip_vs_local_reply4 / ip_vs_local_request4; Linux 6.x renamed them ip_vs_out_hook and
 * ip_vs_in_hook with the same hooks and priorities):
 *
 *   NF_INET_LOCAL_IN   NF_IP_PRI_NAT_SRC - 2 (98)   reply   (after filter 0 and security 50 INPUT)
 *   NF_INET_LOCAL_IN   NF_IP_PRI_NAT_SRC - 1 (99)   request (before nat INPUT at 100)
 *   NF_INET_LOCAL_OUT  NF_IP_PRI_NAT_DST + 1 (-99)  reply   (after nat OUTPUT at -100)
 *   NF_INET_LOCAL_OUT  NF_IP_PRI_NAT_DST + 2 (-98)  request (before filter OUTPUT at 0)
 *   NF_INET_FORWARD    99 ip_vs_forward_icmp (ICMP errors: not modelled), 100 reply
 *
 * Only masquerading forwarding (VS/NAT) is modelled: ip_vs_nat_xmit rewrites the destination to
 * the real server, routes the packet and sends it through NF_HOOK(NF_INET_LOCAL_OUT, ...,
 * dst_output) (ip_vs_xmit.c ip_vs_nat_send_or_cont), so it meets the OUTPUT chains and then
 * POSTROUTING (where KUBE-POSTROUTING masquerades it); the original traversal is stolen. A real
 * server on this host gets the packet without leaving (NF_ACCEPT with the new destination).
 * These results are modelled from the kernel and kube-proxy sources, never checked on a kernel:
 * the machines Hookpath is developed on have no IPVS module.
 *
 * Read for this model: ip_vs_core.c (ip_vs_ops, ip_vs_in, ip_vs_schedule, ip_vs_leave: ICMP port
 * unreachable when no destination) at f5ca0eb3afa9 and ip_vs_in_hook/ip_vs_out_hook patches of
 * Linux 6.x; ip_vs_xmit.c ip_vs_nat_send_or_cont of a Linux >= 5.18 version (skb->ipvs_property,
 * ip_vs_notrack or ip_vs_update_conntrack(skb, cp, 1), NF_HOOK(LOCAL_OUT, ..., dst_output), or
 * NF_ACCEPT for a local real server); ip_vs_nfct.c ip_vs_update_conntrack (only an unconfirmed
 * entry, MASQ forwarding, original direction: the reply tuple's source becomes daddr:dport).
 */
import type { Traversal } from '../chain.ts';
import { UNTRACKED, type CtInfo } from '../conntrack.ts';
import { isLocalAddr } from '../host.ts';
import type { Packet } from '../packet.ts';
import type { StackEnv, StackResult } from '../stack.ts';
import { FWD_NAME } from './ipvsadm.ts';
import {
  hostPort,
  serviceKey,
  serviceText,
  type IpvsConn,
  type IpvsState,
  type RealServer,
  type VirtualService,
} from './table.ts';

/** Sends a rewritten packet through LOCAL_OUT, routing and POSTROUTING (skb->ipvs_property set). */
export type IpvsXmit = (pkt: Packet, ct: CtInfo) => StackResult;

type Action =
  'schedule' | 'connection' | 'reply' | 'no-dest' | 'not-scheduled' | 'local' | 'persist';

function emit(
  env: StackEnv,
  t: Traversal,
  action: Action,
  svc: VirtualService | null,
  conn: IpvsConn | null,
  before: Packet,
): void {
  const service = svc
    ? serviceText(svc)
    : conn
      ? `${conn.proto.toUpperCase()} ${hostPort(conn.vaddr, conn.vport)}`
      : null;
  const realServer = conn ? hostPort(conn.daddr, conn.dport) : null;
  env.tracer.emit({
    type: 'ipvs',
    hook: t.hook,
    action,
    service,
    realServer,
    before,
    packet: t.pkt,
    explain: {
      key: `ipvs.${action}`,
      params: {
        hook: t.hook,
        ...(service ? { service } : {}),
        ...(realServer ? { server: realServer } : {}),
        ...(conn ? { client: hostPort(conn.caddr, conn.cport) } : {}),
      },
    },
  });
}

function stateOf(env: StackEnv): IpvsState {
  return env.state.ipvs;
}

/** ip_vs_conn_in_get: the entry a client's packet belongs to. */
function connIn(s: IpvsState, p: Packet): IpvsConn | undefined {
  return s.conns.find(
    (c) =>
      c.proto === p.proto &&
      c.caddr === p.src &&
      c.cport === p.sport &&
      c.vaddr === p.dst &&
      c.vport === p.dport,
  );
}

/** ip_vs_conn_out_get: the entry a real server's reply belongs to. */
function connOut(s: IpvsState, p: Packet): IpvsConn | undefined {
  return s.conns.find(
    (c) =>
      c.proto === p.proto &&
      c.daddr === p.src &&
      c.dport === p.sport &&
      c.caddr === p.dst &&
      c.cport === p.dport,
  );
}

/**
 * The scheduler's pick. rr walks the real servers in list order, skipping weight 0
 * (ip_vs_rr.c); kube-proxy adds them in Go map order, so which one the next connection gets is
 * not predictable from the Service: the lab offers each server with weight > 0 with an equal
 * share, which is what rr gives over many connections. wrr (ip_vs_wrr.c) gives each a share in
 * proportion to its weight.
 */
function schedule(env: StackEnv, svc: VirtualService): RealServer | null {
  const weights = svc.realServers.map((r) =>
    r.weight <= 0 ? 0 : svc.scheduler === 'wrr' ? r.weight : 1,
  );
  if (!weights.some((w) => w > 0)) return null;
  const live = svc.realServers.filter((_, i) => (weights[i] as number) > 0);
  if (live.length === 1) return live[0] as RealServer;
  const i = env.pick(weights, `ipvs ${serviceText(svc)}`, null);
  return svc.realServers[i] ?? null;
}

/**
 * ip_vs_sched_persist: with persistence, a template <client, vaddr, vport> keeps sending the
 * same client to the same real server until it expires (svc->timeout).
 */
function schedulePersistent(
  env: StackEnv,
  svc: VirtualService,
  client: string,
): { dest: RealServer | null; reused: boolean } {
  const s = stateOf(env);
  const key = `${svc.proto}|${client}|${svc.address}|${svc.port}`;
  const tpl = s.templates.get(key);
  if (tpl && tpl.expires > env.now) {
    const dest = svc.realServers.find(
      (r) => r.address === tpl.daddr && r.port === tpl.dport && r.weight > 0,
    );
    // ip_vs_check_template: a template whose server is gone or quiesced is not used.
    if (dest) return { dest, reused: true };
  }
  const dest = schedule(env, svc);
  if (dest)
    s.templates.set(key, {
      daddr: dest.address,
      dport: dest.port,
      expires: env.now + (svc.persistent ?? 0),
    });
  return { dest, reused: false };
}

/**
 * ip_vs_nat_xmit + ip_vs_nat_send_or_cont: rewrite the destination, hand the connection to
 * conntrack (net.ipv4.vs.conntrack=1: ip_vs_update_conntrack alters the expected reply so that
 * it comes from the real server, ip_vs_nfct.c; =0: ip_vs_notrack detaches the packet), then
 * either continue to a local real server or send the packet out.
 */
function natXmit(env: StackEnv, t: Traversal, conn: IpvsConn, xmit: IpvsXmit): StackResult | null {
  const before = t.pkt;
  const local = isLocalAddr(env.host.config, conn.daddr);
  let pkt: Packet = { ...before, dst: conn.daddr, dport: conn.dport };
  const table = env.host.ipvs;
  let ct: CtInfo = t.ct;
  if (table && !table.conntrack) ct = UNTRACKED;
  else if (ct.conn && !ct.conn.confirmed && ct.dir === 'original') {
    // nf_conntrack_alter_reply: the reply now comes from RIP:rport; the original tuple stays.
    ct.conn.reply = { ...ct.conn.reply, src: conn.daddr, sport: conn.dport };
  }
  if (local) {
    t.pkt = pkt;
    t.ct = ct;
    t.ipvsProperty = true;
    emit(env, t, 'local', null, conn, before);
    return null;
  }
  // __ip_vs_get_out_rt: a packet leaving for another host loses one hop of TTL.
  if (t.hook === 'INPUT') {
    if (pkt.ttl <= 1) return { kind: 'dropped', reason: 'TTL exceeded (IPVS)', pkt };
    pkt = { ...pkt, ttl: pkt.ttl - 1 };
  }
  return xmit(pkt, ct);
}

/**
 * ip_vs_bind_xmit picks the transmitter by the server's method: ip_vs_dr_xmit (Route),
 * ip_vs_tunnel_xmit (Tunnel), ip_vs_null_xmit (Local). None is modelled, so the trace stops there
 * rather than pretend the packet was NATed.
 */
function notMasq(svc: VirtualService, dest: RealServer, pkt: Packet): StackResult {
  return {
    kind: 'unsupported',
    what: `IPVS ${serviceText(svc)} sends to ${hostPort(dest.address, dest.port)} by ${FWD_NAME[dest.forward]} forwarding, which the lab does not model (only Masq, kube-proxy's)`,
    pkt,
    line: 0,
  };
}

/** ip_vs_in (the request hooks): an existing connection, or a new one for a virtual service. */
function request(env: StackEnv, t: Traversal, xmit: IpvsXmit): StackResult | null {
  const table = env.host.ipvs;
  const p = t.pkt;
  // ICMP is handled by ip_vs_in_icmp only for errors about IPVS connections (not modelled);
  // an echo request is no IPVS business and goes on to the local stack.
  if (!table || p.proto === 'icmp') return null;
  const s = stateOf(env);
  const existing = connIn(s, p);
  if (existing) {
    const before = p;
    const svc = table.services.get(serviceKey(p.proto, p.dst, p.dport)) ?? null;
    emit(env, t, 'connection', svc, existing, before);
    return natXmit(env, t, existing, xmit);
  }
  const svc = table.services.get(serviceKey(p.proto, p.dst, p.dport));
  if (!svc) return null;
  // tcp_conn_schedule (ip_vs_proto_tcp.c): only a SYN without RST opens an IPVS connection
  // ("No !th->ack check to allow scheduling on SYN+ACK for Active FTP"; sloppy_tcp, off by
  // default, would accept any segment); anything else is accepted and left to the local stack.
  if (p.proto === 'tcp' && !(p.flags?.syn && !p.flags.rst)) {
    emit(env, t, 'not-scheduled', svc, null, p);
    return null;
  }
  const picked = svc.persistent !== null ? schedulePersistent(env, svc, p.src) : null;
  const dest = picked ? picked.dest : schedule(env, svc);
  if (!dest) {
    // ip_vs_leave: no destination, so icmp_send(ICMP_DEST_UNREACH, ICMP_PORT_UNREACH) and drop.
    emit(env, t, 'no-dest', svc, null, p);
    return {
      kind: 'rejected',
      with: 'icmp-port-unreachable',
      pkt: p,
      inIf: t.inIf,
      hook: t.hook,
      ct: t.ct,
    };
  }
  const conn: IpvsConn = {
    proto: p.proto,
    caddr: p.src,
    cport: p.sport,
    vaddr: p.dst,
    vport: p.dport,
    daddr: dest.address,
    dport: dest.port,
  };
  s.conns.push(conn);
  emit(env, t, picked?.reused ? 'persist' : 'schedule', svc, conn, p);
  if (dest.forward !== 'masq') return notMasq(svc, dest, p);
  return natXmit(env, t, conn, xmit);
}

/** ip_vs_out / handle_response: a reply of a NATed connection gets the virtual service as source. */
function reply(env: StackEnv, t: Traversal): void {
  if (!env.host.ipvs) return;
  const conn = connOut(stateOf(env), t.pkt);
  if (!conn) return;
  const before = t.pkt;
  t.pkt = { ...before, src: conn.vaddr, sport: conn.vport };
  // handle_response marks the translated reply (skb->ipvs_property), as xt_ipvs sees it.
  t.ipvsProperty = true;
  emit(env, t, 'reply', null, conn, before);
}

/**
 * NF_INET_LOCAL_IN, after filter and security INPUT and before nat INPUT: the reply hook (98),
 * then the request hook (99). Returns the end of this packet's journey when IPVS took it (sent
 * to a real server, or refused), null when the packet goes on (possibly rewritten).
 */
export function ipvsLocalIn(env: StackEnv, t: Traversal, xmit: IpvsXmit): StackResult | null {
  reply(env, t);
  return request(env, t, xmit);
}

/**
 * NF_INET_LOCAL_OUT, after nat OUTPUT (and its reroute) and before filter OUTPUT: the reply hook
 * for real servers on this host (-99), then the request hook for local clients (-98).
 * `ipvsProperty`: the packet is one IPVS itself re-sent (skb->ipvs_property), which both skip.
 */
export function ipvsLocalOut(
  env: StackEnv,
  t: Traversal,
  xmit: IpvsXmit,
  ipvsProperty: boolean,
): StackResult | null {
  if (ipvsProperty) return null;
  reply(env, t);
  return request(env, t, xmit);
}

/** NF_INET_FORWARD at priority 100, after filter and security FORWARD: replies to remote clients. */
export function ipvsForward(env: StackEnv, t: Traversal): void {
  reply(env, t);
}
