/**
 * The one sentence that answers the user's question, as an i18n key with parameters: who
 * answered, on which node, and which source address they saw (and which rule made it so).
 */
import type { ClusterView, LabResult, RunView } from '../../cluster/types.ts';
import type { Explain } from '../../engine/trace.ts';

export type Sentence = Explain;

/** The SNAT-like rewrite the first packet went through (MASQUERADE on cp-1), if any. */
export function sourceRewrite(run: RunView): { nat: string; host: string } | null {
  for (const e of run.events) {
    if (e.packetId !== 1) break;
    if (
      e.type === 'rule' &&
      (e.target === 'MASQUERADE' || e.target === 'SNAT') &&
      e.before.src !== e.packet.src
    )
      return { nat: e.target, host: e.host };
  }
  return null;
}

export function verdictOf(run: RunView, cluster: ClusterView | null): Sentence {
  const o = run.outcome;
  const hostOf = (name: string) => cluster?.hosts.find((h) => h.name === name);
  switch (o.kind) {
    case 'answered': {
      const h = hostOf(o.host);
      if (h?.kind === 'pod') {
        const nat = sourceRewrite(run);
        return nat
          ? {
              key: 'verdict.answered-pod-nat',
              params: {
                pod: o.host,
                node: h.node ?? '?',
                src: o.srcSeen,
                nat: nat.nat,
                natHost: nat.host,
              },
            }
          : {
              key: 'verdict.answered-pod-real',
              params: { pod: o.host, node: h.node ?? '?', src: o.srcSeen },
            };
      }
      if (h?.kind === 'node') {
        const rewritten = run.events.some(
          (e) =>
            e.packetId === 1 &&
            e.type === 'rule' &&
            (e.target === 'DNAT' || e.target === 'REDIRECT'),
        );
        if (!rewritten)
          return {
            key: 'verdict.answered-host',
            params: { process: o.process, host: o.host, reply: o.reply, src: o.srcSeen },
          };
      }
      return {
        key: 'verdict.answered-other',
        params: { process: o.process, host: o.host, reply: o.reply, src: o.srcSeen },
      };
    }
    case 'delivered':
      return {
        key: 'verdict.delivered',
        params: { process: o.process, host: o.host, src: o.srcSeen },
      };
    case 'refused':
      return { key: 'verdict.refused', params: { host: o.from || o.host, via: o.via } };
    case 'timeout':
      return o.host
        ? { key: 'verdict.timeout', params: { host: o.host, reason: o.reason } }
        : { key: 'verdict.timeout-anon', params: { reason: o.reason } };
    case 'unreachable':
      return { key: 'verdict.unreachable', params: { host: o.host, reason: o.reason } };
    case 'dropped':
      return { key: 'verdict.dropped', params: { host: o.host, reason: o.reason } };
    case 'forwarded':
      return {
        key: 'verdict.forwarded',
        params: { host: o.host, iface: o.iface, nextHop: o.nextHop },
      };
    case 'unsupported':
      return { key: 'verdict.unsupported', params: { host: o.host, what: o.what, line: o.line } };
  }
}

/** Short label of a run for the outcome chips: "answered by nettest-a". */
export function outcomeLabel(run: RunView, cluster: ClusterView | null = null): Sentence {
  const o = run.outcome;
  return {
    key: `outcome.${o.kind}`,
    params: 'host' in o && o.host ? { host: shortHost(o.host, cluster) } : {},
  };
}

/**
 * A pod's generated name cut to its workload and its own suffix (`web…ksp26` for
 * `web-5wpwzq2zt-ksp26`), so several outcome chips fit on the verdict's line.
 */
export function shortHost(name: string, cluster: ClusterView | null): string {
  const h = cluster?.hosts.find((x) => x.name === name);
  if (h?.kind !== 'pod' || !h.workload || !name.startsWith(`${h.workload}-`)) return name;
  const tail = name.slice(name.lastIndexOf('-') + 1);
  return tail && name !== `${h.workload}-${tail}` ? `${h.workload}…${tail}` : name;
}

export function percent(p: number): string {
  return String(Math.round(p * 1000) / 10);
}

/** The colour of an outcome: answered, refused (an answer, but no), or nothing came back. */
export type Tone = 'ok' | 'info' | 'warn' | 'bad';

/**
 * The colour of an outcome. A packet that left through an interface towards a next hop outside
 * the modelled network (a single pasted host forwarding it, a cluster routing it to the internet)
 * is neither success nor failure: the lab cannot see what happens next, so it is `info`.
 */
export function toneOf(kind: RunView['outcome']['kind']): Tone {
  if (kind === 'answered' || kind === 'delivered') return 'ok';
  if (kind === 'forwarded') return 'info';
  return kind === 'refused' ? 'warn' : 'bad';
}

/** A share of the probability for a sentence: never "0" for a computed branch, never "100" for a part. */
function share(p: number): string {
  if (p > 0 && p < 0.0005) return '<0.1';
  if (p < 1 && p > 0.9995) return '>99.9';
  return percent(p);
}

/**
 * When the lab stopped following branches at a limit: what the shown outcomes cover and what was
 * not computed, so the shares read as lower bounds instead of a split that does not add up.
 */
export function partialNote(
  result: Pick<LabResult, 'partial'>,
): { note: Sentence; limit: Sentence } | null {
  const part = result.partial;
  if (!part) return null;
  return {
    note: {
      key: 'verdict.partial',
      params: {
        count: part.notComputed,
        covered: share(part.covered),
        rest: share(1 - part.covered),
      },
    },
    limit: {
      key: `verdict.limit.${part.stoppedBy.limit}`,
      params: { count: part.stoppedBy.count },
    },
  };
}
