/**
 * Cluster view + runs → coordinates of everything the diagram draws. Pure: unit tests check it
 * without a DOM, and the D3 layer only turns it into SVG.
 */
import type {
  ClusterView,
  HookRowView,
  HookRowsView,
  HostKind,
  RunView,
} from '../../cluster/types.ts';
import type { TableView } from './rules-view.ts';
import type { Hook } from '../../engine/rules/types.ts';
import {
  NODE_W,
  SIMPLE_H,
  SIMPLE_W,
  type Edge,
  type NodeGeometry,
  type Point,
  type Rect,
  type RowBox,
} from './geometry.ts';
import { isVeth, layoutWires, nodeBox, simpleBox, tablesIn } from './boxes.ts';

export { tablesIn };

export interface IfaceBox {
  readonly name: string;
  /** Where the wire attaches (absolute). */
  readonly port: Point;
  /** Where an arriving packet enters and a leaving one exits the pipeline (absolute). */
  readonly inPoint: Point;
  readonly outPoint: Point;
  readonly side: 'top' | 'bottom';
  /** The bar drawn for it (absolute). */
  readonly bar: Rect;
}

/** A row of a hook box: `row` is its key, `h` its height; `present` when the host has it. */
export interface HookRow extends RowBox {
  readonly kind: HookRowView['kind'];
  readonly present: boolean;
  readonly priority: number | null;
  readonly nft?: HookRowView['nft'];
}

export interface HookView {
  readonly hook: Hook;
  readonly box: Rect;
  /** Tables, nft base chains and kernel steps, in priority order. */
  readonly rows: readonly HookRow[];
}

export interface ProcessBox {
  readonly name: string;
  readonly label: string;
  readonly at: Point;
  readonly w: number;
}

export interface HostBox {
  readonly name: string;
  readonly kind: HostKind;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
  readonly ips: readonly string[];
  /** Shown in bold: the workload for pods (the generated pod name is long), else the name. */
  readonly title: string;
  readonly subtitle: string;
  /** Pods of this node left out of the drawing (the node is not on the path). */
  readonly hiddenPods: number;
  /** Full netfilter pipeline (nodes on the path) or a compact box (clients, pods, idle nodes). */
  readonly pipeline: boolean;
  readonly onPath: boolean;
  readonly hooks: readonly HookView[];
  /** The pipeline's arrows (absolute), nodes only. */
  readonly edges: readonly Edge[];
  /** Where the node's conntrack entry is drawn (absolute), nodes only. */
  readonly ct: Rect | null;
  readonly ifaces: readonly IfaceBox[];
  readonly processes: readonly ProcessBox[];
  /** Where a node's pipeline parts sit (relative to its corner), nodes only. */
  readonly geo: NodeGeometry | null;
  /** The node's bridge, drawn between its stack and the pods' veths (its ports). */
  readonly bridge: BridgeBox | null;
}

/** A Linux bridge inside a node (absolute): its band, and a mark above each port. */
export interface BridgeBox extends Rect {
  readonly name: string;
  readonly address: string | null;
  readonly nfCallIptables: boolean;
  /** `x`: the port's veth bar centre. */
  readonly ports: readonly {
    readonly iface: string;
    readonly hairpin: boolean;
    readonly x: number;
  }[];
}

export interface WireView {
  readonly segment: string;
  /** A bus (shared L2 segment) is a horizontal line with drops; a veth pair is one line. */
  readonly kind: 'bus' | 'p2p';
  readonly busY: number | null;
  readonly attachments: readonly {
    readonly host: string;
    readonly iface: string;
    readonly port: Point;
  }[];
}

export interface DiagramLayout {
  readonly width: number;
  readonly height: number;
  readonly hosts: readonly HostBox[];
  readonly wires: readonly WireView[];
}

const MARGIN = 24;
const COL_GAP = 48;
const TOP = 84;
const POD_GAP = 56;
const POD_SPACING = SIMPLE_W + 24;
const ROW_GAP = 24;

export interface LayoutInput {
  readonly cluster: ClusterView;
  readonly runs: readonly RunView[];
  readonly rules: Readonly<Record<string, readonly TableView[]>>;
  /** Each node's rows per hook, from the worker (the classic rows without them). */
  readonly hooks?: Readonly<Record<string, HookRowsView>> | undefined;
}

