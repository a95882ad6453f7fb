/**
 * The IPv4 stack of one host, hook by hook, in the kernel's order:
 *   from the wire: raw PREROUTING -> conntrack -> mangle PREROUTING -> nat PREROUTING -> routing
 *     -> local: mangle/filter/security/nat INPUT -> (socket)      forward: mangle/filter/security FORWARD
 *     -> mangle/nat POSTROUTING -> out
 *   local: routing -> raw OUTPUT -> conntrack -> mangle/nat/filter/security OUTPUT -> reroute -> POSTROUTING
 * (net/ipv4/ip_input.c, ip_forward.c, ip_output.c, route.c; netfilter priorities in
 * include/uapi/linux/netfilter_ipv4.h).
 */
import { runTable, type ChainEnv, type TableVerdict, type Traversal } from './chain.ts';
import {
  canCreate,
  confirm,
  invert,
  lookup,
  natTarget,
  newConn,
  tupleOf,
  tupleKey,
  UNTRACKED,
  type CtInfo,
} from './conntrack.ts';
import { ipvsForward, ipvsLocalIn, ipvsLocalOut } from './ipvs/index.ts';
import {
  isLocalAddr,
  localIface,
  longestMatch,
  routeSource,
  selectSourceAddr,
  type Route,
} from './host.ts';
import { cidrContainsNum, ipToNum, isLoopback, isMulticastOrBroadcast, parseCidr } from './ip.ts';
import type { PhysDevs } from './match-context.ts';
import type { Packet } from './packet.ts';
import type { NatOp, RejectWith } from './rules/target-op.ts';
import type { Hook, Rule, TableName } from './rules/types.ts';
import type { HostRuntime, HostState } from './runtime.ts';
import type { TraceEvent, Tracer } from './trace.ts';
import { hookPlan, nftTracks, type HookEntry, type NatMember } from './nft/hooks.ts';
import { runNftChain, type NftEnv } from './nft/walk.ts';
import type { NftChain } from './nft/types.ts';

export interface StackEnv {
  readonly tracer: Tracer;
  readonly host: HostRuntime;
  readonly state: HostState;
  readonly now: number;
  /** Chooses among weighted alternatives (statistic branches, ECMP next hops). */
  pick(weights: readonly number[], label: string, rule: Rule | null): number;
}

export type StackResult =
  | { readonly kind: 'local'; readonly pkt: Packet; readonly inIf: string; readonly ct: CtInfo }
  | {
      readonly kind: 'transmit';
      readonly pkt: Packet;
      readonly outIf: string;
      readonly nextHop: string;
    }
  | { readonly kind: 'loopback'; readonly pkt: Packet; readonly ct: CtInfo }
  | { readonly kind: 'dropped'; readonly reason: string; readonly pkt: Packet }
  | {
      readonly kind: 'rejected';
      readonly with: RejectWith;
      readonly pkt: Packet;
      readonly inIf: string | null;
      readonly hook: Hook;
      /** The rejected packet's conntrack entry, which the RST / ICMP error inherits. */
      readonly ct: CtInfo;
    }
  | {
      readonly kind: 'unreachable';
      readonly code: number;
      readonly pkt: Packet;
      readonly reason: string;
      readonly local: boolean;
    }
  | {
      readonly kind: 'unsupported';
      readonly what: string;
      readonly pkt: Packet;
      readonly line: number;
    };

/** Hosts without netfilter tables have no conntrack at all. */
const NO_CT: CtInfo = { conn: null, dir: 'original', state: 'UNTRACKED' };
/** Before conntrack has seen the packet (raw table): xt_conntrack reports INVALID. */
const PENDING: CtInfo = { conn: null, dir: 'original', state: 'INVALID' };

function chainEnv(env: StackEnv, family: 4 | 6): ChainEnv {
  return {
    tracer: env.tracer,
    family,
    host: env.host.config,
    sets: env.host.sets,
    state: env.state.rules,
    now: env.now,
    choose: (p, rule) =>
      p >= 1
        ? true
        : p <= 0
          ? false
          : env.pick([p, 1 - p], `statistic ${rule.chain}#${rule.index}`, rule) === 0,
    nat: (op, t) => doNat(env, op, t),
    notrack: (t) => {
      t.ct = UNTRACKED;
    },
    ipvsConns: env.state.ipvs.conns,
  };
}

