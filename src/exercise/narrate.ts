/**
 * What a packet did, told from its trace in one sentence per language: where it was rewritten
 * (DNAT, SNAT/MASQUERADE), what the routing decision then did, where it was dropped or rejected,
 * who reset it, and who answered. Goals use it to say what happened instead of what they wanted.
 */
import type { BuiltCluster } from '../cluster/topology.ts';
import type { I18nText, RunView } from '../cluster/types.ts';
import type { Outcome, TraceEvent } from '../engine/index.ts';

type Ev<T extends TraceEvent['type']> = Extract<TraceEvent, { type: T }>;

const NAT_SOURCE = new Set(['SNAT', 'MASQUERADE']);
const NAT_DEST = new Set(['DNAT', 'REDIRECT']);

/** `pod web-1 on worker-1` / `worker-1 上的 Pod web-1`; `sshd on cp-1`; `cp-1`. */
export function whoText(c: BuiltCluster, host: string, process?: string | null): I18nText {
  const h = c.view.hosts.find((x) => x.name === host);
  if (h?.kind === 'pod')
    return { en: `pod ${host} on ${h.node ?? '?'}`, zh: `${h.node ?? '?'} 上的 Pod ${host}` };
  if (process) return { en: `${process} on ${host}`, zh: `${host} 上的 ${process}` };
  return { en: host, zh: host };
}

/** The rule's comment, or the rule itself without `-A CHAIN`. */
function ruleGist(text: string): string {
  const m = /--comment\s+("([^"]*)"|(\S+))/.exec(text);
  const c = m ? (m[2] ?? m[3] ?? '') : '';
  return c || text.replace(/^-[AI]\s+\S+\s+/, '');
}

/** `raw PREROUTING` and, apart, which rule: `NODEPORT-GUARD rule 2: "comment"`. */
function where(e: Ev<'rule'> | Ev<'policy'>): { hook: string; rule: I18nText } {
  const hook = `${e.table} ${e.hook}`;
  if (e.type === 'policy')
    return {
      hook,
      rule: { en: `${e.chain} policy ${e.verdict}`, zh: `${e.chain} 的默认策略 ${e.verdict}` },
    };
  const g = ruleGist(e.text);
  return {
    hook,
    rule: { en: `${e.chain} rule ${e.rule}: "${g}"`, zh: `${e.chain} 第 ${e.rule} 条规则：“${g}”` },
  };
}

const addr = (ip: string, port: number) => `${ip}:${port}`;

/** The clauses, in the order things happened. */
function clauses(c: BuiltCluster, run: RunView): I18nText[] {
  const ev = run.events;
  const n: Narration = {
    c,
    ev,
    isNode: (h) => c.view.hosts.some((x) => x.name === h && x.kind === 'node'),
    dnatOn: new Set<string>(),
  };
  const resets = strayResets(ev);
  const out: I18nText[] = [];
  ev.forEach((e, i) => {
    if (resets.has(e.packetId)) return;
    const clause = eventClause(n, e, i);
    if (clause) out.push(clause);
  });
  const last = outcomeClause(c, run.outcome, out);
  if (last) out.push(last);
  return out;
}

/** What telling a run keeps: the cluster, the events, and where a DNAT happened. */
interface Narration {
  readonly c: BuiltCluster;
  readonly ev: readonly TraceEvent[];
  readonly isNode: (host: string) => boolean;
  /** `packetId:host` of each DNAT told so far. */
  readonly dnatOn: Set<string>;
}

/**
 * A reset the sender answers a stray reply with is told once, by its `send`; what happens to it
 * afterwards (often: no route back to a pod address) is noise here: those packets' ids.
 */
function strayResets(ev: readonly TraceEvent[]): Set<number> {
  const resets = new Set<number>();
  ev.forEach((e, i) => {
    if (e.type !== 'send' || e.reason !== 'reset') return;
    const next = ev.slice(i + 1).find((x) => x.packetId !== e.packetId);
    if (next) resets.add(next.packetId);
  });
  return resets;
}

/** The clause one event adds, if any: a NAT, a routing decision, a drop or reject, a reset. */
function eventClause(n: Narration, e: TraceEvent, i: number): I18nText | null {
  const reply = e.packetId !== 1;
  if (e.type === 'rule' && e.target && NAT_DEST.has(e.target) && e.before.dst !== e.packet.dst) {
    n.dnatOn.add(`${e.packetId}:${e.host}`);
    const a = addr(e.before.dst, e.before.dport);
    const b = addr(e.packet.dst, e.packet.dport);
    return {
      en: `${e.host} DNATed it in ${e.table} ${e.hook} (${e.chain}): ${a} → ${b}`,
      zh: `${e.host} 在 ${e.table} ${e.hook}（${e.chain}）里做了 DNAT：${a} → ${b}`,
    };
  }
  if (e.type === 'rule' && e.target && NAT_SOURCE.has(e.target) && e.before.src !== e.packet.src)
    return e.target === 'MASQUERADE'
      ? {
          en: `${e.host} masqueraded it to ${e.packet.src} (${e.table} ${e.hook})`,
          zh: `${e.host} 在 ${e.table} ${e.hook} 做了 MASQUERADE，源地址换成 ${e.packet.src}`,
        }
      : {
          en: `${e.host} rewrote its source to ${e.packet.src} (SNAT in ${e.table} ${e.hook})`,
          zh: `${e.host} 在 ${e.table} ${e.hook} 做了 SNAT，源地址换成 ${e.packet.src}`,
        };
  if (e.type === 'route') return !reply && n.isNode(e.host) ? routeClause(n, e) : null;
  if (e.type === 'rule' && e.target === 'REJECT') {
    const w = where(e);
    return {
      en: `${e.host} rejected ${reply ? 'the reply' : 'it'} in ${w.hook} (${w.rule.en})`,
      zh: `${e.host} 在 ${w.hook} 拒绝（REJECT）了${reply ? '回包' : '它'}（${w.rule.zh}）`,
    };
  }
  if ((e.type === 'rule' || e.type === 'policy') && e.verdict === 'DROP') {
    const w = where(e);
    return {
      en: `${e.host} dropped ${reply ? 'the reply' : 'it'} in ${w.hook} (${w.rule.en})`,
      zh: `${reply ? '回包' : '它'}在 ${e.host} 的 ${w.hook} 被丢弃（${w.rule.zh}）`,
    };
  }
  const prev = n.ev[i - 1]?.type;
  if (e.type === 'drop' && !(prev === 'rule' || prev === 'policy'))
    return {
      en: `${e.host} dropped ${reply ? 'the reply' : 'it'} (${e.reason})`,
      zh: `${reply ? '回包' : '它'}在 ${e.host} 被丢弃（${e.reason}）`,
    };
  if (e.type === 'send' && e.reason === 'reset') return resetClause(n.c, e);
  return null;
}

