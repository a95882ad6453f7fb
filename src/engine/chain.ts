/** Walks a table's chain for one packet at one hook: rules in order, jump/goto/return, policy. */
import type { CtInfo } from './conntrack.ts';
import type { HostConfig } from './host.ts';
import { ipToNum } from './ip.ts';
import type { CompiledSet } from './ipset.ts';
import type { MatchCtx, PhysDevs, RuleState } from './match-context.ts';
import type { Packet } from './packet.ts';
import { protoNumber } from './rules/header.ts';
import type { MarkOp, NatOp, RejectWith, TargetOp } from './rules/target-op.ts';
import type { Chain, Hook, Rule, Table } from './rules/types.ts';
import type { CtSnapshot, NewEvent, TraceEvent, Tracer, Verdict } from './trace.ts';
import type { IpvsConn } from './ipvs/table.ts';

/** The packet and its metadata while it crosses one hook; targets may rewrite it. */
export interface Traversal {
  pkt: Packet;
  readonly inIf: string | null;
  readonly outIf: string | null;
  readonly nextHop: string | null;
  ct: CtInfo;
  readonly hook: Hook;
  /** skb->ipvs_property: IPVS re-sent or translated this packet (its hooks let it pass). */
  ipvsProperty?: boolean;
  /** skb->nf_bridge: the packet entered through a bridge port with br_netfilter (see PhysDevs). */
  phys?: PhysDevs;
}

export interface ChainEnv {
  readonly tracer: Tracer;
  readonly family: 4 | 6;
  readonly host: HostConfig;
  readonly sets: ReadonlyMap<string, CompiledSet>;
  readonly state: RuleState;
  readonly now: number;
  choose(probability: number, rule: Rule): boolean;
  /** Performs a NAT target on the traversal (binds conntrack, rewrites the packet). */
  nat(op: NatOp, t: Traversal): 'ok' | 'drop';
  /** Marks the packet untracked (raw table NOTRACK / CT --notrack). */
  notrack(t: Traversal): void;
  /** The host's IPVS connections, for `-m ipvs`. */
  readonly ipvsConns?: readonly IpvsConn[];
}

/**
 * A table's (or an nft base chain's) verdict. `where` and `line` name an nft rule, which has
 * no iptables Rule: `ip kube-proxy filter-input handle 12`.
 */
export type TableVerdict =
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop'; readonly rule: Rule | null; readonly where?: string }
  | {
      readonly kind: 'reject';
      readonly with: RejectWith;
      readonly rule: Rule | null;
      readonly where?: string;
      readonly line?: number;
    }
  | {
      readonly kind: 'unsupported';
      readonly what: string;
      readonly rule: Rule | null;
      readonly where?: string;
      readonly line?: number;
    };

/**
 * Bounds of one table walk. The kernel has none (a ruleset may make one packet visit 2^40 rules);
 * the lab stops with an explicit "cannot decide" instead of running out of time or memory.
 */
export const WALK_LIMITS = {
  /** Rule evaluations in one table at one hook. */
  evaluations: 1_000_000,
  /** Trace events of one probe run (all hosts, hooks and packets together). */
  events: 100_000,
  /**
   * Trace events of pure chains replayed in one table walk (see TableWalk.repeat). The kernel
   * traces a chain each time it is entered; so does the lab, up to this many replayed events.
   */
  replayed: 4_000,
};

const PURE_TARGETS = new Set<TargetOp['kind']>(['none', 'accept', 'drop', 'return', 'reject']);

const pureChains = new WeakMap<Chain, boolean>();

/**
 * A chain is pure when walking it can neither change the packet, its connection or any rule
 * state, nor log, nor take a random branch: all its rules and every chain it reaches only match
 * and jump, return, accept, drop or reject. A pure chain walked twice with the same packet does
 * the same thing twice.
 */
function isPure(chain: Chain, visiting = new Set<Chain>()): boolean {
  const known = pureChains.get(chain);
  if (known !== undefined) return known;
  if (visiting.has(chain)) return false;
  visiting.add(chain);
  let pure = true;
  for (const r of chain.rules) {
    const op = r.target;
    const next = op.kind === 'jump' || op.kind === 'goto' ? op.chain : null;
    if (r.stateful || (next ? !isPure(next, visiting) : !PURE_TARGETS.has(op.kind))) {
      pure = false;
      break;
    }
  }
  visiting.delete(chain);
  pureChains.set(chain, pure);
  return pure;
}

type MatchResult = true | false | { unsupported: string };

/** The header first (ip_packet_match), then each extension match in order. */
function evalRule(table: Table, r: Rule, ctx: MatchCtx): MatchResult {
  if (!table.headers.matches(r.header, ctx)) return false;
  ctx.rule = r;
  let unsupported: string | null = null;
  for (const m of r.matches) {
    if (typeof m === 'function') {
      if (!m(ctx)) return false;
    } else if (unsupported === null) unsupported = m.unsupported;
  }
  return unsupported === null ? true : { unsupported };
}