/** Binds a NAT mapping in conntrack and rewrites the first packet (nf_nat_setup_info). */
function doNat(env: StackEnv, op: NatOp, t: Traversal): 'ok' | 'drop' {
  const conn = t.ct.conn;
  if (!conn) return 'drop';
  const p = t.pkt;
  if (op.kind === 'dnat' || op.kind === 'redirect') {
    let dst = p.dst;
    const fam = familyOf(p);
    if (op.kind === 'dnat') dst = op.ip ?? p.dst;
    else if (t.hook === 'OUTPUT') dst = fam === 6 ? '::1' : '127.0.0.1';
    else {
      const a = t.inIf
        ? env.host.config.ifaces.get(t.inIf)?.addrs.find((x) => x.family === fam)
        : undefined;
      if (!a) return 'drop';
      dst = a.ip;
    }
    const dport = op.ports ? op.ports.lo : p.dport;
    conn.reply = invert({ proto: p.proto, src: p.src, sport: p.sport, dst, dport });
    conn.dstNat = dst !== p.dst || dport !== p.dport;
    conn.dstNatDone = true;
    t.pkt = { ...p, dst, dport };
    return 'ok';
  }
  let src: string | null;
  if (op.kind === 'snat') src = op.ip;
  else {
    if (!t.outIf) return 'drop';
    // nf_nat_masquerade_ipv4: inet_select_addr(out, rt_nexthop, RT_SCOPE_UNIVERSE), not the
    // route's src. Out through lo (a DNAT to a local address) that is never 127.0.0.1 (scope host)
    // but the first global address of the host, the one on eth0.
    src =
      familyOf(p) === 6
        ? sourceAddr6(env, t.outIf, t.nextHop)
        : selectSourceAddr(env.host.config, t.outIf, t.nextHop, 'global');
    if (!src) return 'drop';
  }
  // With --random-fully the kernel draws the port; the lab picks one from the connection's tuple,
  // so the trace shows that the port changes (which value the kernel takes cannot be predicted).
  let sport = op.ports ? op.ports.lo : op.randomPort ? randomLikePort(p) : p.sport;
  // Keep the source port unless another connection already owns that reply tuple (nf_nat_used_tuple).
  for (let tries = 0; tries < 1000; tries++) {
    const candidate = { ...conn.reply, dst: src, dport: sport };
    const other = env.state.conntrack.byTuple.get(tupleKey(candidate));
    if (!other || other.connId === conn.id) break;
    sport = sport >= 65535 ? 1024 : sport + 1;
  }
  conn.reply = { ...conn.reply, dst: src, dport: sport };
  conn.srcNat = src !== p.src || sport !== p.sport;
  conn.srcNatDone = true;
  t.pkt = { ...p, src, sport };
  return 'ok';
}

/**
 * MASQUERADE's IPv6 source (nf_nat_masquerade_ipv6: ipv6_dev_get_saddr on the out device): an
 * address of the interface on the next hop's prefix, else its first global one.
 */
function sourceAddr6(env: StackEnv, iface: string, toward: string | null): string | null {
  const addrs = (env.host.config.ifaces.get(iface)?.addrs ?? []).filter(
    (a) => a.family === 6 && !a.ip.toLowerCase().startsWith('fe80'),
  );
  const hop = toward === null ? null : ipToNum(toward);
  const near = addrs.find((a) => {
    const c = parseCidr(`${a.ip}/${a.prefix}`);
    return c !== null && hop !== null && cidrContainsNum(c, hop);
  });
  return (near ?? addrs[0])?.ip ?? null;
}

/** iptables for IPv4 packets, ip6tables for IPv6 ones (separate rulesets in the kernel). */
function rulesetFor(env: StackEnv, pkt: Packet): HostRuntime['ruleset'] {
  return pkt.dst.includes(':') ? env.host.ruleset6 : env.host.ruleset;
}

function familyOf(pkt: Packet): 4 | 6 {
  return pkt.dst.includes(':') ? 6 : 4;
}

/**
 * Conntrack runs in a namespace once an iptables table or an nft rule that needs it (ct, NAT)
 * is loaded for the packet's family; without it packets stay untracked.
 */
function tracked(env: StackEnv, pkt: Packet): boolean {
  return rulesetFor(env, pkt) !== null || nftTracks(env.host.nft, familyOf(pkt));
}

/** Plans by host runtime and `hook/family` (a runtime's rulesets never change). */
const plans = new WeakMap<HostRuntime, Map<string, readonly HookEntry[]>>();

function planFor(env: StackEnv, t: Traversal): readonly HookEntry[] {
  const family = familyOf(t.pkt);
  let byHook = plans.get(env.host);
  if (!byHook) plans.set(env.host, (byHook = new Map()));
  const key = `${t.hook}/${family}`;
  let plan = byHook.get(key);
  if (!plan) {
    const xt = rulesetFor(env, t.pkt) !== null;
    plan = hookPlan(xt, env.host.nft, t.hook, family, tracked(env, t.pkt));
    byHook.set(key, plan);
  }
  return plan;
}

function nftEnv(env: StackEnv, family: 4 | 6): NftEnv {
  return {
    tracer: env.tracer,
    host: env.host.config,
    family,
    now: env.now,
    dynamic: env.state.rules.nft,
    pick: (n, label) => env.pick(new Array<number>(n).fill(1), label, null),
    nat: (op, t) => doNat(env, op, t),
    notrack: (t) => {
      t.ct = UNTRACKED;
    },
  };
}

function emitNftHook(env: StackEnv, t: Traversal, chain: NftChain, row: TableName): void {
  const b = chain.base;
  env.tracer.emit({
    type: 'hook',
    packet: t.pkt,
    hook: t.hook,
    table: row,
    implicit: false,
    nft: {
      family: chain.table.family,
      table: chain.table.name,
      chain: chain.name,
      handle: null,
      ...(b ? { type: b.type, priority: b.priority } : {}),
    },
    explain: {
      key: 'nft.hook',
      params: {
        table: `${chain.table.family} ${chain.table.name}`,
        chain: chain.name,
        type: b?.type ?? 'filter',
        priority: b?.priority ?? 0,
        hook: t.hook,
      },
    },
  });
}

