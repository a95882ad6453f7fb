/** Runs a scenario's probes and compares each with its expectation (the table `hookpath run` prints). */
import { enumerateOutcomes, limitText, type Enumeration, type Outcome } from '../engine/index.ts';
import { networkOf, probeFor } from './lab.ts';
import type { ProbeDef, ProbeExpect } from './scenario.ts';
import type { BuiltCluster } from './topology.ts';
import type { RunView } from './types.ts';

export interface ProbeCheck {
  readonly probe: ProbeDef;
  readonly pass: boolean;
  readonly expected: string;
  readonly got: string;
  /** What differs, one line per field. */
  readonly diff: readonly string[];
  readonly runs: readonly RunView[];
  readonly address: string | null;
}

export type OutcomeClass = 'answered' | 'refused' | 'timeout' | 'unsupported';

export function classify(o: Outcome): OutcomeClass {
  switch (o.kind) {
    case 'answered':
    case 'delivered':
      return 'answered';
    case 'refused':
    case 'unreachable':
      return 'refused';
    case 'unsupported':
      return 'unsupported';
    default:
      return 'timeout';
  }
}

/** `NAME@NODE` -> [NAME, NODE]; a plain `NAME` -> [NAME, null]. */
function splitNode(name: string): [string, string | null] {
  const at = name.lastIndexOf('@');
  return at > 0 ? [name.slice(0, at), name.slice(at + 1)] : [name, null];
}

/** A pod host named `name` or owned by workload `name`, on `node` when one is given. */
export function podMatches(
  h: { kind: string; name: string; workload: string | null; node: string | null },
  ref: string,
): boolean {
  const [name, node] = splitNode(ref);
  return (
    h.kind === 'pod' &&
    (h.name === name || h.workload === name) &&
    (node === null || h.node === node)
  );
}

/**
 * Does the answering host/process match `pod/NAME`, `pod/NAME@NODE` (the pod of a workload on
 * that node, e.g. a DaemonSet's), `node/NAME[/PROCESS]`, `client/NAME`?
 */
export function answeredByMatches(c: BuiltCluster, o: Outcome, ref: string): boolean {
  if (o.kind !== 'answered') return false;
  const [kind, name, proc] = ref.split('/');
  const host = c.view.hosts.find((h) => h.name === o.host);
  if (!host || !name) return false;
  if (kind === 'pod') return podMatches(host, name);
  if (kind === 'node' || kind === 'client')
    return host.name === name && (proc === undefined || o.process === proc);
  return false;
}

/** `client/laptop` -> its address; `pod/NAME[@NODE]` -> the pod's; plain addresses stay. */
export function addressOf(c: BuiltCluster, ref: string): string | null {
  const [kind, name] = ref.split('/');
  if (!name) return ref;
  if (kind === 'pod') return c.view.hosts.find((x) => podMatches(x, name))?.ips[0] ?? null;
  return c.view.hosts.find((x) => x.name === name)?.ips[0] ?? null;
}

export function describeOutcome(c: BuiltCluster, o: Outcome): string {
  switch (o.kind) {
    case 'answered': {
      const h = c.view.hosts.find((x) => x.name === o.host);
      const who =
        h?.kind === 'pod' ? `pod/${o.host}` : `${h?.kind ?? 'host'}/${o.host}/${o.process}`;
      return `answered by ${who} (src seen ${o.srcSeen})`;
    }
    case 'refused':
      return `refused (${o.via} from ${o.from})`;
    case 'unreachable':
      return `refused (${o.reason})`;
    case 'timeout':
      return `timeout (${o.reason})`;
    case 'forwarded':
      return `timeout (left the cluster through ${o.host}/${o.iface})`;
    case 'dropped':
      return `timeout (${o.reason})`;
    case 'delivered':
      return `answered by ${o.host}/${o.process}`;
    case 'unsupported':
      return `unsupported: ${o.what}`;
  }
}

/** The expectation in words: `answered by pod/web, src seen node/core-1`. */
export function expectText(e: ProbeExpect): string {
  const parts: string[] = [];
  if (e.split)
    parts.push(
      Object.entries(e.split)
        .map(([k, p]) => `${k} ${(p * 100).toFixed(1)}%`)
        .join(', '),
    );
  else if (e.answeredBy) parts.push(`answered by ${e.answeredBy}`);
  else if (e.outcome) parts.push(e.outcome);
  if (e.srcSeen) parts.push(`src seen ${e.srcSeen}`);
  if (e.reply) parts.push(`reply "${e.reply}"`);
  return parts.join(', ');
}

