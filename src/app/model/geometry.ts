/**
 * The fixed drawing of one node: the netfilter pipeline as engineers draw it (PREROUTING →
 * routing decision → INPUT → local process, or → FORWARD → POSTROUTING; local traffic takes
 * routing → OUTPUT → POSTROUTING), with conntrack where the kernel runs it and the node's
 * conntrack table in the middle. Coordinates are relative to the node's top-left corner, in
 * CSS pixels at zoom 1: the follow camera shows a node at about that size on a 1280x720 screen,
 * so the fonts here are the sizes people read.
 */
import type { Hook, TableName } from '../../engine/rules/types.ts';

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/**
 * One row of a hook box: a table, or a kernel step that is not a table. `conntrack` is
 * nf_conntrack_in (PRE_ROUTING and LOCAL_OUT, priority NF_IP_PRI_CONNTRACK = -200: after raw,
 * before mangle); `confirm` is nf_conntrack_confirm (LOCAL_IN and POST_ROUTING, priority
 * NF_IP_PRI_CONNTRACK_CONFIRM = INT_MAX: after every table); `reroute` is the routing again
 * that OUTPUT does when mangle or nat changed the packet (ip_route_me_harder, called from
 * ipt_mangle_out and nf_nat_ipv4_local_fn, before filter OUTPUT).
 * (include/uapi/linux/netfilter_ipv4.h; net/netfilter/nf_conntrack_proto.c ipv4_conntrack_ops;
 * net/ipv4/netfilter/iptable_mangle.c; net/netfilter/nf_nat_proto.c)
 */
export type KernelRow = TableName | 'conntrack' | 'confirm' | 'reroute';

/**
 * A row's key as the trace's events name it: a KernelRow, `ipvs`, `nat-core`, or an nft base
 * chain as `nft <family> <table> <chain>` (the worker's HookRowView.key).
 */
export type RowName = string;

/**
 * Rows of each hook of a host with iptables rules only, in the kernel's priority order; the
 * worker sends every node's real rows (cluster/hook-rows.ts), these draw a result without them.
 */
export const HOOK_ROWS: Readonly<Record<Hook, readonly KernelRow[]>> = {
  PREROUTING: ['raw', 'conntrack', 'mangle', 'nat'],
  INPUT: ['mangle', 'filter', 'security', 'nat', 'confirm'],
  FORWARD: ['mangle', 'filter', 'security'],
  OUTPUT: ['raw', 'conntrack', 'mangle', 'nat', 'reroute', 'filter', 'security'],
  POSTROUTING: ['mangle', 'nat', 'confirm'],
};

const TABLE_ROWS: ReadonlySet<string> = new Set(['raw', 'mangle', 'nat', 'filter', 'security']);
export const isTable = (r: RowName): r is TableName => TABLE_ROWS.has(r);

export const NODE_W = 782;
export const NODE_H = 352;
export const SIMPLE_W = 200;
export const SIMPLE_H = 92;
/** Height of one row inside a hook box, and of the box's title. */
export const STRIP_H = 18;
export const HOOK_TITLE_H = 24;
/** An nft base chain's row: two lines (its table and priority, then the chain's name). */
export const NFT_ROW_H = 30;
const HOOK_PAD = 6;
export const HOOK_W = 148;

/** Height of a hook box whose rows are `rowsH` pixels high together (STRIP_H each, nft rows NFT_ROW_H). */
export const hookHeight = (rowsH: number): number => HOOK_TITLE_H + rowsH + HOOK_PAD;

/** A row as the geometry sees it: its key and height. */
export interface RowBox {
  readonly row: RowName;
  readonly h: number;
}

const ROW_A = 46;
const ROW_B = 178;

/** Top-left corner of each hook box (heights follow the rows a host has). */
export const HOOK_AT: Readonly<Record<Hook, Point>> = {
  PREROUTING: { x: 14, y: ROW_A },
  FORWARD: { x: 341, y: ROW_A },
  POSTROUTING: { x: 620, y: ROW_A },
  INPUT: { x: 122, y: ROW_B },
  OUTPUT: { x: 620, y: ROW_B },
};

/** The line the request travels along in the top row (the middle of PREROUTING's rows). */
const MAIN_Y = ROW_A + HOOK_TITLE_H + 2 * STRIP_H;
export const ROUTE_IN: Point = { x: 196, y: MAIN_Y };
export const ROUTE_OUT: Point = { x: 591, y: 284 };
export const DIAMOND = 14;
export const LOCAL_STRIP: Rect = { x: 14, y: 314, w: 548, h: 30 };
/** The node's conntrack table: the entry the packet carries, drawn between INPUT and OUTPUT. */
export const CT_BOX: Rect = { x: 284, y: ROW_B, w: 278, h: 124 };
export const NIC_BAR_H = 20;

