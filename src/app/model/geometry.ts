/**
 * The fixed drawing of one node: the netfilter pipeline as engineers draw it (PREROUTING →
 * routing decision → INPUT → local process, or → FORWARD → POSTROUTING; local traffic takes
 * routing → OUTPUT → POSTROUTING). Coordinates are relative to the node's top-left corner.
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

export const NODE_W = 380;
export const NODE_H = 300;
export const SIMPLE_W = 176;
export const SIMPLE_H = 84;
/** Height of one table strip inside a hook box. */
export const STRIP_H = 14;
export const HOOK_TITLE_H = 18;

/** Tables each hook runs, in the kernel's priority order (include/uapi/linux/netfilter_ipv4.h). */
export const HOOK_TABLES: Readonly<Record<Hook, readonly TableName[]>> = {
  PREROUTING: ['raw', 'mangle', 'nat'],
  INPUT: ['mangle', 'filter', 'security', 'nat'],
  FORWARD: ['mangle', 'filter', 'security'],
  OUTPUT: ['raw', 'mangle', 'nat', 'filter', 'security'],
  POSTROUTING: ['mangle', 'nat'],
};

export const HOOK_BOXES: Readonly<Record<Hook, Rect>> = {
  PREROUTING: { x: 24, y: 60, w: 84, h: 80 },
  FORWARD: { x: 168, y: 60, w: 84, h: 80 },
  POSTROUTING: { x: 272, y: 60, w: 84, h: 80 },
  INPUT: { x: 94, y: 165, w: 84, h: 80 },
  OUTPUT: { x: 272, y: 165, w: 84, h: 80 },
};

export const ROUTE_IN: Point = { x: 136, y: 100 };
export const ROUTE_OUT: Point = { x: 232, y: 205 };
export const DIAMOND = 13;
export const LOCAL_STRIP: Rect = { x: 24, y: 262, w: 332, h: 26 };
export const NIC_BAR_H = 18;

export const center = (r: Rect): Point => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
export const add = (a: Point, b: Point): Point => ({ x: a.x + b.x, y: a.y + b.y });

/** The pipeline's arrows, each as a polyline, keyed `from>to` by slot id. */
const P = HOOK_BOXES;
export const PIPELINE_EDGES: ReadonlyArray<{
  readonly from: string;
  readonly to: string;
  readonly points: readonly Point[];
}> = [
  {
    from: 'PREROUTING',
    to: 'route-in',
    points: [
      { x: P.PREROUTING.x + P.PREROUTING.w, y: ROUTE_IN.y },
      { x: ROUTE_IN.x - DIAMOND, y: ROUTE_IN.y },
    ],
  },
  {
    from: 'route-in',
    to: 'FORWARD',
    points: [
      { x: ROUTE_IN.x + DIAMOND, y: ROUTE_IN.y },
      { x: P.FORWARD.x, y: ROUTE_IN.y },
    ],
  },
  {
    from: 'FORWARD',
    to: 'POSTROUTING',
    points: [
      { x: P.FORWARD.x + P.FORWARD.w, y: ROUTE_IN.y },
      { x: P.POSTROUTING.x, y: ROUTE_IN.y },
    ],
  },
  {
    from: 'route-in',
    to: 'INPUT',
    points: [
      { x: ROUTE_IN.x, y: ROUTE_IN.y + DIAMOND },
      { x: ROUTE_IN.x, y: P.INPUT.y },
    ],
  },
  {
    from: 'INPUT',
    to: 'local',
    points: [
      { x: ROUTE_IN.x, y: P.INPUT.y + P.INPUT.h },
      { x: ROUTE_IN.x, y: LOCAL_STRIP.y },
    ],
  },
  {
    from: 'local',
    to: 'route-out',
    points: [
      { x: ROUTE_OUT.x, y: LOCAL_STRIP.y },
      { x: ROUTE_OUT.x, y: ROUTE_OUT.y + DIAMOND },
    ],
  },
  {
    from: 'route-out',
    to: 'OUTPUT',
    points: [
      { x: ROUTE_OUT.x + DIAMOND, y: ROUTE_OUT.y },
      { x: P.OUTPUT.x, y: ROUTE_OUT.y },
    ],
  },
  {
    from: 'OUTPUT',
    to: 'POSTROUTING',
    points: [
      { x: P.OUTPUT.x + P.OUTPUT.w / 2, y: P.OUTPUT.y },
      { x: P.POSTROUTING.x + P.POSTROUTING.w / 2, y: P.POSTROUTING.y + P.POSTROUTING.h },
    ],
  },
];

/** Where the token stands in a hook box: on the table's strip, or the box centre. */
export function hookPoint(
  hook: Hook,
  table: TableName | null,
  tables: readonly TableName[],
): Point {
  const r = HOOK_BOXES[hook];
  const i = table ? tables.indexOf(table) : -1;
  if (i < 0) return center(r);
  return { x: r.x + r.w / 2, y: r.y + HOOK_TITLE_H + i * STRIP_H + STRIP_H / 2 };
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

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Where to put the token's label around the token so it hides as little of the drawing as
 * possible: the first of four corners with the least overlap with the given boxes.
 */
export function labelOffset(at: Point, w: number, h: number, obstacles: readonly Rect[]): Point {
  const gap = 12;
  const candidates: Point[] = [
    { x: gap, y: -h - gap },
    { x: -w - gap, y: -h - gap },
    { x: gap, y: gap },
    { x: -w - gap, y: gap },
  ];
  let best = candidates[0] as Point;
  let bestScore = Infinity;
  for (const c of candidates) {
    const r = { x: at.x + c.x, y: at.y + c.y, w, h };
    const score = obstacles.reduce((sum, o) => sum + overlap(r, o), 0);
    if (score < bestScore - 1) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
