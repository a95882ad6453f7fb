/**
 * Walks one nft base chain for one packet, as nft_do_chain does (net/netfilter/nf_tables_core.c):
 * rules in order, each rule's expressions left to right until one breaks (no match) or sets a
 * verdict; `jump` pushes a return point, `goto` does not, `return` and the end of a regular
 * chain pop it; the base chain's policy when the stack is empty. `accept` ends this base chain
 * only: the hook goes on with the next base chain (nf_hook_slow), while `drop` ends the packet.
 * Trace events follow the kernel's nftrace (nf_tables_trace.c): a rule that matched is reported
 * with its verdict, a rule that broke is not (the lab adds `miss` ranges for the reader).
 */
import type { TableVerdict, Traversal } from '../chain.ts';
import { WALK_LIMITS } from '../chain.ts';
import type { HostConfig } from '../host.ts';
import type { Packet } from '../packet.ts';
import type { NatOp } from '../rules/target-op.ts';
import type { TableName } from '../rules/types.ts';
import type { NftTraceInfo, Tracer, Verdict } from '../trace.ts';
import type { DynamicSets, NftCtx } from './context.ts';
import { keyString, type Val } from './datatypes.ts';
import { lookup } from './sets.ts';
import { tableId, type NftChain, type NftRule, type NftVerdict, type Stmt } from './types.ts';

export interface NftEnv {
  readonly tracer: Tracer;
  readonly host: HostConfig;
  readonly family: 4 | 6;
  readonly now: number;
  readonly dynamic: DynamicSets;
  /** A uniform draw in [0, n), through the run's chooser. */
  pick(n: number, label: string): number;
  nat(op: NatOp, t: Traversal): 'ok' | 'drop';
  notrack(t: Traversal): void;
}

/** What one rule did: broke (no match), or ended with a verdict (continue included). */
type RuleOutcome =
  | { readonly kind: 'miss' }
  | {
      readonly kind: 'verdict';
      readonly verdict: NftVerdict;
      /** What to show as the rule's target (DNAT, MARK, a chain...). */
      readonly target: string | null;
      readonly probability: number | null;
      readonly explain?: { key: string; params: Record<string, string | number> };
    }
  | { readonly kind: 'final'; readonly v: TableVerdict };

const VERDICT: Readonly<Record<NftVerdict['code'], Verdict>> = {
  accept: 'ACCEPT',
  drop: 'DROP',
  continue: 'CONTINUE',
  return: 'RETURN',
  jump: 'JUMP',
  goto: 'GOTO',
  queue: 'QUEUE',
};

export function verdictWords(v: NftVerdict): string {
  return 'chain' in v ? `${v.code} ${v.chain}` : v.code;
}

class NftWalk {
  private readonly stack: { chain: NftChain; next: number }[] = [];
  private chain: NftChain;
  private i = 0;
  private missFrom = -1;
  private evaluations = 0;
  private ctx: NftCtx;
  private draw: { n: number; value: number } | null = null;
  /** The packet as the current rule found it. */
  private before: Packet;
  private readonly tid: string;

  constructor(
    private readonly env: NftEnv,
    private readonly base: NftChain,
    private readonly t: Traversal,
    private readonly row: TableName,
  ) {
    this.chain = base;
    this.tid = tableId(base.table);
    this.ctx = this.makeCtx();
    this.before = t.pkt;
  }

  private makeCtx(): NftCtx {
    const { env, t } = this;
    return {
      pkt: t.pkt,
      family: env.family,
      hook: t.hook,
      inIf: t.inIf,
      outIf: t.outIf,
      ct: t.ct,
      host: env.host,
      now: env.now,
      dynamic: env.dynamic,
      table: this.tid,
      random: (n, label) => {
        const value = n <= 1 ? 0 : env.pick(n, `${label} in ${this.tid} ${this.chain.name}`);
        this.draw = { n, value };
        return value;
      },
    };
  }

  /** The numgen draw the current rule made, if any. */
  private lastDraw(): { n: number; value: number } | null {
    return this.draw;
  }

  private info(handle: number | null, verdict?: string): NftTraceInfo {
    const tb = this.base.table;
    return {
      family: tb.family,
      table: tb.name,
      chain: this.chain.name,
      handle,
      ...(verdict !== undefined ? { verdict } : {}),
    };
  }

