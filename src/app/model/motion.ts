/**
 * Where the packet token stands at a step, and the polyline it follows from the previous step:
 * through the pipeline's arrows inside a node, along the wire between hosts.
 */
import {
  LOCAL_STRIP,
  ROUTE_IN,
  ROUTE_OUT,
  add,
  center,
  hookPoint,
  type Point,
} from './geometry.ts';
import type { DiagramLayout, HostBox, IfaceBox } from './layout.ts';
import type { Slot, Step } from './timeline.ts';

type SlotId =
  | 'in'
  | 'PREROUTING'
  | 'route-in'
  | 'INPUT'
  | 'local'
  | 'route-out'
  | 'OUTPUT'
  | 'FORWARD'
  | 'POSTROUTING'
  | 'out';

const GRAPH: Readonly<Record<SlotId, readonly SlotId[]>> = {
  in: ['PREROUTING'],
  PREROUTING: ['route-in'],
  'route-in': ['INPUT', 'FORWARD'],
  INPUT: ['local'],
  local: ['route-out'],
  'route-out': ['OUTPUT'],
  OUTPUT: ['POSTROUTING'],
  FORWARD: ['POSTROUTING'],
  POSTROUTING: ['out'],
  out: [],
};

function slotId(s: Slot): SlotId {
  return s.kind === 'hook' ? s.hook : s.kind;
}

/** Shortest walk along the pipeline's arrows; null when the slots are not connected forwards. */
export function pipelineWalk(from: SlotId, to: SlotId): SlotId[] | null {
  const prev = new Map<SlotId, SlotId | null>([[from, null]]);
  const queue: SlotId[] = [from];
  while (queue.length) {
    const cur = queue.shift() as SlotId;
    if (cur === to) {
      const path: SlotId[] = [];
      for (let s: SlotId | null = cur; s; s = prev.get(s) ?? null) path.unshift(s);
      return path;
    }
    for (const n of GRAPH[cur]) {
      if (prev.has(n)) continue;
      prev.set(n, cur);
      queue.push(n);
    }
  }
  return null;
}

export function hostBox(layout: DiagramLayout, name: string): HostBox | undefined {
  return layout.hosts.find((h) => h.name === name);
}

function ifaceOf(h: HostBox, name: string): IfaceBox | undefined {
  return h.ifaces.find((i) => i.name === name);
}

const origin = (h: HostBox): Point => ({ x: h.x, y: h.y });
const boxCentre = (h: HostBox): Point => ({ x: h.x + h.w / 2, y: h.y + h.h / 2 });

/** The token's resting point for a slot of a host. */
export function slotPoint(layout: DiagramLayout, host: string, slot: Slot): Point {
  const h = hostBox(layout, host);
  if (!h) return { x: 0, y: 0 };
  if (slot.kind === 'in' || slot.kind === 'out') {
    const i = ifaceOf(h, slot.iface);
    if (i) return slot.kind === 'in' ? i.inPoint : i.outPoint;
    // lo (and interfaces with no drawn wire): the packet turns round inside the host.
    return h.pipeline ? add(origin(h), { x: h.w / 2, y: 9 }) : boxCentre(h);
  }
  if (slot.kind === 'local' && slot.process) {
    const p = h.processes.find((q) => q.name === slot.process);
    // The chip's left end: its name, centred, stays readable under the token.
    if (p) return h.pipeline ? { x: p.at.x - p.w / 2 + 11, y: p.at.y } : p.at;
  }
  if (!h.pipeline) return boxCentre(h);
  switch (slot.kind) {
    case 'hook': {
      const rows = h.hooks.find((k) => k.hook === slot.hook)?.rows ?? [];
      return add(origin(h), hookPoint(slot.hook, slot.row, rows));
    }
    case 'route-in':
      return add(origin(h), ROUTE_IN);
    case 'route-out':
      return add(origin(h), ROUTE_OUT);
    case 'local':
      // No socket: between the strip's caption and the chips, so no process looks reached.
      return add(origin(h), { x: LOCAL_STRIP.x + 104, y: LOCAL_STRIP.y + LOCAL_STRIP.h / 2 });
  }
}

