/**
 * The probe matrix (issue 14, the seeds' verification matrix, DOMAIN.md §4): every sender of a
 * scenario variant against every address its Services expose, each cell computed by the engine
 * exactly as one probe is (every random branch enumerated, within the engine's bounds), with the
 * scenario's stated expectation for that pair when it has one.
 *
 * Two steps, so the lab's worker can compute it a few cells at a time and stay responsive:
 * `openMatrix` lays out the rows and columns (cheap), `cell(i)` computes one cell.
 */
import { enumerateOutcomes, type Enumeration, type Outcome } from '../engine/index.ts';
import { classify, describeOutcome, expectText, judgeRuns, type OutcomeClass } from './expect.ts';
import { clusterOf, networkOf, probeFor, loadCached } from './lab.ts';
import type { ProbeDef } from './scenario.ts';
import type { BuiltCluster } from './topology.ts';
import { pathChoices } from './targets.ts';
import type { DestinationChoice, HostKind, LabDiagnostic, RunView } from './types.ts';
import { matrixSenders, senderKey, type MatrixSender } from './matrix-senders.ts';

export type { MatrixSender };

/** What a matrix is computed from: a scenario variant, as the lab runs it. */
export interface MatrixInput {
  readonly scenario: string;
  readonly manifests?: string;
  readonly variant?: string;
  readonly validate?: boolean;
  /** At most this many cells (rows x columns); the rest is named in `limited`. */
  readonly maxCells?: number;
}

/**
 * Bounds of one matrix: a cell costs one enumeration (up to the engine's own limits), so a big
 * cluster's thousands of pods and Services are cut to a table a reader can take in.
 */
export const MATRIX_LIMITS = { cells: 400, senders: 24, columns: 40 };

export interface MatrixColumn {
  /** A destination of the path vocabulary; for `localhost-nodeport` the node is the sender's own. */
  readonly id: string;
  readonly kind: DestinationChoice['kind'];
  readonly label: string;
  /** `192.168.10.11:30080`, `127.0.0.1:30080`. */
  readonly address: string;
  readonly port: number;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  /** Only a node can send to it: 127.0.0.1 on the sender itself. */
  readonly ownNode: boolean;
}

/** The kinds a cell's outcome can have; `split`: random branches end differently. */
export type MatrixOutcome = OutcomeClass | 'split' | 'error';

export interface MatrixBranch {
  readonly share: number;
  readonly outcome: OutcomeClass;
  /** `pod/web-6c8f-1`, `node/cp-1/sshd`; null when nobody answered. */
  readonly responder: string | null;
  /** The source address the responder saw. */
  readonly srcSeen: string | null;
  /** Whose address that is: `node/core-1`, `client/external`, `pod/pod-a`. */
  readonly srcSeenAs: string | null;
  /** What happened, in words (`timeout (dropped by filter KUBE-EXTERNAL-SERVICES)`). */
  readonly detail: string;
}

export interface MatrixCell {
  readonly row: number;
  readonly col: number;
  /** The path of this cell (`client/external` → `nodeport/web@core-1`): what the lab traces. */
  readonly from: string;
  readonly to: string;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  /** Resolved destination, `192.168.10.11:30080`. */
  readonly address: string | null;
  readonly outcome: MatrixOutcome;
  /** The answering process or pod; several joined with `, ` when branches differ. */
  readonly responder: string | null;
  /** The same, pods by workload: `pod/web (2 pods)`, `node/core-1/kubelet`. */
  readonly answeredBy: string | null;
  readonly srcSeen: string | null;
  readonly srcSeenAs: string | null;
  /** Every distinct end of the probe with its probability (shares sum to `covered`). */
  readonly branches: readonly MatrixBranch[];
  /** The scenario's expectation for this pair, in words; null when it states none. */
  readonly expected: string | null;
  /** Null without an expectation; false also when the enumeration was partial. */
  readonly matches: boolean | null;
  /** What differs from the expectation, one line per field. */
  readonly diff: readonly string[];
  /** The scenario's probe names this cell answers. */
  readonly probes: readonly string[];
  /** The engine stopped at a limit: the branches cover `covered` of the probability. */
  readonly partial: { readonly covered: number; readonly notComputed: number } | null;
  /** The cell could not be run (message). */
  readonly error?: string;
}

