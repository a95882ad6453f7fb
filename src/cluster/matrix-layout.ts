/**
 * The probe matrix's rows and columns (see matrix.ts): the addresses the variant's Services
 * expose plus the scenario's probe destinations, the senders (matrix-senders.ts), the applicable
 * pairs, cut to the matrix's bounds with the probed rows and columns kept first.
 */
import { probeFor } from './lab.ts';
import type { ProbeDef } from './scenario.ts';
import type { BuiltCluster } from './topology.ts';
import { pathChoices } from './targets.ts';
import type { DestinationChoice } from './types.ts';
import { matrixSenders, type MatrixSender } from './matrix-senders.ts';
import {
  MATRIX_LIMITS,
  type MatrixColumn,
  type MatrixLayout,
  type MatrixPair,
} from './matrix-types.ts';

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
export const destKey = (address: string, port: number, proto: string) =>
  `${proto}:${address}:${port}`;

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

export function layoutOf(
  c: BuiltCluster,
  probes: readonly ProbeDef[],
  maxCells: number,
): MatrixLayout {
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
