/**
 * The probe matrix (issue 14, the seeds' verification matrix, DOMAIN.md §4): every sender of a
 * scenario variant against every address its Services expose, each cell computed by the engine
 * exactly as one probe is (every random branch enumerated, within the engine's bounds), with the
 * scenario's stated expectation for that pair when it has one.
 *
 * Two steps, so the lab's worker can compute it a few cells at a time and stay responsive:
 * `openMatrix` lays out the rows and columns (cheap), `cell(i)` computes one cell.
 */
import {
  enumerateOutcomes,
  type Diagnostic,
  type Enumeration,
  type Outcome,
} from '../engine/index.ts';
import { classify, describeOutcome, expectText, judgeRuns, type OutcomeClass } from './expect.ts';
import { clusterOf, networkOf, probeFor, loadCached } from './lab.ts';
import type { ProbeDef } from './scenario.ts';
import type { BuiltCluster } from './topology.ts';
import type { HostKind, RunView } from './types.ts';
import { destKey, layoutOf } from './matrix-layout.ts';
import { senderKey } from './matrix-senders.ts';
import {
  MATRIX_LIMITS,
  type MatrixBranch,
  type MatrixCell,
  type MatrixInput,
  type MatrixLayout,
  type MatrixOpen,
  type MatrixResult,
} from './matrix-types.ts';

export * from './matrix-types.ts';

/** `pod/web-6c8f-1` for a pod, `node/cp-1/sshd` for a host's process. */
function responderOf(c: BuiltCluster, o: Outcome): string | null {
  if (o.kind !== 'answered' && o.kind !== 'delivered') return null;
  const h = c.view.hosts.find((x) => x.name === o.host);
  if (h?.kind === 'pod') return `pod/${o.host}`;
  return `${h?.kind ?? 'node'}/${o.host}/${o.process}`;
}

/** Who owns an address: `node/core-1`, `pod/pod-a`, `client/external`. */
function ownerIndex(c: BuiltCluster): Map<string, string> {
  const m = new Map<string, string>();
  for (const h of c.view.hosts)
    for (const ip of h.ips) if (!m.has(ip)) m.set(ip, `${h.kind satisfies HostKind}/${h.name}`);
  for (const v of c.spec.vips ?? []) if (!m.has(v.ip)) m.set(v.ip, 'vip');
  return m;
}

/** `pod/web (2 pods)` for the pods of a workload that answered; other responders as they are. */
function answeredByOf(c: BuiltCluster, branches: readonly MatrixBranch[]): string | null {
  const groups = new Map<string, Set<string>>();
  for (const b of branches) {
    if (!b.responder) continue;
    const h = b.responder.startsWith('pod/')
      ? c.view.hosts.find((x) => x.name === b.responder?.slice(4))
      : undefined;
    const g = h?.workload ? `pod/${h.workload}` : b.responder;
    (groups.get(g) ?? groups.set(g, new Set()).get(g))?.add(b.responder);
  }
  if (!groups.size) return null;
  return [...groups].map(([g, set]) => (set.size > 1 ? `${g} (${set.size} pods)` : g)).join(', ');
}

function branchesOf(c: BuiltCluster, runs: readonly RunView[], owners: Map<string, string>) {
  const groups = new Map<string, MatrixBranch>();
  for (const r of runs) {
    const o = r.outcome;
    const srcSeen = o.kind === 'answered' || o.kind === 'delivered' ? o.srcSeen : null;
    const b: MatrixBranch = {
      share: r.probability,
      outcome: classify(o),
      responder: responderOf(c, o),
      srcSeen,
      srcSeenAs: srcSeen ? (owners.get(srcSeen) ?? null) : null,
      detail: describeOutcome(c, o),
    };
    const k = `${b.outcome}|${b.responder}|${b.srcSeen}|${b.detail}`;
    const had = groups.get(k);
    groups.set(k, had ? { ...had, share: had.share + b.share } : b);
  }
  return [...groups.values()].sort((a, b) => b.share - a.share);
}

const join = (xs: readonly (string | null)[]): string | null => {
  const u = [...new Set(xs.filter((x): x is string => x !== null))];
  return u.length ? u.join(', ') : null;
};

