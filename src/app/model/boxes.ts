/**
 * The boxes of the diagram: compact hosts (clients, pods, idle nodes), nodes with their netfilter
 * pipeline, their interfaces, and the wires between them. Pure; layout.ts places them.
 */
import type { ClusterView, HookRowsView } from '../../cluster/types.ts';
import type { TableView } from './rules-view.ts';
import type { Hook, TableName } from '../../engine/rules/types.ts';
import {
  BRIDGE_BAND_H,
  BRIDGE_H,
  HOOK_AT,
  HOOK_ROWS,
  HOOK_W,
  NIC_BAR_H,
  NODE_W,
  NFT_ROW_H,
  SIMPLE_H,
  SIMPLE_W,
  STRIP_H,
  hookHeight,
  isTable,
  nodeGeometry,
  pipelineEdges,
  type Rect,
} from './geometry.ts';
import type {
  BridgeBox,
  HookRow,
  HookView,
  HostBox,
  IfaceBox,
  ProcessBox,
  WireView,
} from './layout.ts';

const BUS_Y = 30;
const BUS_STEP = 16;

/** Tables present in an iptables-save text (`*nat` lines). */
const TABLE_NAMES: ReadonlySet<string> = new Set(['raw', 'mangle', 'nat', 'filter', 'security']);

export function tablesIn(rules: readonly TableView[] | undefined): Set<TableName> {
  const out = new Set<TableName>();
  for (const t of rules ?? []) if (TABLE_NAMES.has(t.name)) out.add(t.name as TableName);
  return out;
}

export function isVeth(
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
  const w = Math.min(170, (strip.w - labelW) / Math.max(1, byName.size));
  return [...byName].map(([name, ports], i) => ({
    name,
    label: `${name} ${ports.map((p) => `:${p}`).join(',')}`,
    at: { x: strip.x + labelW + i * w + w / 2, y: strip.y + strip.h / 2 },
    w: w - 6,
  }));
}

export function simpleBox(
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
        bar: { x: px - 26, y: py - 8, w: 52, h: 16 },
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
    edges: [],
    ct: null,
    ifaces: [...place(top, 'top'), ...place(bot, 'bottom')],
    processes: processBoxes(h, { x: x + 6, y: y + SIMPLE_H - 26, w: SIMPLE_W - 12, h: 20 }, 0),
    geo: null,
    bridge: null,
  };
}

export function nodeBox(
  h: ClusterView['hosts'][number],
  x: number,
  y: number,
  ifacesSeen: Map<string, Set<string>>,
  rules: readonly TableView[] | undefined,
  hookRows: HookRowsView | undefined,
  podHosts: Set<string>,
  peerOf: Map<string, string>,
  podCentres: readonly { pod: string; x: number }[],
): HostBox {
  const rowsOf = hookRows ? planRows(hookRows) : classicRows(tablesIn(rules));
  const rowsBy = new Map((Object.keys(HOOK_AT) as Hook[]).map((k) => [k, rowsOf(k)]));
  const heightOf = (k: Hook) => rowsHeight(rowsBy.get(k) ?? []);
  const geo = nodeGeometry(heightOf);
  const hooks: HookView[] = [...rowsBy].map(([hook, rows]) => {
    const at = geo.hookAt[hook];
    return {
      hook,
      box: { x: x + at.x, y: y + at.y, w: HOOK_W, h: hookHeight(rowsHeight(rows)) },
      rows,
    };
  });
  const edges = pipelineEdges(geo, heightOf).map((e) => ({
    ...e,
    points: e.points.map((p) => ({ x: x + p.x, y: y + p.y })),
  }));
  const names = [...(ifacesSeen.get(h.name) ?? [])];
  const bottomNames = names.filter((n) => n !== 'lo' && isVeth(n, h.name, podHosts, peerOf));
  const topNames = names.filter((n) => !bottomNames.includes(n) && n !== h.bridge?.name);
  const drawnPorts = h.bridge?.ports.filter((p) => bottomNames.includes(p.iface)) ?? [];
  const nodeH = geo.stackH + (drawnPorts.length ? BRIDGE_BAND_H : 0);
  const ifaces = [
    ...topBars(topNames, x, y),
    ...bottomBars(bottomNames, h.name, x, y + nodeH, peerOf, podCentres),
  ];
  const bridge: BridgeBox | null =
    h.bridge && drawnPorts.length
      ? {
          ...h.bridge,
          x: x + 14,
          y: y + nodeH - 8 - BRIDGE_H,
          w: NODE_W - 28,
          h: BRIDGE_H,
          ports: drawnPorts.map((p) => ({
            ...p,
            x: ifaces.find((i) => i.name === p.iface)?.port.x ?? x,
          })),
        }
      : null;
  const L = geo.local;
  const strip = { x: x + L.x, y: y + L.y, w: L.w, h: L.h };
  return {
    name: h.name,
    kind: h.kind,
    x,
    y,
    w: NODE_W,
    h: nodeH,
    ips: h.ips,
    title: titleOf(h),
    subtitle: subtitleOf(h),
    hiddenPods: 0,
    pipeline: true,
    onPath: true,
    hooks,
    edges,
    ct: { x: x + geo.ct.x, y: y + geo.ct.y, w: geo.ct.w, h: geo.ct.h },
    ifaces,
    processes: processBoxes(h, strip, 112),
    geo,
    bridge,
  };
}