/** Rows and columns the limits left out, said beside the table. */
export interface MatrixLimited {
  readonly senders: { readonly shown: number; readonly total: number };
  readonly columns: { readonly shown: number; readonly total: number };
}

/** One cell to compute: row and column indices, and the path it traces. */
export interface MatrixPair {
  readonly row: number;
  readonly col: number;
  readonly from: string;
  readonly to: string;
  readonly proto: 'tcp' | 'udp' | 'sctp';
}

export interface MatrixLayout {
  readonly senders: readonly MatrixSender[];
  readonly columns: readonly MatrixColumn[];
  /** Applicable pairs, row by row (a 127.0.0.1 column has cells for nodes only). */
  readonly pairs: readonly MatrixPair[];
  readonly limited: MatrixLimited | null;
  /** Probes of the scenario that fit no cell (their sender or destination does not resolve). */
  readonly unplaced: readonly { readonly probe: string; readonly error: string }[];
}

export type MatrixOpen =
  | { readonly ok: false; readonly diagnostics: readonly LabDiagnostic[] }
  | {
      readonly ok: true;
      readonly diagnostics: readonly LabDiagnostic[];
      readonly layout: MatrixLayout;
      /** Computes the cell of `layout.pairs[i]`. */
      readonly cell: (i: number) => MatrixCell;
    };

export interface MatrixResult {
  readonly ok: boolean;
  readonly diagnostics: readonly LabDiagnostic[];
  readonly layout: MatrixLayout | null;
  readonly cells: readonly MatrixCell[];
}

/** The exposed addresses, in the order a reader scans an exposure: outside in. */
const KIND_ORDER: readonly DestinationChoice['kind'][] = [
  'vip',
  'loadbalancer',
  'externalip',
  'clusterip',
  'nodeport',
  'localhost-nodeport',
  'healthcheck',
  'pod',
  'node',
];

/** Which destination a resolved probe reaches: the key cells and probes are matched by. */
const destKey = (address: string, port: number, proto: string) => `${proto}:${address}:${port}`;

/** Every address the variant's Services expose, plus the scenario's probe destinations. */
function exposedColumns(c: BuiltCluster, probes: readonly ProbeDef[]): MatrixColumn[] {
  const out: MatrixColumn[] = [];
  const seen = new Set<string>();
  const push = (col: MatrixColumn) => {
    const k = col.ownNode ? `own:${col.id}` : destKey(col.address, col.port, col.proto);
    if (seen.has(k)) return;
    seen.add(k);
    out.push(col);
  };
  const dests = pathChoices(c).destinations;
  for (const d of dests) {
    if (d.kind === 'pod' || d.kind === 'node') continue;
    if (d.kind === 'localhost-nodeport') {
      // One column for every node's own 127.0.0.1:nodePort: the row says which node.
      const id = d.id.slice(0, d.id.lastIndexOf('@'));
      push({
        id,
        kind: d.kind,
        label: `127.0.0.1:${d.port}`,
        address: d.address,
        port: d.port,
        proto: d.proto,
        ownNode: true,
      });
      continue;
    }
    push({ ...d, label: d.label, ownNode: false });
  }
  // A NodePort answers on every local address, the VIP kube-vip puts on its holder too.
  const vip = c.spec.vips?.find((v) => v.mode === 'kube-vip');
  if (vip)
    for (const s of c.model.services)
      for (const p of s.ports)
        if (p.nodePort)
          push({
            id: `vip:${p.nodePort}`,
            kind: 'vip',
            label: `VIP ${vip.ip}:${p.nodePort} (${s.name} NodePort)`,
            address: vip.ip,
            port: p.nodePort,
            proto: p.protocol.toLowerCase() as 'tcp' | 'udp' | 'sctp',
            ownNode: false,
          });
  for (const probe of probes) {
    const r = probeFor(c, {
      from: probe.from,
      to: probe.to,
      ...(probe.proto ? { proto: probe.proto } : {}),
    });
    if ('error' in r) continue;
    if (r.to.address === '127.0.0.1' && probe.to.startsWith('localhost-nodeport/')) continue;
    const kind = (probe.to.split('/')[0] ?? '').split(':')[0] as DestinationChoice['kind'];
    push({
      id: probe.to,
      kind: KIND_ORDER.includes(kind) ? kind : 'node',
      label: `${probe.to} ${r.to.address}:${r.to.port}`,
      address: r.to.address,
      port: r.to.port,
      proto: r.to.proto,
      ownNode: false,
    });
  }
  return out
    .map((col, i) => ({ col, i }))
    .sort((a, b) => KIND_ORDER.indexOf(a.col.kind) - KIND_ORDER.indexOf(b.col.kind) || a.i - b.i)
    .map((x) => x.col);
}