function makeCtx(env: ChainEnv, t: Traversal): MatchCtx {
  return {
    pkt: t.pkt,
    protoNum: protoNumber(t.pkt.proto),
    srcNum: ipToNum(t.pkt.src),
    dstNum: ipToNum(t.pkt.dst),
    inIf: t.inIf,
    outIf: t.outIf,
    hook: t.hook,
    ct: t.ct,
    host: env.host,
    sets: env.sets,
    state: env.state,
    now: env.now,
    rule: null,
    choose: (p, r) => env.choose(p, r),
    ...(t.ipvsProperty ? { ipvs: { property: true, conns: env.ipvsConns ?? [] } } : {}),
    ...(t.phys ? { phys: t.phys } : {}),
  };
}

/** Applies an `--set-xmark value/mask` style operation: mark = (mark & ~mask) ^ value. */
export function applyXmark(mark: number, value: number, mask: number): number {
  return ((mark & ~mask) ^ value) >>> 0;
}

const NAT_KEYS = {
  dnat: 'rule.dnat',
  redirect: 'rule.redirect',
  snat: 'rule.snat',
  masquerade: 'rule.masquerade',
} as const;

/** One walk of one table at one hook, with its call stack and the pure-chain memo. */
class TableWalk {
  private readonly base: Chain;
  private readonly stack: { chain: Chain; next: number }[] = [];
  private chain: Chain;
  private i = 0;
  private missFrom = -1;
  private ctx: MatchCtx;
  /**
   * `gen` changes whenever the packet or its connection changes. A pure chain that came back
   * without a verdict at generation g comes back again at g: it is not walked a second time,
   * which keeps a walk linear in the rules it visits (40 chains that each jump twice to the next
   * would otherwise take 2^40 steps). Its recorded events are replayed instead, as the kernel
   * would trace them, within WALK_LIMITS.replayed; past it, one summary step says so.
   */
  private gen = 0;
  private readonly returned = new Map<
    Chain,
    { gen: number; evaluations: number; events: readonly TraceEvent[] | null }
  >();
  /** Chains being walked: where their events start in the trace. */
  private readonly entered: { chain: Chain; evaluations: number; start: number }[] = [];
  private evaluations = 0;
  private replayed = 0;

  constructor(
    private readonly env: ChainEnv,
    private readonly table: Table,
    private readonly t: Traversal,
    base: Chain,
  ) {
    this.base = base;
    this.chain = base;
    this.ctx = makeCtx(env, t);
  }

  /** The packet or its connection changed: matches see the new one. */
  private changed(): void {
    this.ctx = makeCtx(this.env, this.t);
    this.gen++;
  }

  private emit(e: Parameters<Tracer['emit']>[0]): void {
    this.env.tracer.emit(e);
  }

  private flushMiss(upTo: number): void {
    if (this.missFrom < 0) return;
    const chain = this.chain.name;
    this.emit({
      type: 'miss',
      packet: this.t.pkt,
      hook: this.t.hook,
      table: this.table.name,
      chain,
      from: this.missFrom + 1,
      to: upTo,
      explain: { key: 'rule.miss', params: { chain, count: upTo - this.missFrom } },
    });
    this.missFrom = -1;
  }

  private emitRule(
    r: Rule,
    verdict: Verdict,
    target: string | null,
    before: Packet,
    key: string,
    params: Record<string, string | number> = {},
    conn?: CtSnapshot,
  ): void {
    const { t, table, chain } = this;
    this.emit({
      ...(conn ? { conn } : {}),
      type: 'rule',
      packet: t.pkt,
      before,
      hook: t.hook,
      table: table.name,
      chain: chain.name,
      rule: r.index,
      line: r.line,
      text: r.text,
      verdict,
      target,
      probability: r.probability,
      explain: {
        key,
        params: {
          chain: chain.name,
          table: table.name,
          rule: r.index,
          ...(target ? { target } : {}),
          ...params,
        },
      },
    });
  }

  private emitReturn(chain: Chain, key: string, params: Record<string, string | number>): void {
    const { t, table } = this;
    this.emit({
      type: 'return',
      packet: t.pkt,
      hook: t.hook,
      table: table.name,
      chain: chain.name,
      explain: { key, params },
    });
  }

  private unsupported(what: string, rule: Rule | null, key: string, params: object): TableVerdict {
    this.emit({
      type: 'unsupported',
      packet: this.t.pkt,
      what,
      line: rule?.line ?? null,
      text: rule?.text ?? null,
      explain: { key, params: { what, ...params } },
    });
    return { kind: 'unsupported', what, rule };
  }