/**
 * Wide bars on the top edge: packets come in on their left (towards PREROUTING) and leave on
 * their right (from POSTROUTING), so the token never crosses the pipeline; it slides along the
 * bar between the wire's attachment and those points.
 */
function topBars(names: readonly string[], x: number, y: number): IfaceBox[] {
  const barW = (NODE_W - 48) / Math.max(1, names.length);
  return names.map((name, i) => {
    const bx = x + 24 + i * barW;
    return {
      name,
      port: { x: bx + barW / 2, y },
      inPoint: { x: x + HOOK_AT.PREROUTING.x + HOOK_W / 2, y },
      outPoint: { x: x + HOOK_AT.POSTROUTING.x + HOOK_W / 2, y },
      side: 'top',
      bar: { x: bx + 2, y: y - NIC_BAR_H / 2, w: barW - 4, h: NIC_BAR_H },
    };
  });
}

/** The pods' veths on the bottom edge (at `bottom`), each above its pod. */
function bottomBars(
  names: readonly string[],
  host: string,
  x: number,
  bottom: number,
  peerOf: Map<string, string>,
  podCentres: readonly { pod: string; x: number }[],
): IfaceBox[] {
  return names.map((name, i) => {
    const peer = peerOf.get(`${host}/${name}`);
    const px =
      podCentres.find((p) => p.pod === peer)?.x ?? x + ((i + 1) * NODE_W) / (names.length + 1);
    const cx = Math.min(Math.max(px, x + 40), x + NODE_W - 40);
    return {
      name,
      port: { x: cx, y: bottom },
      inPoint: { x: cx - 8, y: bottom },
      outPoint: { x: cx + 8, y: bottom },
      side: 'bottom',
      bar: { x: cx - 40, y: bottom - 8, w: 80, h: 16 },
    };
  });
}

const rowsHeight = (rows: readonly HookRow[]) => rows.reduce((sum, r) => sum + r.h, 0);

/** The rows the worker computed from the host's hook plan (cluster/hook-rows.ts). */
function planRows(plan: HookRowsView): (hook: Hook) => HookRow[] {
  return (hook) =>
    plan[hook].map((r) => ({
      row: r.key,
      kind: r.kind,
      present: r.present,
      priority: r.priority,
      h: r.kind === 'nft' ? NFT_ROW_H : STRIP_H,
      ...(r.nft ? { nft: r.nft } : {}),
    }));
}

/** Without the worker's rows: the classic iptables drawing, tables read from iptables-save. */
function classicRows(present: Set<TableName>): (hook: Hook) => HookRow[] {
  // A host with no ruleset at all has no conntrack either (the engine's rule, see stack.ts).
  const tracked = present.size > 0;
  return (hook) =>
    HOOK_ROWS[hook]
      .filter((r) => r !== 'security' || present.has('security'))
      .map((row) => ({
        row,
        kind: isTable(row) ? 'table' : row,
        present: isTable(row) ? present.has(row) : tracked,
        priority: null,
        h: STRIP_H,
      }));
}

export function layoutWires(cluster: ClusterView, hosts: readonly HostBox[]): WireView[] {
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