  private flushMiss(upTo: number): void {
    if (this.missFrom < 0) return;
    const chain = this.chain.name;
    this.env.tracer.emit({
      type: 'miss',
      packet: this.t.pkt,
      hook: this.t.hook,
      table: this.row,
      chain,
      from: this.missFrom + 1,
      to: upTo,
      nft: this.info(null),
      explain: { key: 'rule.miss', params: { chain, count: upTo - this.missFrom } },
    });
    this.missFrom = -1;
  }

  private emitRule(
    r: NftRule,
    verdict: NftVerdict,
    target: string | null,
    before: Packet,
    probability: number | null,
    explain: { key: string; params: Record<string, string | number> },
  ): void {
    const { t } = this;
    const conn = t.ct.conn;
    const natted =
      target === 'DNAT' || target === 'SNAT' || target === 'MASQUERADE' || target === 'REDIRECT';
    this.env.tracer.emit({
      ...(natted && conn ? { conn: { id: conn.id, orig: conn.orig, reply: conn.reply } } : {}),
      type: 'rule',
      packet: t.pkt,
      before,
      hook: t.hook,
      table: this.row,
      chain: this.chain.name,
      rule: r.index,
      line: r.line,
      text: r.text,
      verdict: VERDICT[verdict.code],
      target,
      probability,
      nft: this.info(r.handle, verdictWords(verdict)),
      explain: {
        key: explain.key,
        params: {
          chain: this.chain.name,
          table: this.tid,
          rule: r.index,
          handle: r.handle,
          ...explain.params,
        },
      },
    });
  }

  private unsupported(what: string, r: NftRule | null): TableVerdict {
    this.env.tracer.emit({
      type: 'unsupported',
      packet: this.t.pkt,
      what,
      line: r?.line ?? null,
      text: r?.text ?? null,
      explain: { key: 'unsupported.match', params: { what, line: r?.line ?? 0 } },
    });
    return { kind: 'unsupported', what, rule: null, where: this.where(r), line: r?.line ?? 0 };
  }

  private where(r: NftRule | null): string {
    return `${this.tid} ${this.chain.name}${r ? ` handle ${r.handle}` : ''}`;
  }

  /** Evaluates a rule's statements in order (nft_do_chain's inner loop over expressions). */
  private evalRule(r: NftRule): RuleOutcome {
    const before = this.t.pkt;
    this.before = before;
    let target: string | null = null;
    let explain: { key: string; params: Record<string, string | number> } | undefined;
    this.draw = null;
    for (const s of r.stmts) {
      switch (s.kind) {
        case 'test':
          if (!s.test(this.ctx)) return { kind: 'miss' };
          break;
        case 'vmap':
          return this.vmap(s);
        case 'verdict':
          return {
            kind: 'verdict',
            verdict: s.verdict,
            target: 'chain' in s.verdict ? s.verdict.chain : target,
            probability: null,
            ...(explain ? { explain } : {}),
          };
        case 'nat':
          return { kind: 'final', v: this.nat(r, s, before) };
        case 'reject':
          this.emitRule(r, { code: 'drop' }, 'REJECT', before, null, {
            key: 'rule.reject',
            params: { with: s.with },
          });
          return {
            kind: 'final',
            v: { kind: 'reject', with: s.with, rule: null, where: this.where(r), line: r.line },
          };
        case 'write': {
          const w = this.writeStmt(s);
          if (!w) return { kind: 'miss' };
          ({ target, explain } = w);
          break;
        }
        case 'counter':
          break;
        case 'log':
          target = s.group ? 'NFLOG' : 'LOG';
          explain = { key: 'rule.log', params: { prefix: s.prefix } };
          this.logLine(s);
          break;
        case 'notrack':
          this.env.notrack(this.t);
          this.ctx = this.makeCtx();
          target = 'NOTRACK';
          explain = { key: 'rule.notrack', params: {} };
          break;
        case 'update':
          this.update(s);
          break;
        case 'unsupported':
          return { kind: 'final', v: this.unsupported(s.what, r) };
      }
    }
    return {
      kind: 'verdict',
      verdict: { code: 'continue' },
      target,
      probability: null,
      ...(explain ? { explain } : {}),
    };
  }