function computeCell(
  c: BuiltCluster,
  layout: MatrixLayout,
  byKey: Map<string, ProbeDef[]>,
  owners: Map<string, string>,
  i: number,
): MatrixCell {
  const pair = layout.pairs[i];
  if (!pair) throw new RangeError(`no cell ${i}`);
  const base = {
    row: pair.row,
    col: pair.col,
    from: pair.from,
    to: pair.to,
    proto: pair.proto,
    responder: null,
    answeredBy: null,
    srcSeen: null,
    srcSeenAs: null,
    branches: [],
    partial: null,
  };
  const resolved = probeFor(c, { from: pair.from, to: pair.to, proto: pair.proto });
  if ('error' in resolved)
    return {
      ...base,
      address: null,
      outcome: 'error',
      expected: null,
      matches: null,
      diff: [],
      probes: [],
      error: resolved.error,
    };
  const address = `${resolved.to.address}:${resolved.to.port}`;
  const probes =
    byKey.get(
      `${senderKey(c, pair.from)}>${destKey(resolved.to.address, resolved.to.port, resolved.to.proto)}`,
    ) ?? [];
  const net = networkOf(c);
  if ('problems' in net)
    return {
      ...base,
      address,
      outcome: 'error',
      expected: null,
      matches: null,
      diff: [],
      probes: [],
      error: net.problems,
    };
  const en: Enumeration = enumerateOutcomes(net, resolved.probe);
  const runs: RunView[] = en.runs.map((r) => ({
    probability: r.probability,
    outcome: r.outcome,
    events: r.events,
    choices: r.choices,
  }));
  const branches = branchesOf(c, runs, owners);
  const classes = new Set(branches.map((b) => b.outcome));
  const diff = probes.flatMap((p) => judgeRuns(c, p.expect, runs, en).diff);
  return {
    ...base,
    address,
    outcome: classes.size === 1 ? ([...classes][0] as OutcomeClass) : 'split',
    responder: join(branches.map((b) => b.responder)),
    answeredBy: answeredByOf(c, branches),
    srcSeen: join(branches.map((b) => b.srcSeen)),
    srcSeenAs: join(branches.map((b) => b.srcSeenAs)),
    branches,
    expected: probes.length
      ? [...new Set(probes.map((p) => expectText(p.expect)))].join('; ')
      : null,
    matches: probes.length ? diff.length === 0 : null,
    diff: [...new Set(diff)],
    probes: probes.map((p) => p.name ?? `${p.from} -> ${p.to}`),
    partial: en.truncated ? { covered: en.covered, notComputed: en.notComputed } : null,
  };
}

/** Lays out the matrix of a scenario variant; its cells are computed one by one with `cell`. */
export function openMatrix(input: MatrixInput): MatrixOpen {
  const read = loadCached(input.scenario, input.validate !== false);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const { diagnostics } = read;
  const built = clusterOf(read.value, input.variant, input.manifests, input.mode);
  const all = [...diagnostics, ...built.diagnostics];
  const c = built.cluster;
  if (!c || all.some((d) => d.severity === 'error')) return { ok: false, diagnostics: all };
  return openClusterMatrix(c, built.probes, all, input.maxCells);
}

/** The matrix of a built cluster and its variant's probes (the CLI builds the cluster itself). */
export function openClusterMatrix(
  c: BuiltCluster,
  probes: readonly ProbeDef[],
  diagnostics: readonly Diagnostic[] = [],
  maxCells: number = MATRIX_LIMITS.cells,
): MatrixOpen & { ok: true } {
  const layout = layoutOf(c, probes, maxCells);
  const byKey = new Map<string, ProbeDef[]>();
  for (const p of probes) {
    const r = probeFor(c, { from: p.from, to: p.to, ...(p.proto ? { proto: p.proto } : {}) });
    if ('error' in r) continue;
    const k = `${senderKey(c, p.from)}>${destKey(r.to.address, r.to.port, r.to.proto)}`;
    byKey.set(k, [...(byKey.get(k) ?? []), p]);
  }
  const owners = ownerIndex(c);
  return {
    ok: true,
    diagnostics,
    layout,
    cell: (i) => computeCell(c, layout, byKey, owners, i),
  };
}

/** The whole matrix at once (the CLI, tests). */
export function computeMatrix(input: MatrixInput): MatrixResult {
  const m = openMatrix(input);
  if (!m.ok) return { ok: false, diagnostics: m.diagnostics, layout: null, cells: [] };
  return {
    ok: true,
    diagnostics: m.diagnostics,
    layout: m.layout,
    cells: m.layout.pairs.map((_, i) => m.cell(i)),
  };
}