/** A node's routing decision for the probe's packet: forwarded after a DNAT, or delivered. */
function routeClause(n: Narration, e: Ev<'route'>): I18nText | null {
  const after = n.dnatOn.has(`${e.packetId}:${e.host}`);
  if (e.decision === 'forward' && after)
    return {
      en: 'so the routing decision forwarded it (FORWARD), never to INPUT',
      zh: '于是路由判定把它转发出去（FORWARD），不会进入 INPUT',
    };
  if (e.decision !== 'local') return null;
  return after
    ? {
        en: `and ${e.host} delivered it locally (INPUT)`,
        zh: `${e.host} 随后把它交给本机（INPUT）`,
      }
    : {
        en: `${e.host} kept the destination ${addr(e.packet.dst, e.packet.dport)} and delivered it locally (INPUT)`,
        zh: `${e.host} 没有改写目标 ${addr(e.packet.dst, e.packet.dport)}，直接交给本机（INPUT）`,
      };
}

/** Why the kernel sent a reset: an answer from an address never connected to, or no listener. */
function resetClause(c: BuiltCluster, e: Ev<'send'>): I18nText | null {
  const p = e.packet;
  if (e.explain.key === 'send.rst-no-connection')
    return {
      en: `the answer reached ${e.host} from ${addr(p.dst, p.dport)}, an address it never connected to, so ${e.host} reset it`,
      zh: `应答从 ${addr(p.dst, p.dport)} 直接回到 ${e.host}，这不是它连接的地址，于是 ${e.host} 回了 RST`,
    };
  if (e.explain.key !== 'send.rst-no-listener') return null;
  const who = whoText(c, e.host);
  return {
    en: `nothing listens on ${addr(p.src, p.sport)} in ${who.en}, so its kernel answered with a reset`,
    zh: `${who.zh} 里没有进程监听 ${addr(p.src, p.sport)}，它的内核回了 RST`,
  };
}

/** How the run ended, unless a clause already told it (a timeout after a drop or reset). */
function outcomeClause(c: BuiltCluster, o: Outcome, told: readonly I18nText[]): I18nText | null {
  if (o.kind === 'answered') {
    const kind = c.view.hosts.find((h) => h.name === o.host)?.kind;
    const who = whoText(c, o.host, kind === 'pod' ? null : o.process);
    return {
      en: `${who.en} answered (it saw source ${o.srcSeen})`,
      zh: `最后由 ${who.zh} 应答（它看到的源地址是 ${o.srcSeen}）`,
    };
  }
  if (o.kind === 'unreachable')
    return {
      en: `${o.host} answered "unreachable" (${o.reason})`,
      zh: `${o.host} 回了不可达（${o.reason}）`,
    };
  if (o.kind === 'unsupported')
    return {
      en: `the lab cannot decide: ${o.what} (line ${o.line} on ${o.host}) is not supported`,
      zh: `实验无法判断：${o.host} 第 ${o.line} 行的 ${o.what} 不受支持`,
    };
  if (o.kind === 'timeout' && !told.some((x) => /dropped|reset|rejected/.test(x.en)))
    return { en: `no answer came back (${o.reason})`, zh: `一直没有回应（${o.reason}）` };
  return null;
}

function sentence(parts: readonly I18nText[]): I18nText {
  if (!parts.length) return { en: 'Nothing happened.', zh: '什么也没有发生。' };
  return {
    en: `${parts.map((p) => p.en).join('; ')}.`,
    zh: `${parts.map((p) => p.zh).join('；')}。`,
  };
}

/** One run of a probe, told as a sentence. */
export function narrate(c: BuiltCluster, run: RunView): I18nText {
  return sentence(clauses(c, run));
}

/** A run among several (random branches): the sentence, prefixed by its share of connections. */
export function narrateBranch(c: BuiltCluster, run: RunView, branches: number): I18nText {
  const s = narrate(c, run);
  if (branches < 2) return s;
  const pct = `${Math.round(run.probability * 1000) / 10}`;
  return { en: `In ${pct} % of connections: ${s.en}`, zh: `${pct}% 的连接：${s.zh}` };
}
