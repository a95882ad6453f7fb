/**
 * Trace steps a goal looks for ("dropped in raw PREROUTING on core-1", "a DNAT on the node the
 * client sent to", "no MASQUERADE"): matching against trace events, and the words for them.
 */
import type { I18nText } from '../cluster/types.ts';
import type { TraceEvent } from '../engine/index.ts';
import type { StepMatch } from './types.ts';

const list = <T>(v: T | readonly T[] | undefined): readonly T[] | null =>
  v === undefined ? null : Array.isArray(v) ? (v as readonly T[]) : [v as T];

/** Placeholders resolved for one sender × destination pair. */
export interface PairContext {
  readonly from: string;
  readonly fromNode: string | null;
  readonly toNode: string | null;
}

export function substitute(text: string, ctx: PairContext): string {
  return text
    .replace(/\$from-node/g, ctx.fromNode ?? '(no node)')
    .replace(/\$to-node/g, ctx.toNode ?? '(no node)')
    .replace(/\$from/g, ctx.from);
}

/** Which packets of a run are replies to the probe (sent by the answering side). */
export function replyPackets(events: readonly TraceEvent[]): ReadonlySet<number> {
  const out = new Set<number>();
  events.forEach((e, i) => {
    if (e.type !== 'send' || e.reason !== 'reply') return;
    const next = events.slice(i + 1).find((x) => x.packetId !== e.packetId);
    if (next) out.add(next.packetId);
  });
  return out;
}

function chainMatches(pattern: string, chain: string): boolean {
  return pattern.endsWith('*') ? chain.startsWith(pattern.slice(0, -1)) : chain === pattern;
}

/** Does this event match the step (all given fields)? */
export function stepMatches(
  s: StepMatch,
  e: TraceEvent,
  ctx: PairContext,
  replies: ReadonlySet<number>,
): boolean {
  const packet = s.packet ?? 'any';
  if (packet === 'request' && e.packetId !== 1) return false;
  if (packet === 'reply' && !replies.has(e.packetId)) return false;
  const hosts = list(s.host)?.map((h) => substitute(h, ctx));
  if (hosts && !hosts.includes(e.host)) return false;
  const ruleLevel = s.rule !== undefined || s.target !== undefined;
  const chainLevel = s.chain !== undefined || s.verdict !== undefined;
  const hookLevel = s.hook !== undefined || s.table !== undefined;
  if (!ruleLevel && !chainLevel && !hookLevel) return true;
  // A rule that did not match (`miss`) is passed through, not taken: it counts for a chain only.
  const allowed = ruleLevel
    ? ['rule']
    : s.verdict !== undefined
      ? ['rule', 'policy']
      : chainLevel
        ? ['rule', 'policy', 'return', 'miss']
        : ['hook', 'rule', 'policy', 'return', 'miss'];
  if (!allowed.includes(e.type)) return false;
  const ev = e as Extract<TraceEvent, { type: 'rule' | 'policy' | 'return' | 'miss' | 'hook' }>;
  const hooks = list(s.hook);
  if (hooks && !hooks.includes(ev.hook)) return false;
  const tables = list(s.table);
  if (tables && !tables.includes(ev.table)) return false;
  if (s.chain !== undefined && !('chain' in ev && chainMatches(s.chain, ev.chain))) return false;
  if (s.verdict !== undefined) {
    const verdict = ev.type === 'rule' || ev.type === 'policy' ? ev.verdict : null;
    if (!verdict || !(list(s.verdict) ?? []).includes(verdict)) return false;
  }
  if (ev.type === 'rule') {
    if (s.rule !== undefined && !ev.text.includes(s.rule)) return false;
    const targets = list(s.target);
    if (targets && !targets.includes(ev.target ?? ev.verdict)) return false;
  }
  return true;
}

/** Where an event is, for "but it did: …". */
export function eventPlace(e: TraceEvent): I18nText {
  if (e.type === 'rule')
    return {
      en: `${e.table}:${e.chain} rule ${e.rule} (${e.target ?? e.verdict}) on ${e.host}`,
      zh: `${e.host} 上 ${e.table}:${e.chain} 的第 ${e.rule} 条规则（${e.target ?? e.verdict}）`,
    };
  if (e.type === 'policy')
    return {
      en: `${e.table}:${e.chain} policy ${e.verdict} on ${e.host}`,
      zh: `${e.host} 上 ${e.table}:${e.chain} 的默认策略 ${e.verdict}`,
    };
  if ('hook' in e && 'table' in e)
    return { en: `${e.table} ${e.hook} on ${e.host}`, zh: `${e.host} 上的 ${e.table} ${e.hook}` };
  return { en: e.host, zh: e.host };
}

/** "a DROP in raw PREROUTING (chain NODEPORT-GUARD) on core-1" in both languages. */
export function stepText(s: StepMatch, ctx: PairContext): I18nText {
  const join = (v: readonly string[] | null, sep: string) => (v ? v.join(sep) : null);
  const action = join(list(s.target), ' / ') ?? join(list(s.verdict), ' / ');
  const what = action ?? (s.rule !== undefined ? 'rule' : null);
  const hook = [join(list(s.table), '/'), join(list(s.hook), '/')].filter(Boolean).join(' ');
  const hosts = join(list(s.host)?.map((h) => substitute(h, ctx)) ?? null, ' / ');
  const pkt = s.packet === 'reply' || s.packet === 'request' ? s.packet : null;
  const en = [
    what ? `a ${what}` : hook || s.chain ? '' : `host ${hosts ?? '?'}`,
    s.rule === undefined ? '' : action ? `(rule containing "${s.rule}")` : `containing "${s.rule}"`,
    hook ? `${what ? 'in ' : ''}${hook}` : '',
    s.chain ? `${what || hook ? 'in ' : ''}chain ${s.chain}` : '',
    hosts && (what || hook || s.chain) ? `on ${hosts}` : '',
    pkt ? `(the ${pkt} packet)` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const place = [
    hosts ? `${hosts} 上` : '',
    hook,
    s.chain ? `链 ${s.chain}` : '',
    s.rule !== undefined ? `包含“${s.rule}”的规则` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const zhBase = what
    ? place
      ? `${place}${place.endsWith('上') ? '' : ' '}的 ${what}`
      : what
    : hook || s.chain
      ? place
      : `主机 ${hosts ?? '?'}`;
  return { en, zh: `${zhBase}${pkt ? (pkt === 'reply' ? '（回包）' : '（请求包）') : ''}` };
}