/** A port in the ephemeral range derived from the tuple (FNV-1a), standing in for a random draw. */
function randomLikePort(p: Packet): number {
  let h = 0x811c9dc5;
  for (const ch of `${p.src}|${p.sport}|${p.dst}|${p.dport}`)
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return 32768 + ((h >>> 0) % 28232);
}

/**
 * Where the kernel does something between two priorities of a hook, the hook runs in two parts:
 * OUTPUT reroutes after the NAT core (-100, `to-nat` / `after-nat`, see output()); IPVS hooks
 * LOCAL_IN at 98/99 (`to-ipvs` / `after-ipvs`: ip_vs_reply4 at NF_IP_PRI_NAT_SRC - 2,
 * ip_vs_remote_request4 at NF_IP_PRI_NAT_SRC - 1) and FORWARD at 99/100 (ip_vs_forward_icmp,
 * ip_vs_reply4); net/netfilter/ipvs/ip_vs_core.c, ip_vs_ops4. Each part is [from, below).
 */
type HookPart =
  | 'all'
  | 'to-nat'
  | 'after-nat'
  | 'to-ipvs-in'
  | 'after-ipvs-in'
  | 'to-ipvs-fwd'
  | 'after-ipvs-fwd';
const PARTS: Readonly<Record<Exclude<HookPart, 'all'>, readonly [number, number]>> = {
  'to-nat': [-Infinity, -99],
  'after-nat': [-99, Infinity],
  'to-ipvs-in': [-Infinity, 98],
  'after-ipvs-in': [98, Infinity],
  'to-ipvs-fwd': [-Infinity, 99],
  'after-ipvs-fwd': [99, Infinity],
};

type HookOutcome = { readonly kind: 'accept' } | Exclude<TableVerdict, { kind: 'accept' }>;

/**
 * Runs everything registered at `hook` in priority order (nf_hook_slow): iptables tables, nft
 * base chains, conntrack and the NAT core (see nft/hooks.ts). An accept ends one table or base
 * chain and the next runs; any other verdict ends the hook. `part` splits OUTPUT where the
 * kernel reroutes (after the NAT core, see output()).
 */
function runHook(env: StackEnv, t: Traversal, part: HookPart = 'all'): HookOutcome {
  const rs = rulesetFor(env, t.pkt);
  const nft = env.host.nft;
  if (!rs && !nft) return { kind: 'accept' };
  const family = familyOf(t.pkt);
  const cenv = chainEnv(env, rs?.family ?? family);
  const nenv = nft ? nftEnv(env, family) : null;
  const [lo, hi] = part === 'all' ? [-Infinity, Infinity] : PARTS[part];
  for (const e of planFor(env, t)) {
    if (e.priority >= hi) break;
    if (e.priority < lo) continue;
    let v: HookOutcome = { kind: 'accept' };
    if (e.kind === 'conntrack') conntrackIn(env, t);
    else if (e.kind === 'nat') v = natHook(env, cenv, nenv, t, rs, e.members);
    else if (e.kind === 'nft' && nenv) {
      emitNftHook(env, t, e.chain, e.row);
      v = runNftChain(nenv, e.chain, t, e.row);
    } else if (e.kind === 'xt' && rs) {
      const table = rs.tables.get(e.table);
      if (!table) continue;
      emitHook(env, t, e.table, table.chains.get(t.hook)?.declared === false);
      v = runTable(cenv, table, t);
    }
    if (v.kind !== 'accept') return v;
  }
  return { kind: 'accept' };
}

function emitHook(env: StackEnv, t: Traversal, table: TableName, implicit: boolean): void {
  env.tracer.emit({
    type: 'hook',
    packet: t.pkt,
    hook: t.hook,
    table,
    implicit,
    explain: { key: `hook.${t.hook}`, params: { table } },
  });
}

const ctSeen = new WeakSet<Traversal>();

type CtAction = Extract<TraceEvent, { type: 'conntrack' }>['action'];

/** The conntrack step of a traversal: what nf_conntrack_in did, the connection it found. */
function emitCt(
  env: StackEnv,
  t: Traversal,
  action: CtAction,
  ct: CtInfo,
  key: string,
  params?: Record<string, string | number>,
): void {
  env.tracer.emit({
    type: 'conntrack',
    hook: t.hook,
    packet: t.pkt,
    action,
    state: ct.state,
    dir: ct.dir,
    connId: ct.conn?.id ?? null,
    orig: ct.conn?.orig ?? null,
    reply: ct.conn?.reply ?? null,
    before: null,
    explain: params ? { key, params } : { key },
  });
}