/**
 * How one outcome differs from a probe's expectation (outcome class, answering host, source seen,
 * reply), one line per field; split shares are checked over all runs by checkProbe. Also used
 * for the real kernel's answer (src/kernel).
 */
export function outcomeDiff(c: BuiltCluster, e: ProbeExpect, o: Outcome, where = ''): string[] {
  const wantOutcome =
    e.outcome ?? (e.answeredBy || e.split || e.srcSeen || e.reply ? 'answered' : undefined);
  if (wantOutcome && classify(o) !== wantOutcome)
    return [`outcome: expected ${wantOutcome}, got ${describeOutcome(c, o)}${where}`];
  const diff: string[] = [];
  if (e.answeredBy && !answeredByMatches(c, o, e.answeredBy))
    diff.push(`answered by: expected ${e.answeredBy}, got ${describeOutcome(c, o)}${where}`);
  if (e.srcSeen && o.kind === 'answered') {
    const want = addressOf(c, e.srcSeen);
    if (want !== o.srcSeen)
      diff.push(
        `src seen: expected ${e.srcSeen}${want && want !== e.srcSeen ? ` (${want})` : ''}, got ${o.srcSeen}${where}`,
      );
  }
  if (e.reply && o.kind === 'answered' && !o.reply.startsWith(e.reply))
    diff.push(`reply: expected "${e.reply}", got "${o.reply}"${where}`);
  return diff;
}

export function checkProbe(c: BuiltCluster, probe: ProbeDef): ProbeCheck {
  const expected = expectText(probe.expect);
  const resolved = probeFor(c, {
    from: probe.from,
    to: probe.to,
    ...(probe.proto ? { proto: probe.proto } : {}),
  });
  if ('error' in resolved)
    return {
      probe,
      pass: false,
      expected,
      got: `cannot run: ${resolved.error}`,
      diff: [resolved.error],
      runs: [],
      address: null,
    };
  const net = networkOf(c);
  if ('problems' in net)
    return {
      probe,
      pass: false,
      expected,
      got: `cannot build the network: ${net.problems}`,
      diff: [net.problems],
      runs: [],
      address: null,
    };
  const en = enumerateOutcomes(net, resolved.probe);
  const runs: RunView[] = en.runs.map((r) => ({
    probability: r.probability,
    outcome: r.outcome,
    events: r.events,
    choices: r.choices,
  }));
  const { got, diff } = judgeRuns(c, probe.expect, runs, en);
  return {
    probe,
    pass: diff.length === 0,
    expected,
    got,
    diff,
    runs,
    address: `${resolved.to.address}:${resolved.to.port}`,
  };
}

/**
 * An expectation against the runs of one enumeration: the outcome in words (`got`) and what
 * differs, one line per field (empty when it holds). Shared by `hookpath run` and the matrix.
 */
export function judgeRuns(
  c: BuiltCluster,
  e: ProbeExpect,
  runs: readonly RunView[],
  en: Pick<Enumeration, 'truncated' | 'covered' | 'stoppedBy'>,
): { got: string; diff: string[] } {
  const diff: string[] = [];
  const groups = new Map<string, number>();
  for (const r of runs) {
    const k = describeOutcome(c, r.outcome);
    groups.set(k, (groups.get(k) ?? 0) + r.probability);
  }
  const got =
    groups.size === 1
      ? ([...groups.keys()][0] ?? '')
      : [...groups].map(([k, p]) => `${k} ${(p * 100).toFixed(1)}%`).join('; ');
  if (e.split) {
    for (const [ref, p] of Object.entries(e.split)) {
      const actual = runs
        .filter((r) => answeredByMatches(c, r.outcome, ref))
        .reduce((a, r) => a + r.probability, 0);
      if (Math.abs(actual - p) > 1e-6)
        diff.push(`${ref}: expected ${(p * 100).toFixed(1)}%, got ${(actual * 100).toFixed(1)}%`);
    }
  }
  for (const r of runs) {
    const where = runs.length > 1 ? ` (branch p=${r.probability.toFixed(3)})` : '';
    diff.push(...outcomeDiff(c, e, r.outcome, where));
  }
  // A partial enumeration cannot confirm an expectation: say so rather than pass on a part.
  if (en.truncated)
    diff.push(
      `not every branch was computed (the engine stopped at its limit of ${limitText(en.stoppedBy ?? { limit: 'branches', count: runs.length })}): the ${runs.length} computed cover ${(en.covered * 100).toFixed(1)}% of the probability`,
    );
  return { got, diff: [...new Set(diff)] };
}