  /** `KEY vmap { ... }`: the verdict of the element the key finds (a numgen draw says so). */
  private vmap(s: Extract<Stmt, { kind: 'vmap' }>): RuleOutcome {
    const vals: Val[] = [];
    for (const k of s.key) {
      const v = k.get(this.ctx);
      if (v === null) return { kind: 'miss' };
      vals.push(v);
    }
    const el = s.set.set ? lookup(s.set.set, vals, this.ctx) : null;
    if (!el || !el.data || !('code' in el.data)) return { kind: 'miss' };
    const v = el.data;
    const draw = this.lastDraw();
    return {
      kind: 'verdict',
      verdict: v,
      target: 'chain' in v ? v.chain : null,
      probability: draw ? 1 / draw.n : null,
      explain: draw
        ? {
            key: 'nft.numgen',
            params: { value: draw.value, count: draw.n, verdict: verdictWords(v) },
          }
        : {
            key: 'nft.vmap',
            params: {
              set: s.set.set?.anonymous ? 'its map' : `@${s.set.name}`,
              verdict: verdictWords(v),
            },
          },
    };
  }

  /** `meta mark set`, `ct mark set`, `meta nftrace set`: the step's target and explanation. */
  private writeStmt(s: Extract<Stmt, { kind: 'write' }>): {
    target: string;
    explain: { key: string; params: Record<string, string | number> };
  } | null {
    const v = s.value(this.ctx);
    if (v === null) return null;
    this.write(s.what, v >>> 0);
    const target = s.what === 'nftrace' ? 'TRACE' : s.what === 'mark' ? 'MARK' : 'CONNMARK';
    const explain =
      s.what === 'nftrace'
        ? { key: 'rule.trace', params: {} }
        : {
            key: s.what === 'mark' ? 'rule.mark' : 'rule.connmark',
            params: { mark: `0x${(v >>> 0).toString(16)}` },
          };
    return { target, explain };
  }

  /** `log prefix ...`: the kernel log line (or NFLOG message) the rule writes. */
  private logLine(s: Extract<Stmt, { kind: 'log' }>): void {
    this.env.tracer.emit({
      type: 'log',
      packet: this.t.pkt,
      prefix: s.prefix,
      via: s.group ? 'NFLOG' : 'LOG',
      explain: { key: 'log.line', params: { prefix: s.prefix } },
    });
  }

  private write(what: 'mark' | 'ctmark' | 'nftrace', v: number): void {
    const t = this.t;
    if (what === 'mark') t.pkt = { ...t.pkt, mark: v };
    else if (what === 'ctmark' && t.ct.conn) t.ct.conn.mark = v;
    this.ctx = this.makeCtx();
  }

  /** `update @set { key }` (nft_dynset.c): adds or refreshes the key with the set's timeout. */
  private update(s: Extract<Stmt, { kind: 'update' }>): void {
    const set = s.set.set;
    if (!set) return;
    const vals: Val[] = [];
    for (const k of s.key) {
      const v = k.get(this.ctx);
      if (v === null) return;
      vals.push(v);
    }
    const id = `${this.tid} ${set.name}`;
    let m = this.env.dynamic.get(id);
    if (!m) this.env.dynamic.set(id, (m = new Map()));
    m.set(keyString(vals), set.timeout > 0 ? this.env.now + set.timeout : Infinity);
  }

  private nat(r: NftRule, s: Extract<Stmt, { kind: 'nat' }>, before: Packet): TableVerdict {
    const t = this.t;
    if (this.env.nat(s.op, t) === 'drop') {
      this.emitRule(r, { code: 'drop' }, s.target, before, null, {
        key: 'rule.nat-failed',
        params: {},
      });
      return { kind: 'drop', rule: null, where: this.where(r) };
    }
    this.ctx = this.makeCtx();
    this.emitRule(r, { code: 'accept' }, s.target, before, null, {
      key: `rule.${s.target.toLowerCase()}`,
      params: { dst: t.pkt.dst, dport: t.pkt.dport, src: t.pkt.src },
    });
    return { kind: 'accept' };
  }

