/**
 * The engine's trace in the terms a real trace is read in: per rule, chain end and policy event,
 * where it ran and its verdict in nft's words. What the kernel shows nothing for is marked
 * optional (see src/kernel/compare.ts, where the same rules were established on the kernel).
 */
import type { TraceEvent } from '../trace.ts';

export interface SimStep {
  /** The event's `seq`: where the lab moves when the row is picked. */
  readonly seq: number;
  readonly host: string;
  readonly packetId: number;
  readonly family: string;
  readonly table: string;
  readonly chain: string;
  readonly kind: 'rule' | 'return' | 'policy';
  /** 1-based position in its chain (iptables rules). */
  readonly rule: number | null;
  /** nft rule handle (rules of nft tables), as the kernel allocates it. */
  readonly handle: number | null;
  readonly verdict: string;
  readonly text: string;
  /**
   * Why a kernel may show nothing for it, or null: nf_tables (Linux 6.x) traces nothing when a
   * chain runs out of rules; iptables-nft creates only the built-in chains a dump declares;
   * a tracer told to collect some verdicts only (Retis's `--nft-verdicts`) saw no other.
   */
  readonly optional: 'end-of-chain' | 'undeclared-chain' | 'not-collected' | null;
}

type Step = Extract<TraceEvent, { type: 'rule' | 'return' | 'policy' }>;

/** nft's verdict words for an iptables rule (REJECT drops; DNAT, MASQUERADE accept). */
function xtVerdict(e: Extract<TraceEvent, { type: 'rule' }>): string {
  if (e.verdict === 'JUMP' || e.verdict === 'GOTO')
    return `${e.verdict.toLowerCase()} ${e.target ?? ''}`;
  return e.verdict.toLowerCase();
}

function simStep(e: Step, implicit: boolean): SimStep {
  const base = { seq: e.seq, host: e.host, packetId: e.packetId, text: '' };
  const n = e.nft;
  if (n) {
    const where = { family: n.family, table: n.table, chain: n.chain };
    if (e.type === 'rule')
      return {
        ...base,
        ...where,
        kind: 'rule',
        rule: e.rule,
        handle: n.handle,
        verdict: n.verdict ?? 'continue',
        text: e.text,
        optional: null,
      };
    if (e.type === 'return')
      return {
        ...base,
        ...where,
        kind: 'return',
        rule: null,
        handle: null,
        verdict: 'continue',
        optional: 'end-of-chain',
      };
    return {
      ...base,
      ...where,
      kind: 'policy',
      rule: null,
      handle: null,
      verdict: e.verdict.toLowerCase(),
      optional: null,
    };
  }
  const where = {
    family: e.packet.dst.includes(':') ? 'ip6' : 'ip',
    table: e.table,
    chain: e.chain,
    handle: null,
  };
  if (e.type === 'rule')
    return {
      ...base,
      ...where,
      kind: 'rule',
      rule: e.rule,
      verdict: xtVerdict(e),
      text: e.text,
      optional: null,
    };
  if (e.type === 'return')
    return {
      ...base,
      ...where,
      kind: 'return',
      rule: null,
      verdict: 'return',
      optional: 'end-of-chain',
    };
  return {
    ...base,
    ...where,
    kind: 'policy',
    rule: null,
    verdict: e.verdict.toLowerCase(),
    optional: implicit ? 'undeclared-chain' : null,
  };
}

/** The rule, chain-end and policy steps of the run, per `host packetId`, in order. */
export function simSteps(events: readonly TraceEvent[]): Map<string, SimStep[]> {
  const out = new Map<string, SimStep[]>();
  let implicit = false;
  for (const e of events) {
    if (e.type === 'hook') implicit = e.implicit;
    if (e.type !== 'rule' && e.type !== 'return' && e.type !== 'policy') continue;
    const key = `${e.host} ${e.packetId}`;
    let list = out.get(key);
    if (!list) out.set(key, (list = []));
    list.push(simStep(e, implicit));
  }
  return out;
}