  private leaving(c: Chain): void {
    const e = this.entered.pop();
    if (!e || e.chain !== c || !isPure(c)) return;
    const all = this.env.tracer.events;
    const events = all.length - e.start <= WALK_LIMITS.replayed ? all.slice(e.start) : null;
    this.returned.set(c, { gen: this.gen, evaluations: this.evaluations - e.evaluations, events });
  }

  /**
   * A pure chain entered again by the same packet: its events again (the kernel traces every
   * rule of every entry, nft_trace / ipt_do_table's trace), without walking it; a summary step
   * once the replay budget is spent.
   */
  private repeat(next: Chain, seen: { evaluations: number; events: readonly TraceEvent[] | null }) {
    const events = seen.events;
    if (events && this.replayed + events.length <= WALK_LIMITS.replayed) {
      this.replayed += events.length;
      for (const e of events) {
        // The tracer numbers and places the copy; the rest is the same step.
        // eslint-disable-next-line @typescript-eslint/no-unused-vars
        const { seq, host, trackId, packetId, ...step } = e;
        this.emit(step as NewEvent);
      }
      return;
    }
    this.emitReturn(next, 'chain.repeat', { chain: next.name, count: seen.evaluations });
  }

  /** Leaves the chain without a verdict: to the rule after the jump, or to the base policy. */
  private backToCaller(): void {
    if (this.chain !== this.base) this.leaving(this.chain);
    const frame = this.stack.pop();
    if (frame) {
      this.chain = frame.chain;
      this.i = frame.next;
    } else {
      // RETURN from the base chain (or a chain it went to by goto): the policy decides.
      this.chain = this.base;
      this.i = this.base.rules.length;
    }
  }

  /** The end of a chain: the base policy, or back to the caller. Null to walk on. */
  private endOfChain(): TableVerdict | null {
    const { t, table, base } = this;
    this.flushMiss(this.chain.rules.length);
    const frame = this.stack.pop();
    if (this.chain === base || (!frame && this.chain.builtin)) {
      if (this.chain !== base) this.leaving(this.chain);
      const policy = base.policy ?? 'ACCEPT';
      this.emit({
        type: 'policy',
        packet: t.pkt,
        hook: t.hook,
        table: table.name,
        chain: base.name,
        verdict: policy,
        explain: {
          key: policy === 'ACCEPT' ? 'chain.policy.accept' : 'chain.policy.drop',
          params: { table: table.name, chain: base.name },
        },
      });
      return policy === 'ACCEPT' ? { kind: 'accept' } : { kind: 'drop', rule: null };
    }
    this.emitReturn(this.chain, 'chain.return', { chain: this.chain.name });
    // After its return step: a replay of this chain ends with it, as the kernel's trace does.
    this.leaving(this.chain);
    if (frame) {
      this.chain = frame.chain;
      this.i = frame.next;
    } else {
      // Fell off the end of a chain entered by goto from the base chain: the base policy applies.
      this.chain = base;
      this.i = base.rules.length;
    }
    return null;
  }

  private limitReached(): TableVerdict | null {
    const overEvaluations = this.evaluations > WALK_LIMITS.evaluations;
    if (!overEvaluations && this.env.tracer.events.length <= WALK_LIMITS.events) return null;
    const rules = this.chain.rules;
    this.flushMiss(Math.min(this.i, rules.length));
    const rule = rules[Math.min(this.i, rules.length - 1)] ?? null;
    const what = overEvaluations
      ? `a walk of more than ${WALK_LIMITS.evaluations.toLocaleString('en')} rule evaluations in ${this.table.name} ${this.t.hook}`
      : `a trace of more than ${WALK_LIMITS.events.toLocaleString('en')} steps`;
    return this.unsupported(what, rule, 'limit.walk', { chain: this.chain.name });
  }

  private jump(r: Rule, op: Extract<TargetOp, { kind: 'jump' | 'goto' }>, before: Packet): void {
    const next = op.chain;
    const isJump = op.kind === 'jump';
    this.emitRule(
      r,
      isJump ? 'JUMP' : 'GOTO',
      next.name,
      before,
      isJump ? 'rule.jump' : 'rule.goto',
    );
    const seen = this.returned.get(next);
    if (seen && seen.gen === this.gen) {
      // Same pure chain, same packet: it comes back without a verdict again.
      this.repeat(next, seen);
      // A goto'd chain that comes back returns to the caller of this chain.
      if (!isJump) this.backToCaller();
      return;
    }
    if (isJump) this.stack.push({ chain: this.chain, next: this.i });
    else if (this.chain !== this.base) this.entered.pop();
    this.entered.push({
      chain: next,
      evaluations: this.evaluations,
      start: this.env.tracer.events.length,
    });
    this.chain = next;
    this.i = 0;
  }

