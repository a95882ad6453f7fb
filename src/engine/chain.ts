/** Walks a table's chain for one packet at one hook: rules in order, jump/goto/return, policy. */
import { ipToNum } from './ip.ts';
import type { CtInfo } from './conntrack.ts';
import type { HostConfig } from './host.ts';
import type { CompiledSet } from './ipset.ts';
import type { MatchCtx, RuleState } from './match-context.ts';
import type { Packet } from './packet.ts';
import { applyXmark, type CompiledRule, type RejectWith, type TargetOp } from './rules/compile.ts';
import type { Chain, Hook, Rule, Table } from './rules/types.ts';
import { compileValidated } from './rules/validate.ts';
import type { CtSnapshot, Tracer, Verdict } from './trace.ts';

/** The packet and its metadata while it crosses one hook; targets may rewrite it. */
export interface Traversal {
  pkt: Packet;
  readonly inIf: string | null;
  readonly outIf: string | null;
  readonly nextHop: string | null;
  ct: CtInfo;
  readonly hook: Hook;
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
  nat(
    op: Extract<TargetOp, { kind: 'dnat' | 'snat' | 'masquerade' | 'redirect' }>,
    t: Traversal,
  ): 'ok' | 'drop';
  /** Marks the packet untracked (raw table NOTRACK / CT --notrack). */
  notrack(t: Traversal): void;
}

export type TableVerdict =
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop'; readonly rule: Rule | null }
  | { readonly kind: 'reject'; readonly with: RejectWith; readonly rule: Rule }
  | { readonly kind: 'unsupported'; readonly what: string; readonly rule: Rule | null };

const compiledChains = new WeakMap<Chain, readonly CompiledRule[]>();

/**
 * Bounds of one table walk. The kernel has none (a ruleset may make one packet visit 2^40 rules);
 * the lab stops with an explicit "cannot decide" instead of running out of time or memory.
 */
export const WALK_LIMITS = {
  /** Rule evaluations in one table at one hook. */
  evaluations: 1_000_000,
  /** Trace events of one probe run (all hosts, hooks and packets together). */
  events: 100_000,
};

/** Modules whose match reads or writes state that a second walk would see differently. */
const STATEFUL_MODULES = new Set([
  'statistic',
  'recent',
  'limit',
  'hashlimit',
  'quota',
  'connlimit',
  'nfacct',
  'connbytes',
]);
const PURE_TARGETS = new Set<TargetOp['kind']>(['none', 'accept', 'drop', 'return', 'reject']);

const pureChains = new WeakMap<Chain, boolean>();

/**
 * A chain is pure when walking it can neither change the packet, its connection or any rule
 * state, nor log, nor take a random branch: all its rules and every chain it reaches only match
 * and jump, return, accept, drop or reject. A pure chain walked twice with the same packet does
 * the same thing twice.
 */
function isPure(chain: Chain, table: Table, family: 4 | 6, visiting = new Set<Chain>()): boolean {
  const known = pureChains.get(chain);
  if (known !== undefined) return known;
  if (visiting.has(chain)) return false;
  visiting.add(chain);
  let pure = true;
  for (const cr of compiledRules(chain, table, family)) {
    const op = cr.target;
    const stateless = cr.rule.items.every(
      (it) => it.kind !== 'module' || !STATEFUL_MODULES.has(it.name),
    );
    const next = op.kind === 'jump' || op.kind === 'goto' ? table.chains.get(op.chain) : null;
    if (
      !stateless ||
      (next ? !isPure(next, table, family, visiting) : !PURE_TARGETS.has(op.kind))
    ) {
      pure = false;
      break;
    }
  }
  visiting.delete(chain);
  pureChains.set(chain, pure);
  return pure;
}

/** Compiles a chain the first time a packet walks it (parse only validates, to stay small). */
function compiledRules(chain: Chain, table: Table, family: 4 | 6): readonly CompiledRule[] {
  let c = compiledChains.get(chain);
  if (!c) {
    c = chain.rules.map((r) => compileValidated(r, table, family));
    compiledChains.set(chain, c);
  }
  return c;
}

type MatchResult = true | false | { unsupported: string };

function evalRule(cr: CompiledRule, ctx: MatchCtx): MatchResult {
  for (const m of cr.core) if (!m(ctx)) return false;
  let unsupported: string | null = null;
  for (const m of cr.modules) {
    if (typeof m === 'function') {
      if (!m(ctx)) return false;
    } else if (unsupported === null) unsupported = m.unsupported;
  }
  return unsupported === null ? true : { unsupported };
}

function makeCtx(env: ChainEnv, t: Traversal): MatchCtx {
  return {
    pkt: t.pkt,
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
    choose: (p, r) => env.choose(p, r),
  };
}