/** Computes the diagram's layout. */
// eslint-disable-next-line max-lines-per-function -- the layout passes in order (hosts, rows, links), each using the one before
export function layoutDiagram({ cluster, runs, rules, hooks }: LayoutInput): DiagramLayout {
  const visited = new Set<string>();
  const ifacesSeen = new Map<string, Set<string>>();
  const note = (h: string, i: string) => {
    let s = ifacesSeen.get(h);
    if (!s) ifacesSeen.set(h, (s = new Set()));
    s.add(i);
  };
  for (const r of runs)
    for (const e of r.events) {
      visited.add(e.host);
      if (e.type === 'receive') note(e.host, e.iface);
      if (e.type === 'wire') {
        note(e.host, e.fromIf);
        note(e.toHost, e.toIf);
      }
    }
  const peerOf = new Map<string, string>();
  for (const l of cluster.links) {
    note(l.a, l.aIf);
    note(l.b, l.bIf);
    peerOf.set(`${l.a}/${l.aIf}`, l.b);
    peerOf.set(`${l.b}/${l.bIf}`, l.a);
  }

  const byKind = (k: HostKind) => cluster.hosts.filter((h) => h.kind === k);
  const podHosts = new Set(byKind('pod').map((p) => p.name));
  const podsOf = (node: string) => {
    const pods = byKind('pod').filter((p) => p.node === node);
    // Pods of a node on the path stay (context: who else lives there) unless there are many;
    // an idle node only keeps the pods a run visits, so the diagram stays readable.
    return visited.has(node) && pods.length <= 3 ? pods : pods.filter((p) => visited.has(p.name));
  };

  const hosts: HostBox[] = [];
  let x = MARGIN;
  // Clients, then the routers in front of the cluster, then the nodes: left to right as the
  // packet goes.
  for (const kind of ['client', 'router'] as const) {
    const list = byKind(kind);
    if (!list.length) continue;
    list.forEach((h, i) => {
      hosts.push(simpleBox(h, x, TOP + i * (SIMPLE_H + ROW_GAP), visited, ifacesSeen, 'top'));
    });
    x += SIMPLE_W + COL_GAP;
  }
  const unplaced = byKind('pod').filter(
    (p) => !p.node || !cluster.hosts.some((h) => h.name === p.node),
  );
  for (const node of byKind('node')) {
    const pipeline = visited.has(node.name);
    const pods = podsOf(node.name);
    const hidden = byKind('pod').filter((p) => p.node === node.name).length - pods.length;
    const nodeW = pipeline ? NODE_W : SIMPLE_W;
    const colW = Math.max(nodeW, pods.length * POD_SPACING - 24);
    const nx = x + (colW - nodeW) / 2;
    const podXs = pods.map(
      (_, i) => x + (colW - (pods.length * POD_SPACING - 24)) / 2 + i * POD_SPACING,
    );
    const box = pipeline
      ? nodeBox(
          node,
          nx,
          TOP,
          ifacesSeen,
          rules[node.name],
          hooks?.[node.name],
          podHosts,
          peerOf,
          pods.map((p, i) => ({ pod: p.name, x: (podXs[i] as number) + SIMPLE_W / 2 })),
        )
      : simpleBox(
          node,
          nx,
          TOP,
          visited,
          ifacesSeen,
          'top',
          (i) => isVeth(i, node.name, podHosts, peerOf),
          new Set(pods.map((p) => p.name)),
          peerOf,
        );
    // A node with many rows is taller: its pods hang below it.
    const podY = TOP + box.h + POD_GAP;
    hosts.push({ ...box, hiddenPods: hidden });
    pods.forEach((p, i) =>
      hosts.push(simpleBox(p, podXs[i] as number, podY, visited, ifacesSeen, 'top')),
    );
    x += colW + COL_GAP;
  }
  unplaced.forEach((p) => {
    hosts.push(simpleBox(p, x, TOP, visited, ifacesSeen, 'top'));
    x += SIMPLE_W + COL_GAP;
  });

  const wires = layoutWires(cluster, hosts);
  const height = Math.max(...hosts.map((h) => h.y + h.h)) + MARGIN;
  return { width: x - COL_GAP + MARGIN, height, hosts, wires };
}