/** nf_conntrack_in: find or create the connection of this packet (once per traversal). */
function conntrackIn(env: StackEnv, t: Traversal): void {
  if (ctSeen.has(t)) return;
  ctSeen.add(t);
  const p = t.pkt;
  // A looped-back packet keeps the conntrack entry it got on the way out (nf_conntrack_in ignores it).
  if (t.ct.conn) return emitCt(env, t, 'keep', t.ct, 'ct.keep');
  if (t.ct === UNTRACKED) return emitCt(env, t, 'untracked', t.ct, 'ct.untracked');
  const table = env.state.conntrack;
  if (p.proto === 'icmp' && p.inner) {
    const hit = lookup(table, invert(p.inner));
    if (hit) {
      t.ct = { conn: hit.conn, dir: hit.dir, state: 'RELATED' };
      return emitCt(env, t, 'related', t.ct, 'ct.related');
    }
  }
  const hit = lookup(table, tupleOf(p));
  if (hit) {
    const { conn, dir } = hit;
    if (dir === 'reply') conn.seenReply = true;
    const state = dir === 'reply' || conn.seenReply ? 'ESTABLISHED' : 'NEW';
    t.ct = { conn, dir, state };
    const key = dir === 'reply' ? 'ct.reply' : 'ct.established';
    return emitCt(env, t, 'lookup', t.ct, key, { id: conn.id });
  }
  if (!canCreate(p)) {
    t.ct = { conn: null, dir: 'original', state: 'INVALID' };
    return emitCt(env, t, 'invalid', t.ct, 'ct.invalid');
  }
  const conn = newConn(table, tupleOf(p));
  t.ct = { conn, dir: 'original', state: 'NEW' };
  emitCt(env, t, 'new', t.ct, 'ct.new', { id: conn.id });
}

/**
 * The NAT core at a hook (nf_nat_inet_fn): the nat chains (iptables' nat table and nft nat
 * chains, by priority) for a connection's first packet until one binds, the recorded binding
 * otherwise.
 */
function natHook(
  env: StackEnv,
  cenv: ChainEnv,
  nenv: NftEnv | null,
  t: Traversal,
  rs: HostRuntime['ruleset'],
  members: readonly NatMember[],
): HookOutcome {
  const ct = t.ct;
  const conn = ct.conn;
  const tr = env.tracer;
  const xtNat = rs?.tables.get('nat');
  const chains = members.filter((m) => m.kind === 'nft' || xtNat !== undefined);
  const table = chains.length > 0;
  if (!conn) {
    if (table) {
      tr.emit({
        type: 'nat-skip',
        packet: t.pkt,
        hook: t.hook,
        reason: ct.state === 'INVALID' ? 'invalid' : 'untracked',
        explain: { key: ct.state === 'INVALID' ? 'nat.skip.invalid' : 'nat.skip.untracked' },
      });
    }
    return { kind: 'accept' };
  }
  const dstManip = t.hook === 'PREROUTING' || t.hook === 'OUTPUT';
  const done = dstManip ? conn.dstNatDone : conn.srcNatDone;
  // nf_nat_inet_fn runs the chains for NEW and for RELATED packets of either direction (a
  // REJECT's RST carries its connection as RELATED_REPLY); RELATED ICMP errors never reach
  // them (nf_nat_ipv4_fn translates them itself).
  const icmpError = t.pkt.proto === 'icmp' && t.pkt.inner !== undefined;
  const fresh =
    (ct.state === 'NEW' && ct.dir === 'original') || (ct.state === 'RELATED' && !icmpError);
  if (fresh && !done) {
    for (const m of chains) {
      let v: HookOutcome;
      if (m.kind === 'xt' && xtNat) {
        emitHook(env, t, 'nat', xtNat.chains.get(t.hook)?.declared === false);
        v = runTable(cenv, xtNat, t);
      } else if (m.kind === 'nft' && nenv) {
        emitNftHook(env, t, m.chain, 'nat');
        v = runNftChain(nenv, m.chain, t, 'nat');
      } else continue;
      if (v.kind !== 'accept') return v;
      // A chain bound the connection: the later nat chains do not run (nf_nat_inet_fn).
      if (dstManip ? conn.dstNatDone : conn.srcNatDone) break;
    }
    // No NAT rule fired: a null binding, so later packets skip the chains too.
    if (dstManip) conn.dstNatDone = true;
    else conn.srcNatDone = true;
    // nf_nat_packet: a reply-direction packet still gets the connection's other bindings.
    if (ct.dir !== 'original') applyBinding(env, t, dstManip);
    return { kind: 'accept' };
  }
  if (table) {
    tr.emit({
      type: 'nat-skip',
      packet: t.pkt,
      hook: t.hook,
      reason: 'not-new',
      explain: { key: 'nat.skip.established' },
    });
  }
  applyBinding(env, t, dstManip);
  return { kind: 'accept' };
}

/** Applies a connection's recorded NAT to a later packet or a reply (nf_nat_packet). */
function applyBinding(env: StackEnv, t: Traversal, dstManip: boolean): void {
  const conn = t.ct.conn;
  if (!conn) return;
  const target = natTarget(conn, t.ct.dir);
  const p = t.pkt;
  let next: Packet = p;
  // nf_nat_packet rewrites only what a binding changed (IPS_SRC_NAT / IPS_DST_NAT, inverted for
  // the reply): a reply tuple IPVS altered (ip_vs_update_conntrack) is no NAT binding.
  const bound = dstManip === (t.ct.dir === 'original') ? conn.dstNat : conn.srcNat;
  if (
    bound &&
    dstManip &&
    (p.dst !== target.dst || p.dport !== target.dport) &&
    (p.proto !== 'icmp' || !p.inner)
  ) {
    next = { ...p, dst: target.dst, dport: target.dport };
  } else if (
    bound &&
    !dstManip &&
    (p.src !== target.src || p.sport !== target.sport) &&
    (p.proto !== 'icmp' || !p.inner)
  ) {
    next = { ...p, src: target.src, sport: target.sport };
  } else if (p.proto === 'icmp' && p.inner && t.ct.state === 'RELATED') {
    // ICMP errors: the outer header is translated like a reply, the embedded header back to what its sender sent.
    const inner = t.ct.dir === 'reply' ? conn.orig : conn.reply;
    const outer = dstManip ? { dst: target.dst } : { src: target.src };
    const changed =
      (dstManip ? p.dst !== target.dst : p.src !== target.src) ||
      tupleKey(inner) !== tupleKey(p.inner);
    if (changed && (conn.dstNat || conn.srcNat)) next = { ...p, ...outer, inner };
  }
  if (next !== p) {
    t.pkt = next;
    env.tracer.emit({
      type: 'conntrack',
      hook: t.hook,
      packet: next,
      action: 'nat',
      state: t.ct.state,
      dir: t.ct.dir,
      connId: conn.id,
      orig: conn.orig,
      reply: conn.reply,
      before: p,
      explain: { key: dstManip ? 'ct.nat.dst' : 'ct.nat.src', params: { id: conn.id } },
    });
  }
}

