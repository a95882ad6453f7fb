/**
 * A goal checked against the simulated cluster: every sender × destination pair is probed (every
 * random branch enumerated), and the outcome, the answering side, the source it saw, the split
 * between endpoints and the steps of the trace are compared with what the goal wants. A failing
 * pair says what was wanted and, from the trace, what the packet did instead.
 */
import { addressOf, answeredByMatches, classify } from '../cluster/expect.ts';
import { networkOf, probeFor } from '../cluster/lab.ts';
import { resolveSender } from '../cluster/targets.ts';
import type { BuiltCluster } from '../cluster/topology.ts';
import type { I18nText, RunView } from '../cluster/types.ts';
import { enumerateOutcomes, type Outcome } from '../engine/index.ts';
import { narrateBranch, whoText } from './narrate.ts';
import {
  eventPlace,
  replyPackets,
  stepMatches,
  stepText,
  substitute,
  type PairContext,
} from './steps.ts';
import type { GoalDef, GoalFailure, GoalReport, OutcomeName } from './types.ts';

const many = (v: string | readonly string[]): readonly string[] =>
  typeof v === 'string' ? [v] : v;

/** Split shares may be written to a few digits (0.33 for a third). */
const SPLIT_TOLERANCE = 0.005;

const OUTCOME_TEXT: Record<OutcomeName, I18nText> = {
  answered: { en: 'an answer', zh: '得到应答' },
  refused: { en: 'refused (a reset or an ICMP error)', zh: '被拒绝（RST 或 ICMP 错误）' },
  timeout: { en: 'a timeout (silently dropped)', zh: '超时（被静默丢弃）' },
};

function nodeOf(c: BuiltCluster, host: string | undefined): string | null {
  const h = c.view.hosts.find((x) => x.name === host);
  if (!h) return null;
  return h.kind === 'node' ? h.name : h.kind === 'pod' ? h.node : null;
}

/** The node a destination address belongs to (a node IP, a VIP it holds, one of its pods). */
function nodeOfAddress(c: BuiltCluster, address: string, onlyFrom: string | null): string | null {
  if (onlyFrom) return onlyFrom;
  const h = c.view.hosts.find((x) => x.ips.includes(address));
  if (h) return nodeOf(c, h.name);
  return c.view.vips.find((v) => v.ip === address)?.holder ?? null;
}

function pct(p: number): string {
  return `${Math.round(p * 1000) / 10} %`;
}

function fail(from: string, to: string, why: I18nText, instead: I18nText): GoalFailure {
  return { from, to, why, instead };
}

function answererLabel(c: BuiltCluster, o: Outcome): I18nText {
  if (o.kind !== 'answered') return OUTCOME_TEXT[classify(o) === 'refused' ? 'refused' : 'timeout'];
  const kind = c.view.hosts.find((h) => h.name === o.host)?.kind;
  return whoText(c, o.host, kind === 'pod' ? null : o.process);
}

/** What a pair's check works on: the sender, destination, every run (likeliest first), the refs. */
interface Pair {
  readonly c: BuiltCluster;
  readonly from: string;
  readonly to: string;
  readonly runs: readonly RunView[];
  readonly ctx: PairContext;
  readonly instead: (r: RunView) => I18nText;
}

/** Checks one sender × destination pair; null when the goal holds for it. */
function checkPair(c: BuiltCluster, g: GoalDef, from: string, dest: string): GoalFailure | null {
  const pair = runPair(c, g, from, dest);
  if ('failure' in pair) return pair.failure;
  const e = g.expect ?? {};
  return (e.split ? checkSplit(pair, e.split) : null) ?? checkRuns(pair, e) ?? checkSteps(pair, g);
}

/** Resolves the pair's probe and enumerates its runs, or says why it cannot be sent. */
function runPair(
  c: BuiltCluster,
  g: GoalDef,
  from: string,
  dest: string,
): Pair | { failure: GoalFailure } {
  // A destination may name the sender's node: localhost-nodeport/web@$from-node.
  const sent = resolveSender(c, from);
  const to = substitute(dest, {
    from,
    fromNode: 'ok' in sent ? nodeOf(c, sent.ok.host) : null,
    toNode: null,
  });
  const resolved = probeFor(c, { from, to, ...(g.proto ? { proto: g.proto } : {}) });
  if ('error' in resolved)
    return {
      failure: fail(
        from,
        to,
        { en: `cannot send ${from} → ${to}`, zh: `无法从 ${from} 发往 ${to}` },
        { en: `${resolved.error}.`, zh: `${resolved.error}。` },
      ),
    };
  const net = networkOf(c);
  if ('problems' in net)
    return {
      failure: fail(
        from,
        to,
        { en: 'the cluster cannot be built', zh: '集群无法构建' },
        { en: net.problems, zh: net.problems },
      ),
    };
  const runs: RunView[] = enumerateOutcomes(net, resolved.probe).runs.map((r) => ({
    probability: r.probability,
    outcome: r.outcome,
    events: r.events,
    choices: r.choices,
  }));
  runs.sort((a, b) => b.probability - a.probability);
  const sender = resolved.probe.kind === 'connect' ? resolved.probe.from : resolved.probe.host;
  const ctx: PairContext = {
    from,
    fromNode: nodeOf(c, sender),
    toNode: nodeOfAddress(c, resolved.to.address, to.startsWith('localhost-') ? sender : null),
  };
  return { c, from, to, runs, ctx, instead: (r) => narrateBranch(c, r, runs.length) };
}