/** The columns a probe names come first when the limits cut: the scenario asked for those. */
function keepWithin<T>(list: readonly T[], max: number, wanted: (x: T) => boolean): T[] {
  if (list.length <= max) return [...list];
  const keep = new Set<T>(list.filter(wanted).slice(0, max));
  for (const x of list) if (keep.size < max) keep.add(x);
  return list.filter((x) => keep.has(x));
}

/** The node a sender's `localhost-nodeport` cell uses: the node itself. */
function ownNodeTarget(col: MatrixColumn, s: MatrixSender): string | null {
  return s.kind === 'node' ? `${col.id}@${s.host}` : null;
}

function layoutOf(c: BuiltCluster, probes: readonly ProbeDef[], maxCells: number): MatrixLayout {
  const allSenders = matrixSenders(c, probes);
  const allColumns = exposedColumns(c, probes);
  const probeTo = new Set(probes.map((p) => p.to));
  const senders = keepWithin(allSenders, MATRIX_LIMITS.senders, (s) => s.probed);
  const maxCols = Math.max(
    1,
    Math.min(MATRIX_LIMITS.columns, Math.floor(maxCells / Math.max(1, senders.length))),
  );
  const columns = keepWithin(
    allColumns,
    maxCols,
    (col) =>
      probeTo.has(col.id) || [...probeTo].some((t) => col.ownNode && t.startsWith(`${col.id}@`)),
  );
  const pairs: MatrixPair[] = [];
  senders.forEach((s, row) =>
    columns.forEach((col, ci) => {
      const to = col.ownNode ? ownNodeTarget(col, s) : col.id;
      if (to) pairs.push({ row, col: ci, from: s.id, to, proto: col.proto });
    }),
  );
  const unplaced = probes.flatMap((p) => {
    const r = probeFor(c, { from: p.from, to: p.to });
    return 'error' in r ? [{ probe: p.name ?? `${p.from} -> ${p.to}`, error: r.error }] : [];
  });
  const limited =
    senders.length < allSenders.length || columns.length < allColumns.length
      ? {
          senders: { shown: senders.length, total: allSenders.length },
          columns: { shown: columns.length, total: allColumns.length },
        }
      : null;
  return { senders, columns, pairs, limited, unplaced };
}

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
  const { scenario, diagnostics } = loadCached(input.scenario, input.validate !== false);
  if (!scenario) return { ok: false, diagnostics };
  const built = clusterOf(scenario, input.variant, input.manifests);
  const all = [...diagnostics, ...built.diagnostics];
  const c = built.cluster;
  if (!c || all.some((d) => d.severity === 'error')) return { ok: false, diagnostics: all };
  return openClusterMatrix(c, built.probes, all, input.maxCells);
}

/** The matrix of a built cluster and its variant's probes (the CLI builds the cluster itself). */
export function openClusterMatrix(
  c: BuiltCluster,
  probes: readonly ProbeDef[],
  diagnostics: readonly LabDiagnostic[] = [],
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