function confirmConn(env: StackEnv, t: Traversal): void {
  const conn = t.ct.conn;
  // __nf_conntrack_confirm: only the original direction confirms; a REJECT's RST or ICMP
  // error (attached in the reply direction) never enters a rejected connection in the table.
  if (!conn || conn.confirmed || t.ct.dir !== 'original') return;
  confirm(env.state.conntrack, conn);
  env.tracer.emit({
    type: 'conntrack',
    hook: t.hook,
    packet: t.pkt,
    action: 'confirm',
    state: t.ct.state,
    dir: t.ct.dir,
    connId: conn.id,
    orig: conn.orig,
    reply: conn.reply,
    before: null,
    explain: { key: 'ct.confirm', params: { id: conn.id } },
  });
}

function verdictResult(v: Exclude<HookOutcome, { kind: 'accept' }>, t: Traversal): StackResult {
  if (v.kind === 'drop')
    return {
      kind: 'dropped',
      reason: v.rule
        ? `rule ${v.rule.table}:${v.rule.chain}:${v.rule.index}`
        : v.where
          ? `rule ${v.where}`
          : `policy ${t.hook}`,
      pkt: t.pkt,
    };
  if (v.kind === 'reject')
    return { kind: 'rejected', with: v.with, pkt: t.pkt, inIf: t.inIf, hook: t.hook, ct: t.ct };
  return { kind: 'unsupported', what: v.what, pkt: t.pkt, line: v.rule?.line ?? v.line ?? 0 };
}

function traversal(
  pkt: Packet,
  hook: Hook,
  inIf: string | null,
  outIf: string | null,
  nextHop: string | null,
  ct: CtInfo,
): Traversal {
  return { pkt, hook, inIf, outIf, nextHop, ct };
}

function routeEvent(
  env: StackEnv,
  pkt: Packet,
  decision: 'local' | 'forward' | 'output' | 'reroute' | 'drop' | 'unreachable',
  reason: string,
  dev: string | null,
  via: string | null,
  route: Route | null,
  params: Record<string, string | number> = {},
): void {
  env.tracer.emit({
    type: 'route',
    packet: pkt,
    decision,
    reason,
    dev,
    via,
    routeText: route?.text ?? null,
    explain: {
      key: `route.${reason}`,
      params: {
        dst: pkt.dst,
        src: pkt.src,
        ...(dev ? { dev } : {}),
        ...(via ? { via } : {}),
        ...params,
      },
    },
  });
}

/**
 * A frame that went through br_netfilter's PREROUTING (see bridge.ts) and is now handed to the
 * IP stack of its bridge: ip_sabotage_in (net/bridge/br_netfilter_hooks.c) makes the IPv4
 * PREROUTING hooks let it pass, they already ran; the bridge info (physdev) stays on the skb.
 */
export interface BridgedUp {
  readonly ct: CtInfo;
  readonly phys: PhysDevs;
}

/** A packet arriving on interface `inIf` (from the wire, or looped back on `lo` with its conntrack entry). */
export function receive(
  env: StackEnv,
  pkt: Packet,
  inIf: string,
  looped: CtInfo | null,
  bridged: BridgedUp | null = null,
): StackResult {
  env.tracer.emit({
    type: 'receive',
    packet: pkt,
    iface: inIf,
    explain: {
      key: bridged ? 'rx.bridge-up' : looped ? 'rx.loopback' : 'rx.wire',
      params: { iface: inIf, ...(bridged?.phys.in ? { port: bridged.phys.in } : {}) },
    },
  });
  const pre = traversal(
    pkt,
    'PREROUTING',
    inIf,
    null,
    null,
    bridged?.ct ?? looped ?? (tracked(env, pkt) ? PENDING : NO_CT),
  );
  if (!bridged) {
    const v = runHook(env, pre);
    if (v.kind !== 'accept') return verdictResult(v, pre);
  } else pre.phys = bridged.phys;
  const p = pre.pkt;
  // Routing decision (ip_route_input_slow).
  if (looped) routeEvent(env, p, 'local', 'loopback', 'lo', null, null);
  else {
    const martian = martianDrop(env, p, inIf);
    if (martian) return martian;
  }
  if (looped || isLocalAddr(env.host.config, p.dst))
    return localIn(env, pre, inIf, looped, bridged);
  return forward(env, pre, inIf, bridged);
}

