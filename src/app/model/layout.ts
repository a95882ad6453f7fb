/**
 * Cluster view + runs → coordinates of everything the diagram draws. Pure: unit tests check it
 * without a DOM, and the D3 layer only turns it into SVG.
 */
import type { ClusterView, HostKind, RunView } from '../../cluster/types.ts';
import type { Hook, TableName } from '../../engine/rules/types.ts';
import {
  HOOK_BOXES,
  HOOK_TABLES,
  LOCAL_STRIP,
  NIC_BAR_H,
  NODE_H,
  NODE_W,
  SIMPLE_H,
  SIMPLE_W,
  type Point,
  type Rect,
} from './geometry.ts';

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

export interface HookView {
  readonly hook: Hook;
  readonly box: Rect;
  readonly tables: readonly { readonly table: TableName; readonly present: boolean }[];
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
  readonly ifaces: readonly IfaceBox[];
  readonly processes: readonly ProcessBox[];
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
const BUS_Y = 30;
const BUS_STEP = 16;
const POD_GAP = 56;
const POD_SPACING = SIMPLE_W + 20;
const ROW_GAP = 24;

/** Tables present in an iptables-save text (`*nat` lines). */
export function tablesIn(rules: string | undefined): Set<TableName> {
  const out = new Set<TableName>();
  for (const m of (rules ?? '').matchAll(/^\*(raw|mangle|nat|filter|security)\s*$/gm))
    out.add(m[1] as TableName);
  return out;
}

function isVeth(
  iface: string,
  host: string,
  podHosts: Set<string>,
  peerOf: Map<string, string>,
): boolean {
  const peer = peerOf.get(`${host}/${iface}`);
  return (
    iface.startsWith('veth') ||
    iface.startsWith('cali') ||
    (peer !== undefined && podHosts.has(peer))
  );
}

export interface LayoutInput {
  readonly cluster: ClusterView;
  readonly runs: readonly RunView[];
  readonly rules: Readonly<Record<string, string>>;
}

/** Computes the diagram's layout. */
export function layoutDiagram({ cluster, runs, rules }: LayoutInput): DiagramLayout {
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
    const nodeH = pipeline ? NODE_H : SIMPLE_H;
    const colW = Math.max(nodeW, pods.length * POD_SPACING - 20);
    const nx = x + (colW - nodeW) / 2;
    const podY = TOP + nodeH + POD_GAP;
    const podXs = pods.map(
      (_, i) => x + (colW - (pods.length * POD_SPACING - 20)) / 2 + i * POD_SPACING,
    );
    const box = pipeline
      ? nodeBox(
          node,
          nx,
          TOP,
          ifacesSeen,
          rules[node.name],
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

function titleOf(h: ClusterView['hosts'][number]): string {
  return h.kind === 'pod' && h.workload ? h.workload : h.name;
}

function subtitleOf(h: ClusterView['hosts'][number]): string {
  if (h.kind === 'pod') return h.name;
  return h.roles.join(', ');
}

/** Sockets as chips along a strip, after `labelW` pixels kept for the strip's caption; one chip
 * per process (kube-proxy's health and healthCheckNodePort ports share one). */
function processBoxes(h: ClusterView['hosts'][number], strip: Rect, labelW: number): ProcessBox[] {
  const byName = new Map<string, number[]>();
  for (const p of h.processes) byName.set(p.name, [...(byName.get(p.name) ?? []), p.port]);
  const w = Math.min(150, (strip.w - labelW) / Math.max(1, byName.size));
  return [...byName].map(([name, ports], i) => ({
    name,
    label: `${name} ${ports.map((p) => `:${p}`).join(',')}`,
    at: { x: strip.x + labelW + i * w + w / 2, y: strip.y + strip.h / 2 },
    w: w - 6,
  }));
}

function simpleBox(
  h: ClusterView['hosts'][number],
  x: number,
  y: number,
  visited: Set<string>,
  ifacesSeen: Map<string, Set<string>>,
  side: 'top',
  bottom: (iface: string) => boolean = () => false,
  shownPods: Set<string> | null = null,
  peerOf: Map<string, string> | null = null,
): HostBox {
  // A compact node only draws the veths of pods that are drawn.
  const names = [...(ifacesSeen.get(h.name) ?? [])].filter(
    (i) =>
      i !== 'lo' &&
      (!bottom(i) || !shownPods || shownPods.has(peerOf?.get(`${h.name}/${i}`) ?? '')),
  );
  const top = names.filter((n) => !bottom(n));
  const bot = names.filter((n) => bottom(n));
  const place = (list: string[], s: 'top' | 'bottom'): IfaceBox[] =>
    list.map((name, i) => {
      const px = x + ((i + 1) * SIMPLE_W) / (list.length + 1);
      const py = s === side ? y : y + SIMPLE_H;
      return {
        name,
        port: { x: px, y: py },
        inPoint: { x: px - 6, y: py },
        outPoint: { x: px + 6, y: py },
        side: s,
        bar: { x: px - 22, y: py - 7, w: 44, h: 14 },
      };
    });
  return {
    name: h.name,
    kind: h.kind,
    x,
    y,
    w: SIMPLE_W,
    h: SIMPLE_H,
    ips: h.ips,
    title: titleOf(h),
    subtitle: subtitleOf(h),
    hiddenPods: 0,
    pipeline: false,
    onPath: visited.has(h.name),
    hooks: [],
    ifaces: [...place(top, 'top'), ...place(bot, 'bottom')],
    processes: processBoxes(h, { x: x + 6, y: y + SIMPLE_H - 24, w: SIMPLE_W - 12, h: 18 }, 0),
  };
}

function nodeBox(
  h: ClusterView['hosts'][number],
  x: number,
  y: number,
  ifacesSeen: Map<string, Set<string>>,
  rules: string | undefined,
  podHosts: Set<string>,
  peerOf: Map<string, string>,
  podCentres: readonly { pod: string; x: number }[],
): HostBox {
  const present = tablesIn(rules);
  const hooks: HookView[] = (Object.keys(HOOK_BOXES) as Hook[]).map((hook) => {
    const r = HOOK_BOXES[hook];
    return {
      hook,
      box: { x: x + r.x, y: y + r.y, w: r.w, h: r.h },
      tables: HOOK_TABLES[hook]
        .filter((t) => t !== 'security' || present.has('security'))
        .map((table) => ({ table, present: present.has(table) })),
    };
  });
  const names = [...(ifacesSeen.get(h.name) ?? [])];
  const bottomNames = names.filter((n) => n !== 'lo' && isVeth(n, h.name, podHosts, peerOf));
  const topNames = names.filter((n) => !bottomNames.includes(n));
  const ifaces: IfaceBox[] = [];
  const barW = (NODE_W - 48) / Math.max(1, topNames.length);
  topNames.forEach((name, i) => {
    const bx = x + 24 + i * barW;
    // A wide bar on the top edge: packets come in on its left (towards PREROUTING) and leave on
    // its right (from POSTROUTING), so the token never crosses the pipeline; it slides along
    // the bar between the wire's attachment and those points.
    ifaces.push({
      name,
      port: { x: bx + barW / 2, y },
      inPoint: {
        x: x + HOOK_BOXES.PREROUTING.x + HOOK_BOXES.PREROUTING.w / 2,
        y,
      },
      outPoint: {
        x: x + HOOK_BOXES.POSTROUTING.x + HOOK_BOXES.POSTROUTING.w / 2,
        y,
      },
      side: 'top',
      bar: { x: bx + 2, y: y - NIC_BAR_H / 2, w: barW - 4, h: NIC_BAR_H },
    });
  });
  bottomNames.forEach((name, i) => {
    const peer = peerOf.get(`${h.name}/${name}`);
    const px =
      podCentres.find((p) => p.pod === peer)?.x ??
      x + ((i + 1) * NODE_W) / (bottomNames.length + 1);
    const cx = Math.min(Math.max(px, x + 40), x + NODE_W - 40);
    ifaces.push({
      name,
      port: { x: cx, y: y + NODE_H },
      inPoint: { x: cx - 8, y: y + NODE_H },
      outPoint: { x: cx + 8, y: y + NODE_H },
      side: 'bottom',
      bar: { x: cx - 34, y: y + NODE_H - 7, w: 68, h: 14 },
    });
  });
  const strip = { x: x + LOCAL_STRIP.x, y: y + LOCAL_STRIP.y, w: LOCAL_STRIP.w, h: LOCAL_STRIP.h };
  return {
    name: h.name,
    kind: h.kind,
    x,
    y,
    w: NODE_W,
    h: NODE_H,
    ips: h.ips,
    title: titleOf(h),
    subtitle: subtitleOf(h),
    hiddenPods: 0,
    pipeline: true,
    onPath: true,
    hooks,
    ifaces,
    processes: processBoxes(h, strip, 96),
  };
}

function layoutWires(cluster: ClusterView, hosts: readonly HostBox[]): WireView[] {
  const segs = new Map<string, Map<string, { host: string; iface: string }>>();
  for (const l of cluster.links) {
    const m = segs.get(l.segment) ?? new Map<string, { host: string; iface: string }>();
    m.set(`${l.a}/${l.aIf}`, { host: l.a, iface: l.aIf });
    m.set(`${l.b}/${l.bIf}`, { host: l.b, iface: l.bIf });
    segs.set(l.segment, m);
  }
  const wires: WireView[] = [];
  let bus = 0;
  for (const [segment, m] of segs) {
    const attachments = [...m.values()].flatMap((a) => {
      const port = hosts
        .find((h) => h.name === a.host)
        ?.ifaces.find((i) => i.name === a.iface)?.port;
      return port ? [{ ...a, port }] : [];
    });
    if (attachments.length < 2) continue;
    // A veth pair (node above, pod below) is drawn as one line; anything else as a bus.
    const p2p =
      attachments.length === 2 &&
      attachments.some((a) => hosts.find((h) => h.name === a.host)?.kind === 'pod');
    wires.push({
      segment,
      kind: p2p ? 'p2p' : 'bus',
      busY: p2p ? null : BUS_Y + BUS_STEP * bus++,
      attachments,
    });
  }
  return wires;
}