  private policy(): TableVerdict {
    const { t, base } = this;
    const p = base.base?.policy ?? 'accept';
    this.chain = base;
    this.env.tracer.emit({
      type: 'policy',
      packet: t.pkt,
      hook: t.hook,
      table: this.row,
      chain: base.name,
      verdict: p === 'accept' ? 'ACCEPT' : 'DROP',
      nft: this.info(null, p),
      explain: {
        key: p === 'accept' ? 'chain.policy.accept' : 'chain.policy.drop',
        params: { table: this.tid, chain: base.name },
      },
    });
    return p === 'accept'
      ? { kind: 'accept' }
      : { kind: 'drop', rule: null, where: `${this.tid} ${base.name} policy` };
  }

  /** Leaves the current chain without a verdict: back to the caller, or the policy. */
  private pop(emitReturn: boolean): TableVerdict | null {
    const frame = this.stack.pop();
    if (!frame) return this.policy();
    if (emitReturn)
      this.env.tracer.emit({
        type: 'return',
        packet: this.t.pkt,
        hook: this.t.hook,
        table: this.row,
        chain: this.chain.name,
        nft: this.info(null, 'continue'),
        explain: { key: 'chain.return', params: { chain: this.chain.name } },
      });
    this.chain = frame.chain;
    this.i = frame.next;
    return null;
  }

  private limitReached(): TableVerdict | null {
    const over = this.evaluations > WALK_LIMITS.evaluations;
    if (!over && this.env.tracer.events.length <= WALK_LIMITS.events) return null;
    this.flushMiss(Math.min(this.i, this.chain.rules.length));
    const what = over
      ? `a walk of more than ${WALK_LIMITS.evaluations.toLocaleString('en')} rule evaluations in ${this.tid}`
      : `a trace of more than ${WALK_LIMITS.events.toLocaleString('en')} steps`;
    return this.unsupported(
      what,
      this.chain.rules[Math.min(this.i, this.chain.rules.length - 1)] ?? null,
    );
  }

  run(): TableVerdict {
    for (;;) {
      const limit = this.limitReached();
      if (limit) return limit;
      const rules = this.chain.rules;
      if (this.i >= rules.length) {
        this.flushMiss(rules.length);
        // The end of a regular chain returns to the caller (nft_do_chain: NFT_CONTINUE with
        // the jump stack not empty); the end of the base chain, or of a chain it went to by
        // goto, applies the base chain's policy.
        const v = this.pop(this.chain !== this.base);
        if (v) return v;
        continue;
      }
      const r = rules[this.i] as NftRule;
      this.evaluations++;
      const out = this.evalRule(r);
      if (out.kind === 'miss') {
        if (this.missFrom < 0) this.missFrom = this.i;
        this.i++;
        continue;
      }
      this.flushMiss(this.i);
      this.i++;
      if (out.kind === 'final') return out.v;
      const v = out.verdict;
      const explain = out.explain ?? { key: defaultKey(v), params: {} };
      const shownTarget = out.target;
      this.emitRule(r, v, shownTarget, this.before, out.probability, {
        key: explain.key,
        params: { ...explain.params, ...('chain' in v ? { target: v.chain } : {}) },
      });
      switch (v.code) {
        case 'continue':
          continue;
        case 'accept':
          return { kind: 'accept' };
        case 'drop':
          return { kind: 'drop', rule: null, where: this.where(r) };
        case 'queue':
          return this.unsupported('queue (the packet goes to a userspace program)', r);
        case 'return': {
          const back = this.pop(false);
          if (back) return back;
          continue;
        }
        case 'jump':
        case 'goto': {
          const next = this.chain.table.chains.get(v.chain);
          if (!next) return this.unsupported(`a jump to chain ${v.chain}, which does not exist`, r);
          if (v.code === 'jump') this.stack.push({ chain: this.chain, next: this.i });
          this.chain = next;
          this.i = 0;
          continue;
        }
      }
    }
  }
}

function defaultKey(v: NftVerdict): string {
  switch (v.code) {
    case 'accept':
      return 'nft.accept';
    case 'drop':
      return 'rule.drop';
    case 'return':
      return 'rule.return';
    case 'jump':
      return 'rule.jump';
    case 'goto':
      return 'rule.goto';
    default:
      return 'nft.continue';
  }
}

/** Runs base chain `chain` for the traversal. The caller emitted the hook event. */
export function runNftChain(
  env: NftEnv,
  chain: NftChain,
  t: Traversal,
  row: TableName,
): TableVerdict {
  return new NftWalk(env, chain, t, row).run();
}