/** ip_route_input_slow's martian checks, before the local/forward decision. */
function martianDrop(env: StackEnv, p: Packet, inIf: string): StackResult | null {
  const h = env.host.config;
  if (isMulticastOrBroadcast(p.src) || p.src === '0.0.0.0') {
    routeEvent(env, p, 'drop', 'martian-source', inIf, null, null);
    return { kind: 'dropped', reason: 'martian source', pkt: p };
  }
  if (isLoopback(p.dst) && !h.routeLocalnet(inIf) && inIf !== 'lo') {
    routeEvent(env, p, 'drop', 'martian-destination', inIf, null, null);
    return {
      kind: 'dropped',
      reason: 'martian destination (127.0.0.0/8 without route_localnet)',
      pkt: p,
    };
  }
  if (isLoopback(p.src) && !h.routeLocalnet(inIf) && inIf !== 'lo') {
    routeEvent(env, p, 'drop', 'martian-source-loopback', inIf, null, null);
    return {
      kind: 'dropped',
      reason: 'martian source (127.0.0.0/8 without route_localnet)',
      pkt: p,
    };
  }
  return null;
}

/** A packet for this host: INPUT (with IPVS between its tables), then the socket layer. */
function localIn(
  env: StackEnv,
  pre: Traversal,
  inIf: string,
  looped: CtInfo | null,
  bridged: BridgedUp | null,
): StackResult {
  const h = env.host.config;
  const p = pre.pkt;
  if (!looped && inIf !== 'lo' && isLocalAddr(h, p.src) && !h.acceptLocal) {
    routeEvent(env, p, 'drop', 'martian-source-local', inIf, null, null);
    return { kind: 'dropped', reason: 'martian source (one of our own addresses)', pkt: p };
  }
  if (!looped && !rpFilterOk(env, p, inIf)) {
    routeEvent(env, p, 'drop', 'rp-filter', inIf, null, null);
    return { kind: 'dropped', reason: 'reverse path filter', pkt: p };
  }
  if (!looped)
    routeEvent(env, p, 'local', 'local', localIface(h, p.dst), null, null, {
      iface: localIface(h, p.dst) ?? '',
    });
  const inp = traversal(p, 'INPUT', inIf, null, null, pre.ct);
  if (bridged) inp.phys = bridged.phys;
  const vi = runHook(env, inp, 'to-ipvs-in');
  if (vi.kind !== 'accept') return verdictResult(vi, inp);
  // IPVS sits between security INPUT (50) and nat INPUT (100): see ipvs/hooks.ts.
  const iv = ipvsLocalIn(env, inp, (pk, ct) => output(env, pk, ct, true));
  if (iv) return iv;
  const vn = runHook(env, inp, 'after-ipvs-in');
  if (vn.kind !== 'accept') return verdictResult(vn, inp);
  confirmConn(env, inp);
  return { kind: 'local', pkt: inp.pkt, inIf, ct: inp.ct };
}

/** A packet for elsewhere: the forwarding route, FORWARD (IPVS between its tables), POSTROUTING. */
function forward(
  env: StackEnv,
  pre: Traversal,
  inIf: string,
  bridged: BridgedUp | null,
): StackResult {
  let p = pre.pkt;
  if (!env.host.config.ipForward) {
    routeEvent(env, p, 'drop', 'no-forwarding', inIf, null, null);
    return { kind: 'dropped', reason: 'not a local address and ip_forward is off', pkt: p };
  }
  const r = pickRoute(env, p.dst);
  if (!r.route || r.route.type !== 'unicast') return noForwardRoute(env, p, r.route);
  if (!rpFilterOk(env, p, inIf)) {
    routeEvent(env, p, 'drop', 'rp-filter', inIf, null, null);
    return { kind: 'dropped', reason: 'reverse path filter', pkt: p };
  }
  routeEvent(env, p, 'forward', 'forward', r.dev, r.via, r.route);
  if (p.ttl <= 1) return { kind: 'dropped', reason: 'TTL exceeded', pkt: p };
  p = { ...p, ttl: p.ttl - 1 };
  const fwd = traversal(p, 'FORWARD', inIf, r.dev, r.nextHop, pre.ct);
  if (bridged) fwd.phys = bridged.phys;
  const vf = runHook(env, fwd, 'to-ipvs-fwd');
  if (vf.kind !== 'accept') return verdictResult(vf, fwd);
  ipvsForward(env, fwd);
  const vf2 = runHook(env, fwd, 'after-ipvs-fwd');
  if (vf2.kind !== 'accept') return verdictResult(vf2, fwd);
  return postrouting(env, fwd.pkt, inIf, r.dev, r.nextHop, fwd.ct, fwd.ipvsProperty, fwd.phys);
}

/** No unicast route to forward by: a blackhole drops, no route / unreachable / prohibit answer. */
function noForwardRoute(env: StackEnv, p: Packet, route: Route | null): StackResult {
  const code = !route ? 0 : route.type === 'prohibit' ? 13 : 1;
  routeEvent(
    env,
    p,
    route?.type === 'blackhole' ? 'drop' : 'unreachable',
    route ? `route-${route.type}` : 'no-route',
    null,
    null,
    route,
  );
  if (route?.type === 'blackhole') return { kind: 'dropped', reason: 'blackhole route', pkt: p };
  return {
    kind: 'unreachable',
    code,
    pkt: p,
    reason: route ? `${route.type} route` : 'no route',
    local: false,
  };
}