  private nat(r: Rule, op: NatOp, before: Packet): TableVerdict {
    const t = this.t;
    if (this.env.nat(op, t) === 'drop') {
      this.emitRule(r, 'DROP', op.kind.toUpperCase(), before, 'rule.nat-failed');
      return { kind: 'drop', rule: r };
    }
    const conn = t.ct.conn;
    this.emitRule(
      r,
      'ACCEPT',
      op.kind.toUpperCase(),
      before,
      NAT_KEYS[op.kind],
      { dst: t.pkt.dst, dport: t.pkt.dport, src: t.pkt.src },
      conn ? { id: conn.id, orig: conn.orig, reply: conn.reply } : undefined,
    );
    return { kind: 'accept' };
  }

  private mark(r: Rule, op: MarkOp, before: Packet): void {
    const t = this.t;
    if (op.kind === 'mark') {
      const mark = applyXmark(t.pkt.mark, op.value, op.mask);
      t.pkt = { ...t.pkt, mark };
      this.changed();
      this.emitRule(r, 'CONTINUE', 'MARK', before, 'rule.mark', { mark: `0x${mark.toString(16)}` });
      return;
    }
    const conn = t.ct.conn;
    if (conn) {
      if (op.mode === 'set') conn.mark = applyXmark(conn.mark, op.value, op.mask);
      else if (op.mode === 'save')
        conn.mark = ((conn.mark & ~op.ctmask) ^ (t.pkt.mark & op.nfmask)) >>> 0;
      else t.pkt = { ...t.pkt, mark: ((t.pkt.mark & ~op.nfmask) ^ (conn.mark & op.ctmask)) >>> 0 };
      this.changed();
    }
    this.emitRule(r, 'CONTINUE', 'CONNMARK', before, 'rule.connmark', {
      mark: `0x${(conn?.mark ?? 0).toString(16)}`,
    });
  }

  /** Performs the target of a matching rule; a verdict ends the walk, null walks on. */
  private perform(r: Rule): TableVerdict | null {
    const op = r.target;
    const before = this.t.pkt;
    switch (op.kind) {
      case 'none':
        this.emitRule(r, 'CONTINUE', null, before, 'rule.nothing');
        return null;
      case 'accept':
        this.emitRule(r, 'ACCEPT', null, before, 'rule.accept');
        return { kind: 'accept' };
      case 'drop':
        this.emitRule(r, 'DROP', null, before, 'rule.drop');
        return { kind: 'drop', rule: r };
      case 'return':
        this.emitRule(r, 'RETURN', null, before, 'rule.return');
        this.backToCaller();
        return null;
      case 'jump':
      case 'goto':
        this.jump(r, op, before);
        return null;
      case 'dnat':
      case 'snat':
      case 'masquerade':
      case 'redirect':
        return this.nat(r, op, before);
      case 'mark':
      case 'connmark':
        this.mark(r, op, before);
        return null;
      case 'reject':
        this.emitRule(r, 'DROP', 'REJECT', before, 'rule.reject', { with: op.with });
        return { kind: 'reject', with: op.with, rule: r };
      case 'log':
        this.emitRule(r, 'CONTINUE', op.via, before, 'rule.log', { prefix: op.prefix });
        this.emit({
          type: 'log',
          packet: this.t.pkt,
          prefix: op.prefix,
          via: op.via,
          explain: { key: 'log.line', params: { prefix: op.prefix } },
        });
        return null;
      case 'trace':
        this.emitRule(r, 'CONTINUE', 'TRACE', before, 'rule.trace');
        return null;
      case 'notrack':
        this.env.notrack(this.t);
        this.changed();
        this.emitRule(r, 'CONTINUE', 'NOTRACK', before, 'rule.notrack');
        return null;
      case 'unsupported':
        return this.unsupported(op.what, r, 'unsupported.target', { line: r.line });
    }
  }

  run(): TableVerdict {
    for (;;) {
      const limit = this.limitReached();
      if (limit) return limit;
      const rules = this.chain.rules;
      if (this.i >= rules.length) {
        const v = this.endOfChain();
        if (v) return v;
        continue;
      }
      const r = rules[this.i] as Rule;
      this.evaluations++;
      const hit = evalRule(this.table, r, this.ctx);
      if (hit === false) {
        if (this.missFrom < 0) this.missFrom = this.i;
        this.i++;
        continue;
      }
      this.flushMiss(this.i);
      if (hit !== true)
        return this.unsupported(hit.unsupported, r, 'unsupported.match', { line: r.line });
      this.i++;
      const v = this.perform(r);
      if (v) return v;
    }
  }
}

/** Runs the built-in chain `t.hook` of `table`. The caller emitted the hook event. */
export function runTable(env: ChainEnv, table: Table, t: Traversal): TableVerdict {
  const base = table.chains.get(t.hook);
  if (!base) return { kind: 'accept' };
  return new TableWalk(env, table, t, base).run();
}