/** Runs the built-in chain `t.hook` of `table`. The caller emitted the hook event. */
export function runTable(env: ChainEnv, table: Table, t: Traversal): TableVerdict {
  const base = table.chains.get(t.hook);
  if (!base) return { kind: 'accept' };
  const tr = env.tracer;
  const stack: { chain: Chain; next: number }[] = [];
  let chain = base;
  let i = 0;
  let missFrom = -1;
  let ctx = makeCtx(env, t);
  // `gen` changes whenever the packet or its connection changes. A pure chain that came back
  // without a verdict at generation g comes back again at g: it is not walked a second time,
  // which keeps a walk linear in the rules it visits (40 chains that each jump twice to the
  // next would otherwise take 2^40 steps).
  let gen = 0;
  const returned = new Map<Chain, { gen: number; evaluations: number }>();
  const entered: { chain: Chain; evaluations: number }[] = [];
  let evaluations = 0;
  const setCtx = () => {
    ctx = makeCtx(env, t);
    gen++;
  };
  const flushMiss = (upTo: number) => {
    if (missFrom >= 0) {
      tr.emit({
        type: 'miss',
        packet: t.pkt,
        hook: t.hook,
        table: table.name,
        chain: chain.name,
        from: missFrom + 1,
        to: upTo,
        explain: { key: 'rule.miss', params: { chain: chain.name, count: upTo - missFrom } },
      });
      missFrom = -1;
    }
  };
  const emitRule = (
    cr: CompiledRule,
    verdict: Verdict,
    target: string | null,
    before: Packet,
    key: string,
    params: Record<string, string | number> = {},
    conn?: CtSnapshot,
  ) => {
    tr.emit({
      ...(conn ? { conn } : {}),
      type: 'rule',
      packet: t.pkt,
      before,
      hook: t.hook,
      table: table.name,
      chain: chain.name,
      rule: cr.rule.index,
      line: cr.rule.line,
      text: cr.rule.text,
      verdict,
      target,
      probability: cr.probability,
      explain: {
        key,
        params: {
          chain: chain.name,
          table: table.name,
          rule: cr.rule.index,
          ...(target ? { target } : {}),
          ...params,
        },
      },
    });
  };
  const leaving = (c: Chain) => {
    const e = entered.pop();
    if (e && e.chain === c && isPure(c, table, env.family))
      returned.set(c, { gen, evaluations: evaluations - e.evaluations });
  };
  /** Leaves the chain without a verdict: to the rule after the jump, or to the base policy. */
  const backToCaller = () => {
    if (chain !== base) leaving(chain);
    const frame = stack.pop();
    if (frame) {
      chain = frame.chain;
      i = frame.next;
    } else {
      // RETURN from the base chain (or a chain it went to by goto): the policy decides.
      chain = base;
      i = compiledRules(base, table, env.family).length;
    }
  };
  for (;;) {
    const rules = compiledRules(chain, table, env.family);
    if (evaluations > WALK_LIMITS.evaluations || tr.events.length > WALK_LIMITS.events) {
      flushMiss(Math.min(i, rules.length));
      const cr = rules[Math.min(i, rules.length - 1)] ?? null;
      const what =
        evaluations > WALK_LIMITS.evaluations
          ? `a walk of more than ${WALK_LIMITS.evaluations.toLocaleString('en')} rule evaluations in ${table.name} ${t.hook}`
          : `a trace of more than ${WALK_LIMITS.events.toLocaleString('en')} steps`;
      const rule = cr?.rule ?? null;
      tr.emit({
        type: 'unsupported',
        packet: t.pkt,
        what,
        line: rule?.line ?? null,
        text: rule?.text ?? null,
        explain: { key: 'limit.walk', params: { what, chain: chain.name } },
      });
      return { kind: 'unsupported', what, rule };
    }
    if (i >= rules.length) {
      flushMiss(rules.length);
      if (chain !== base) leaving(chain);
      const frame = stack.pop();
      if (chain === base || (!frame && chain.builtin)) {
        const policy = base.policy ?? 'ACCEPT';
        tr.emit({
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
      tr.emit({
        type: 'return',
        packet: t.pkt,
        hook: t.hook,
        table: table.name,
        chain: chain.name,
        explain: { key: 'chain.return', params: { chain: chain.name } },
      });
      if (!frame) {
        // Fell off the end of a chain entered by goto from the base chain: the base policy applies.
        chain = base;
        i = compiledRules(base, table, env.family).length;
        continue;
      }
      chain = frame.chain;
      i = frame.next;
      continue;
    }
    const cr = rules[i] as CompiledRule;
    evaluations++;
    const hit = evalRule(cr, ctx);
    if (hit === false) {
      if (missFrom < 0) missFrom = i;
      i++;
      continue;
    }
    flushMiss(i);
    if (hit !== true) {
      tr.emit({
        type: 'unsupported',
        packet: t.pkt,
        what: hit.unsupported,
        line: cr.rule.line,
        text: cr.rule.text,
        explain: {
          key: 'unsupported.match',
          params: { what: hit.unsupported, line: cr.rule.line },
        },
      });
      return { kind: 'unsupported', what: hit.unsupported, rule: cr.rule };
    }
    i++;
    const op = cr.target;
    const before = t.pkt;
    switch (op.kind) {
      case 'none':
        emitRule(cr, 'CONTINUE', null, before, 'rule.nothing');
        continue;
      case 'accept':
        emitRule(cr, 'ACCEPT', null, before, 'rule.accept');
        return { kind: 'accept' };
      case 'drop':
        emitRule(cr, 'DROP', null, before, 'rule.drop');
        return { kind: 'drop', rule: cr.rule };
      case 'return': {
        emitRule(cr, 'RETURN', null, before, 'rule.return');
        backToCaller();
        continue;
      }
      case 'jump':
      case 'goto': {
        const next = table.chains.get(op.chain);
        if (!next) throw new Error(`validated ruleset lost chain ${op.chain}`);
        emitRule(
          cr,
          op.kind === 'jump' ? 'JUMP' : 'GOTO',
          op.chain,
          before,
          op.kind === 'jump' ? 'rule.jump' : 'rule.goto',
        );
        const seen = returned.get(next);
        if (seen && seen.gen === gen) {
          // Same pure chain, same packet: it comes back without a verdict again.
          tr.emit({
            type: 'return',
            packet: t.pkt,
            hook: t.hook,
            table: table.name,
            chain: next.name,
            explain: {
              key: 'chain.repeat',
              params: { chain: next.name, count: seen.evaluations },
            },
          });
          // A goto'd chain that comes back returns to the caller of this chain.
          if (op.kind === 'goto') backToCaller();
          continue;
        }
        if (op.kind === 'jump') stack.push({ chain, next: i });
        else if (chain !== base) entered.pop();
        entered.push({ chain: next, evaluations });
        chain = next;
        i = 0;
        continue;
      }
      case 'dnat':
      case 'snat':
      case 'masquerade':
      case 'redirect': {
        const res = env.nat(op, t);
        if (res === 'drop') {
          emitRule(cr, 'DROP', op.kind.toUpperCase(), before, 'rule.nat-failed');
          return { kind: 'drop', rule: cr.rule };
        }
        const key =
          op.kind === 'dnat'
            ? 'rule.dnat'
            : op.kind === 'redirect'
              ? 'rule.redirect'
              : op.kind === 'snat'
                ? 'rule.snat'
                : 'rule.masquerade';
        const conn = t.ct.conn;
        emitRule(
          cr,
          'ACCEPT',
          op.kind.toUpperCase(),
          before,
          key,
          { dst: t.pkt.dst, dport: t.pkt.dport, src: t.pkt.src },
          conn ? { id: conn.id, orig: conn.orig, reply: conn.reply } : undefined,
        );
        return { kind: 'accept' };
      }
      case 'mark': {
        const mark = applyXmark(t.pkt.mark, op.value, op.mask);
        t.pkt = { ...t.pkt, mark };
        setCtx();
        emitRule(cr, 'CONTINUE', 'MARK', before, 'rule.mark', { mark: `0x${mark.toString(16)}` });
        continue;
      }
      case 'connmark': {
        const conn = t.ct.conn;
        if (conn) {
          if (op.mode === 'set') conn.mark = applyXmark(conn.mark, op.value, op.mask);
          else if (op.mode === 'save')
            conn.mark = ((conn.mark & ~op.ctmask) ^ (t.pkt.mark & op.nfmask)) >>> 0;
          else
            t.pkt = { ...t.pkt, mark: ((t.pkt.mark & ~op.nfmask) ^ (conn.mark & op.ctmask)) >>> 0 };
          setCtx();
        }
        emitRule(cr, 'CONTINUE', 'CONNMARK', before, 'rule.connmark', {
          mark: `0x${(conn?.mark ?? 0).toString(16)}`,
        });
        continue;
      }
      case 'reject':
        emitRule(cr, 'DROP', 'REJECT', before, 'rule.reject', { with: op.with });
        return { kind: 'reject', with: op.with, rule: cr.rule };
      case 'log':
        emitRule(cr, 'CONTINUE', op.via, before, 'rule.log', { prefix: op.prefix });
        tr.emit({
          type: 'log',
          packet: t.pkt,
          prefix: op.prefix,
          via: op.via,
          explain: { key: 'log.line', params: { prefix: op.prefix } },
        });
        continue;
      case 'trace':
        emitRule(cr, 'CONTINUE', 'TRACE', before, 'rule.trace');
        continue;
      case 'notrack':
        env.notrack(t);
        setCtx();
        emitRule(cr, 'CONTINUE', 'NOTRACK', before, 'rule.notrack');
        continue;
      case 'unsupported':
        tr.emit({
          type: 'unsupported',
          packet: t.pkt,
          what: op.what,
          line: cr.rule.line,
          text: cr.rule.text,
          explain: { key: 'unsupported.target', params: { what: op.what, line: cr.rule.line } },
        });
        return { kind: 'unsupported', what: op.what, rule: cr.rule };
    }
  }
}