function postrouting(
  env: StackEnv,
  pkt: Packet,
  inIf: string | null,
  outIf: string,
  nextHop: string,
  ct: CtInfo,
  ipvsProperty = false,
  phys?: PhysDevs,
): StackResult {
  const post = traversal(pkt, 'POSTROUTING', inIf, outIf, nextHop, ct);
  if (ipvsProperty) post.ipvsProperty = true;
  if (phys) post.phys = phys;
  const v = runHook(env, post);
  if (v.kind !== 'accept') return verdictResult(v, post);
  confirmConn(env, post);
  if (outIf === 'lo') return { kind: 'loopback', pkt: { ...post.pkt }, ct: post.ct };
  return { kind: 'transmit', pkt: { ...post.pkt, mark: 0 }, outIf, nextHop };
}

interface RouteChoice {
  readonly route: Route | null;
  readonly dev: string;
  readonly via: string | null;
  readonly nextHop: string;
}

/** fib_lookup plus next-hop selection (ECMP: one path per flow). */
function pickRoute(env: StackEnv, dst: string): RouteChoice {
  const h = env.host.config;
  const n = ipToNum(dst);
  const route = n === null ? null : longestMatch(h, n);
  if (!route) return { route: null, dev: '', via: null, nextHop: dst };
  let via = route.via;
  let dev = route.dev;
  if (route.nexthops.length > 0) {
    const k =
      route.nexthops.length === 1
        ? 0
        : env.pick(
            route.nexthops.map((x) => x.weight),
            `ecmp ${route.dst.text}`,
            null,
          );
    const hop = route.nexthops[k] as Route['nexthops'][number];
    via = hop.via;
    dev = hop.dev;
  }
  if (via && !dev) {
    const vn = ipToNum(via);
    const viaRoute = vn === null ? null : longestMatch(h, vn);
    dev = viaRoute?.dev ?? null;
  }
  return { route, dev: dev ?? '', via, nextHop: via ?? dst };
}

function rpFilterOk(env: StackEnv, p: Packet, inIf: string): boolean {
  const mode = env.host.config.rpFilter;
  if (mode === 0 || inIf === 'lo') return true;
  const n = ipToNum(p.src);
  const back = n === null ? null : longestMatch(env.host.config, n);
  if (!back || back.type !== 'unicast') return false;
  if (mode === 2) return true;
  const devs = back.nexthops.length ? back.nexthops.map((x) => x.dev ?? back.dev) : [back.dev];
  return devs.includes(inIf) || (back.dev === null && back.via !== null);
}

/** ip_route_output_key: where a locally generated packet goes and which source it gets. */
function outputRoute(
  env: StackEnv,
  pkt: Packet,
):
  | { dev: string; nextHop: string; src: string; route: Route | null }
  | { error: string; code: number } {
  const h = env.host.config;
  if (isLocalAddr(h, pkt.dst)) {
    const src = pkt.src !== '' ? pkt.src : isLoopback(pkt.dst) ? '127.0.0.1' : pkt.dst;
    return { dev: 'lo', nextHop: pkt.dst, src, route: null };
  }
  const r = pickRoute(env, pkt.dst);
  if (!r.route) return { error: 'no-route', code: 0 };
  if (r.route.type !== 'unicast')
    return { error: `route-${r.route.type}`, code: r.route.type === 'prohibit' ? 13 : 1 };
  // fib_result_prefsrc: the route's src, else inet_select_addr towards the gateway (none for a
  // route without one) in the route's scope.
  const src = pkt.src !== '' ? pkt.src : (routeSource(h, r.route, r.dev, r.via) ?? '0.0.0.0');
  if (isLoopback(src) && !h.routeLocalnet(r.dev)) return { error: 'loopback-source', code: 0 };
  return { dev: r.dev, nextHop: r.nextHop, src, route: r.route };
}

/**
 * A packet sent by a local process (or by the kernel itself: RST, ICMP errors), or re-sent by
 * IPVS after rewriting it (`ipvsProperty`, skb->ipvs_property: the IPVS hooks let it pass).
 */