export const center = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
export const add = (a: Point, b: Point): Point => ({ x: a.x + b.x, y: a.y + b.y });

export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly points: readonly Point[];
}

/**
 * Where a node's parts sit, once its hook boxes' heights are known: the top row of hooks at
 * ROW_A, INPUT and OUTPUT (with the conntrack table between them) below the tallest of them, the
 * local sockets below those, and the node as tall as its content. With few rows this is the
 * fixed drawing above; a host with many rows (kube-proxy's nft base chains beside iptables'
 * tables) gets taller boxes and the rest moves down, so no box overlaps another.
 */
export interface NodeGeometry {
  readonly hookAt: Readonly<Record<Hook, Point>>;
  readonly routeIn: Point;
  readonly routeOut: Point;
  readonly local: Rect;
  readonly ct: Rect;
  /** The node's height without the bridge band (see bridgeBand). */
  readonly stackH: number;
}

/**
 * A node with a Linux bridge: a band this high under the local sockets, the bridge drawn in it
 * right on top of the pods' veth bars (its ports on the node's bottom edge).
 */
export const BRIDGE_BAND_H = 50;
export const BRIDGE_H = 40;
/** Where a bridged frame runs along the bridge: between its caption and the ports' hairpin marks. */
export const BRIDGE_LANE = 21;

/** Gap between the top row of hooks and the row below it (the route-in → INPUT arrow). */
const ROW_GAP = 24;

/** The geometry of a node whose hook `hook` has rows `rowsH(hook)` pixels high together. */
export function nodeGeometry(rowsH: (hook: Hook) => number): NodeGeometry {
  const hh = (k: Hook) => hookHeight(rowsH(k));
  const top = Math.max(hh('PREROUTING'), hh('FORWARD'), hh('POSTROUTING'));
  const rowB = Math.max(ROW_B, ROW_A + top + ROW_GAP);
  const down = rowB - ROW_B;
  const routeOut = { x: ROUTE_OUT.x, y: ROUTE_OUT.y + down };
  // The local strip sits below INPUT and the conntrack table, and below the route-out diamond.
  const localY = Math.max(LOCAL_STRIP.y + down, rowB + hh('INPUT') + 16, routeOut.y + DIAMOND + 16);
  const stackH = Math.max(localY + NODE_H - LOCAL_STRIP.y, rowB + hh('OUTPUT') + 12);
  return {
    hookAt: {
      PREROUTING: HOOK_AT.PREROUTING,
      FORWARD: HOOK_AT.FORWARD,
      POSTROUTING: HOOK_AT.POSTROUTING,
      INPUT: { x: HOOK_AT.INPUT.x, y: rowB },
      OUTPUT: { x: HOOK_AT.OUTPUT.x, y: rowB },
    },
    routeIn: ROUTE_IN,
    routeOut,
    local: { ...LOCAL_STRIP, y: localY },
    ct: { ...CT_BOX, y: rowB },
    stackH,
  };
}

/** The pipeline's arrows, each as a polyline, keyed `from>to` by slot id; `rows` gives the height of each hook's rows. */
export function pipelineEdges(g: NodeGeometry, rows: (hook: Hook) => number): Edge[] {
  const P = g.hookAt;
  const right = (h: Hook) => P[h].x + HOOK_W;
  const mid = (h: Hook) => P[h].x + HOOK_W / 2;
  const { routeIn: RI, routeOut: RO, local: L } = g;
  const line = (from: string, to: string, ...points: Point[]): Edge => ({ from, to, points });
  return [
    line(
      'PREROUTING',
      'route-in',
      { x: right('PREROUTING'), y: MAIN_Y },
      { x: RI.x - DIAMOND, y: MAIN_Y },
    ),
    line('route-in', 'FORWARD', { x: RI.x + DIAMOND, y: MAIN_Y }, { x: P.FORWARD.x, y: MAIN_Y }),
    line(
      'FORWARD',
      'POSTROUTING',
      { x: right('FORWARD'), y: MAIN_Y },
      { x: P.POSTROUTING.x, y: MAIN_Y },
    ),
    line('route-in', 'INPUT', { x: RI.x, y: MAIN_Y + DIAMOND }, { x: RI.x, y: P.INPUT.y }),
    line(
      'INPUT',
      'local',
      { x: RI.x, y: P.INPUT.y + hookHeight(rows('INPUT')) },
      { x: RI.x, y: L.y },
    ),
    line(
      'local',
      'route-out',
      { x: L.x + L.w, y: L.y + L.h / 2 },
      { x: RO.x, y: L.y + L.h / 2 },
      { x: RO.x, y: RO.y + DIAMOND },
    ),
    line('route-out', 'OUTPUT', { x: RO.x + DIAMOND, y: RO.y }, { x: P.OUTPUT.x, y: RO.y }),
    line(
      'OUTPUT',
      'POSTROUTING',
      { x: mid('OUTPUT'), y: P.OUTPUT.y },
      { x: mid('POSTROUTING'), y: P.POSTROUTING.y + hookHeight(rows('POSTROUTING')) },
    ),
  ];
}