type Expect = NonNullable<GoalDef['expect']>;

/** `split`: each answerer's share of the connections, within SPLIT_TOLERANCE. */
function checkSplit(
  { c, from, to, runs, ctx }: Pair,
  split: NonNullable<Expect['split']>,
): GoalFailure | null {
  const want = Object.entries(split).map(([ref, p]) => [substitute(ref, ctx), p] as const);
  const bad = want.filter(
    ([ref, p]) =>
      Math.abs(
        runs
          .filter((r) => answeredByMatches(c, r.outcome, ref))
          .reduce((a, r) => a + r.probability, 0) - p,
      ) > SPLIT_TOLERANCE,
  );
  if (bad.length) {
    const got = new Map<string, { label: I18nText; p: number }>();
    for (const r of runs) {
      const label = answererLabel(c, r.outcome);
      const g0 = got.get(label.en);
      got.set(label.en, { label, p: (g0?.p ?? 0) + r.probability });
    }
    const list = [...got.values()];
    return fail(
      from,
      to,
      {
        en: `expected the connections split ${want.map(([r, p]) => `${r} ${pct(p)}`).join(', ')}`,
        zh: `期望连接这样分配：${want.map(([r, p]) => `${r} ${pct(p)}`).join('，')}`,
      },
      {
        en: `The connections went: ${list.map((x) => `${x.label.en} ${pct(x.p)}`).join(', ')}.`,
        zh: `实际的分配：${list.map((x) => `${x.label.zh} ${pct(x.p)}`).join('，')}。`,
      },
    );
  }
  return null;
}

/** Every run's outcome, answerer, source seen and reply, as `expect` says. */
function checkRuns({ c, from, to, runs, ctx, instead }: Pair, e: Expect): GoalFailure | null {
  const wantOutcome: readonly OutcomeName[] | null = e.outcome
    ? (many(e.outcome as string | readonly string[]) as readonly OutcomeName[])
    : e.answeredBy || e.split || e.srcSeen || e.reply
      ? ['answered']
      : null;
  for (const r of runs) {
    const o = r.outcome;
    if (wantOutcome && !wantOutcome.includes(classify(o) as OutcomeName))
      return fail(
        from,
        to,
        {
          en: `expected ${wantOutcome.map((w) => OUTCOME_TEXT[w].en).join(' or ')}`,
          zh: `期望${wantOutcome.map((w) => OUTCOME_TEXT[w].zh).join('或')}`,
        },
        instead(r),
      );
    if (e.answeredBy) {
      const ref = substitute(e.answeredBy, ctx);
      if (!answeredByMatches(c, o, ref))
        return fail(
          from,
          to,
          { en: `expected an answer from ${ref}`, zh: `期望由 ${ref} 应答` },
          instead(r),
        );
    }
    if (e.srcSeen && o.kind === 'answered') {
      const ref = substitute(e.srcSeen, ctx);
      const addr = addressOf(c, ref);
      if (addr !== o.srcSeen)
        return fail(
          from,
          to,
          {
            en: `expected the answering side to see source ${ref}${addr && addr !== ref ? ` (${addr})` : ''}`,
            zh: `期望应答方看到的源地址是 ${ref}${addr && addr !== ref ? `（${addr}）` : ''}`,
          },
          instead(r),
        );
    }
    if (e.reply && o.kind === 'answered' && !o.reply.startsWith(e.reply))
      return fail(
        from,
        to,
        { en: `expected an answer starting "${e.reply}"`, zh: `期望应答以 “${e.reply}” 开头` },
        {
          en: `${instead(r).en} It said "${o.reply}".`,
          zh: `${instead(r).zh}应答内容是 “${o.reply}”。`,
        },
      );
  }

  return null;
}

/** `passes` and `never`: steps every run must meet, and steps no run may meet. */
function checkSteps({ from, to, runs, ctx, instead }: Pair, g: GoalDef): GoalFailure | null {
  for (const s of g.passes ?? [])
    for (const r of runs) {
      const replies = replyPackets(r.events);
      if (!r.events.some((ev) => stepMatches(s, ev, ctx, replies))) {
        const t = stepText(s, ctx);
        return fail(
          from,
          to,
          { en: `expected ${t.en} on the way`, zh: `期望途中经过 ${t.zh}` },
          instead(r),
        );
      }
    }
  for (const s of g.never ?? [])
    for (const r of runs) {
      const replies = replyPackets(r.events);
      const hit = r.events.find((ev) => stepMatches(s, ev, ctx, replies));
      if (hit) {
        const t = stepText(s, ctx);
        const at = eventPlace(hit);
        return fail(
          from,
          to,
          {
            en: `expected no ${t.en.replace(/^a /, '')}, but it met ${at.en}`,
            zh: `期望途中没有 ${t.zh}，但它经过了 ${at.zh}`,
          },
          instead(r),
        );
      }
    }
  return null;
}

/** Checks a goal on every sender × destination pair. */
export function evaluateGoal(c: BuiltCluster, g: GoalDef): GoalReport {
  const failures: GoalFailure[] = [];
  let pairs = 0;
  for (const from of many(g.from))
    for (const to of many(g.to)) {
      pairs++;
      const f = checkPair(c, g, from, to);
      if (f) failures.push(f);
    }
  return { id: g.id, text: g.text, pass: failures.length === 0, pairs, failures };
}