export function output(
  env: StackEnv,
  pkt: Packet,
  ct: CtInfo | null = null,
  ipvsProperty = false,
): StackResult {
  const r0 = outputRoute(env, pkt);
  if ('error' in r0) {
    routeEvent(env, pkt, 'unreachable', r0.error, null, null, null);
    return { kind: 'unreachable', code: r0.code, pkt, reason: r0.error, local: true };
  }
  let p: Packet = { ...pkt, src: r0.src };
  routeEvent(
    env,
    p,
    'output',
    r0.dev === 'lo' ? 'output-local' : 'output',
    r0.dev,
    r0.nextHop !== p.dst ? r0.nextHop : null,
    r0.route,
  );
  const out = traversal(
    p,
    'OUTPUT',
    null,
    r0.dev,
    r0.nextHop,
    ct ?? (tracked(env, p) ? PENDING : NO_CT),
  );
  if (ipvsProperty) out.ipvsProperty = true;
  // The kernel reroutes inside the mangle and nat OUTPUT hooks (ipt_mangle_out,
  // nf_nat_ipv4_local_fn), before filter OUTPUT: a failed reroute drops the packet there, and
  // filter OUTPUT never sees it (Linux 6.18: a DNAT to a pod with source 127.0.0.1 and
  // route_localnet=0 shows nat OUTPUT events, then nothing). filter OUTPUT still matches `-o`
  // against the first route's device (the hook state's out), so the traversal keeps it.
  const v = runHook(env, out, 'to-nat');
  if (v.kind !== 'accept') return verdictResult(v, out);
  p = out.pkt;
  let dev = r0.dev;
  let nextHop = r0.nextHop;
  if (p.dst !== pkt.dst || p.mark !== pkt.mark) {
    // ip_route_me_harder: the destination or mark changed in OUTPUT, so route again.
    const r1 = outputRoute(env, p);
    if ('error' in r1) {
      routeEvent(
        env,
        p,
        'drop',
        r1.error === 'loopback-source' ? 'reroute-loopback-source' : r1.error,
        null,
        null,
        null,
      );
      return {
        kind: 'dropped',
        reason:
          r1.error === 'loopback-source'
            ? 'source 127.0.0.1 cannot leave lo without route_localnet'
            : 'no route after DNAT',
        pkt: p,
      };
    }
    dev = r1.dev;
    nextHop = r1.nextHop;
    routeEvent(env, p, 'reroute', 'reroute', dev, nextHop !== p.dst ? nextHop : null, r1.route);
  }
  // IPVS sits between nat OUTPUT (-100) and filter OUTPUT (0): see ipvs/hooks.ts.
  const iv = ipvsLocalOut(env, out, (pk, c) => output(env, pk, c, true), ipvsProperty);
  if (iv) return iv;
  const v2 = runHook(env, out, 'after-nat');
  if (v2.kind !== 'accept') return verdictResult(v2, out);
  return postrouting(env, out.pkt, null, dev, nextHop, out.ct, out.ipvsProperty);
}

/**
 * br_nf_pre_routing (net/bridge/br_netfilter_hooks.c, Linux 6.18): with
 * bridge-nf-call-iptables=1 an IPv4 frame entering a bridge port runs the IPv4 PREROUTING hooks
 * (conntrack, nat, ...) with the bridge as in-device (setup_pre_routing: skb->dev becomes the
 * bridge, nf_bridge->physindev the port), whether the bridge forwards it or keeps it.
 */
export function bridgePrerouting(
  env: StackEnv,
  pkt: Packet,
  bridge: string,
  port: string,
): { readonly kind: 'accept'; readonly pkt: Packet; readonly ct: CtInfo } | StackResult {
  const pre = traversal(pkt, 'PREROUTING', bridge, null, null, tracked(env, pkt) ? PENDING : NO_CT);
  pre.phys = { in: port, out: null };
  const v = runHook(env, pre);
  if (v.kind !== 'accept') return verdictResult(v, pre);
  return { kind: 'accept', pkt: pre.pkt, ct: pre.ct };
}

/**
 * br_nf_pre_routing_finish after a DNAT changed the destination: ip_route_input from the
 * bridge. A route back out of the same bridge is "bridged DNAT" (the frame re-enters the
 * bridge's forwarding with the new destination's MAC: br_nf_pre_routing_finish_bridge, so the
 * bridge's rules, hairpin included, apply); anything else goes up the IP stack; no route drops.
 */
export function bridgeReroute(
  env: StackEnv,
  pkt: Packet,
  bridge: string,
): 'bridge' | 'host' | null {
  const h = env.host.config;
  if (isLocalAddr(h, pkt.dst)) return 'host';
  const r = pickRoute(env, pkt.dst);
  if (!r.route || r.route.type !== 'unicast') {
    routeEvent(
      env,
      pkt,
      'drop',
      r.route ? `route-${r.route.type}` : 'no-route',
      null,
      null,
      r.route,
    );
    return null;
  }
  if (r.dev !== bridge) return 'host';
  routeEvent(env, pkt, 'forward', 'bridged-dnat', r.dev, r.via, r.route);
  return 'bridge';
}

/**
 * br_nf_forward_ip then br_nf_post_routing: a bridged IPv4 frame through FORWARD (in and out the
 * bridge, physdev in and out the ports) and POSTROUTING (no in-device, out the bridge), where
 * conntrack confirms it and a connection's reply gets its NAT undone. No TTL decrement: the frame
 * is bridged, not routed.
 */
export function bridgeForward(
  env: StackEnv,
  pkt: Packet,
  ct: CtInfo,
  bridge: string,
  inPort: string,
  outPort: string,
  beforePost: () => void,
): StackResult {
  const phys = { in: inPort, out: outPort };
  const fwd = traversal(pkt, 'FORWARD', bridge, bridge, pkt.dst, ct);
  fwd.phys = phys;
  const vf = runHook(env, fwd);
  if (vf.kind !== 'accept') return verdictResult(vf, fwd);
  beforePost();
  const post = traversal(fwd.pkt, 'POSTROUTING', null, bridge, pkt.dst, fwd.ct);
  post.phys = phys;
  const vp = runHook(env, post);
  if (vp.kind !== 'accept') return verdictResult(vp, post);
  confirmConn(env, post);
  return { kind: 'transmit', pkt: { ...post.pkt, mark: 0 }, outIf: outPort, nextHop: post.pkt.dst };
}