function waypoint(h: HostBox, id: SlotId): Point {
  switch (id) {
    case 'route-in':
      return add(origin(h), ROUTE_IN);
    case 'route-out':
      return add(origin(h), ROUTE_OUT);
    case 'local':
      return add(origin(h), { x: ROUTE_IN.x, y: LOCAL_STRIP.y + LOCAL_STRIP.h / 2 });
    case 'in':
    case 'out':
      return boxCentre(h);
    default: {
      const box = h.hooks.find((k) => k.hook === id)?.box;
      return box ? center(box) : boxCentre(h);
    }
  }
}

/** The polyline from the previous step's point to this step's point. */
export function motionPath(layout: DiagramLayout, prev: Step | null, cur: Step): Point[] {
  const end = slotPoint(layout, cur.host, cur.slot);
  if (!prev) return [end];
  const start = slotPoint(layout, prev.host, prev.slot);
  if (prev.host !== cur.host) return [start, ...wirePath(layout, prev, cur), end];
  const h = hostBox(layout, cur.host);
  if (!h || !h.pipeline) return [start, end];
  const walk = pipelineWalk(slotId(prev.slot), slotId(cur.slot));
  if (!walk || walk.length < 2) return gutter(h, prev.slot, cur.slot, start, end);
  // Along the arrows the node draws; a waypoint where there is no arrow (in, out).
  const mids: Point[] = [];
  walk.forEach((id, i) => {
    const next = walk[i + 1];
    if (!next) return;
    const edge = h.edges.find((e) => e.from === id && e.to === next);
    if (edge) mids.push(...edge.points);
    else if (i + 1 < walk.length - 1) mids.push(waypoint(h, next));
  });
  return gutter(h, prev.slot, cur.slot, start, end, mids);
}

/** Interfaces on the bottom edge (veth to pods) are reached along the node's side gutters. */
function gutter(
  h: HostBox,
  a: Slot,
  b: Slot,
  start: Point,
  end: Point,
  mids: Point[] = [],
): Point[] {
  const bottom = (s: Slot) =>
    (s.kind === 'in' || s.kind === 'out') && ifaceOf(h, s.iface)?.side === 'bottom';
  const pts = [start, ...mids, end];
  if (bottom(a) && a.kind === 'in') {
    const gx = h.x + 12;
    pts.splice(1, 0, { x: gx, y: start.y }, { x: gx, y: h.y + ROUTE_IN.y });
  }
  if (bottom(b) && b.kind === 'out') {
    const gx = h.x + h.w - 12;
    pts.splice(pts.length - 1, 0, { x: gx, y: h.y + ROUTE_IN.y }, { x: gx, y: end.y });
  }
  return pts;
}

/** Between hosts: out of the interface, along the bus (or the veth), into the other one. */
function wirePath(layout: DiagramLayout, prev: Step, cur: Step): Point[] {
  const a = hostBox(layout, prev.host);
  const b = hostBox(layout, cur.host);
  const ai = prev.slot.kind === 'out' && a ? ifaceOf(a, prev.slot.iface) : undefined;
  const bi = cur.slot.kind === 'in' && b ? ifaceOf(b, cur.slot.iface) : undefined;
  if (!ai || !bi) return [];
  const wire = layout.wires.find(
    (w) =>
      w.attachments.some((x) => x.host === prev.host && x.iface === ai.name) &&
      w.attachments.some((x) => x.host === cur.host && x.iface === bi.name),
  );
  if (wire?.busY != null)
    return [ai.port, { x: ai.port.x, y: wire.busY }, { x: bi.port.x, y: wire.busY }, bi.port];
  const midY = (ai.port.y + bi.port.y) / 2;
  return [ai.port, { x: ai.port.x, y: midY }, { x: bi.port.x, y: midY }, bi.port];
}