/** Where the token stands in a hook box `r`: on the row (right of its label), or the box centre. */
export function hookPoint(r: Rect, row: RowName | null, rows: readonly RowBox[]): Point {
  const i = row ? rows.findIndex((x) => x.row === row) : -1;
  if (i < 0) return center(r);
  const top = rows.slice(0, i).reduce((sum, x) => sum + x.h, 0);
  const h = (rows[i] as RowBox).h;
  // A two-line nft row: on its first line, between the table's name and the priority, so the
  // chain's name below stays readable.
  const y = h === NFT_ROW_H ? 8 : h / 2;
  return { x: r.x + r.w * 0.62, y: r.y + HOOK_TITLE_H + top + y };
}

/** The point at fraction `t` (0..1) of a polyline's length: the token's position mid-move. */
export function pointAlong(points: readonly Point[], t: number): Point {
  const first = points[0];
  if (!first) return { x: 0, y: 0 };
  if (points.length === 1 || t <= 0) return first;
  const lens: number[] = [];
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as Point;
    const b = points[i] as Point;
    const l = Math.hypot(b.x - a.x, b.y - a.y);
    lens.push(l);
    total += l;
  }
  if (total === 0 || t >= 1) return points[points.length - 1] as Point;
  let d = t * total;
  for (let i = 0; i < lens.length; i++) {
    const l = lens[i] as number;
    if (d <= l) {
      const a = points[i] as Point;
      const b = points[i + 1] as Point;
      const f = l === 0 ? 0 : d / l;
      return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
    }
    d -= l;
  }
  return points[points.length - 1] as Point;
}

/** Area shared by two rectangles (0 when they do not overlap). */
export function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Area of `r` outside `bounds`. */
function outside(r: Rect, bounds: Rect): number {
  return r.w * r.h - overlap(r, bounds);
}

/**
 * Where to put the token's label (its top-left corner relative to the token): never on the
 * `keepClear` box (the active hook), inside `bounds` (the visible part of the drawing) when it
 * fits, and hiding as little of the other boxes as possible. Candidates sit around the token
 * and around the kept-clear box, nearest first.
 */
export function labelOffset(
  at: Point,
  w: number,
  h: number,
  obstacles: readonly Rect[],
  keepClear: Rect | null = null,
  bounds: Rect | null = null,
): Point {
  const gap = 12;
  const candidates: Point[] = [
    { x: gap, y: -h - gap },
    { x: -w - gap, y: -h - gap },
    { x: gap, y: gap },
    { x: -w - gap, y: gap },
  ];
  if (keepClear) {
    const k = keepClear;
    const ys = [at.y - h / 2, k.y, k.y + k.h - h];
    for (const y of ys) {
      candidates.push({ x: k.x + k.w + gap - at.x, y: y - at.y });
      candidates.push({ x: k.x - w - gap - at.x, y: y - at.y });
    }
    for (const x of [at.x - w / 2, k.x, k.x + k.w - w]) {
      candidates.push({ x: x - at.x, y: k.y - h - gap - at.y });
      candidates.push({ x: x - at.x, y: k.y + k.h + gap - at.y });
    }
  }
  // In a narrow panel no side may fit whole: each candidate also slid inside the panel (a 400 px
  // embed), unless it then covers the packet itself.
  if (bounds)
    for (const c of [...candidates]) {
      const x = Math.min(Math.max(at.x + c.x, bounds.x), bounds.x + bounds.w - w) - at.x;
      const y = Math.min(Math.max(at.y + c.y, bounds.y), bounds.y + bounds.h - h) - at.y;
      const onPacket = x < gap && x + w > -gap && y < gap && y + h > -gap;
      if ((x !== c.x || y !== c.y) && !onPacket) candidates.push({ x, y });
    }
  let best = candidates[0] as Point;
  let bestScore = Infinity;
  candidates.forEach((c, i) => {
    const r = { x: at.x + c.x, y: at.y + c.y, w, h };
    const covered = obstacles.reduce((sum, o) => sum + overlap(r, o), 0);
    const clear = keepClear ? overlap(r, keepClear) : 0;
    const out = bounds ? outside(r, bounds) : 0;
    // Hard rules first (the active hook, then the panel's edges), then what it hides, then
    // distance (the order of the candidates).
    const score = clear * 1e9 + out * 1e5 + covered + i;
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  });
  return best;
}
