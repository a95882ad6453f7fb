/**
 * Where the packet token stands at a step, and the polyline it follows from the previous step:
 * through the pipeline's arrows inside a node, along the wire between hosts.
 */
import {
  BRIDGE_LANE,
  ROUTE_IN,
  add,
  center,
  hookPoint,
  nodeGeometry,
  type NodeGeometry,
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
const FIXED = nodeGeometry(() => 0);
const geoOf = (h: HostBox): NodeGeometry => h.geo ?? FIXED;
const boxCentre = (h: HostBox): Point => ({ x: h.x + h.w / 2, y: h.y + h.h / 2 });

/** The token's resting point for a slot of a host. */
export function slotPoint(layout: DiagramLayout, host: string, slot: Slot): Point {
  const h = hostBox(layout, host);
  if (!h) return { x: 0, y: 0 };
  if (slot.kind === 'in' || slot.kind === 'out') {
    const b = bridgePoint(h, slot);
    if (b) return b;
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
      const k = h.hooks.find((v) => v.hook === slot.hook);
      return k ? hookPoint(k.box, slot.row, k.rows) : boxCentre(h);
    }
    case 'route-in':
      return add(origin(h), geoOf(h).routeIn);
    case 'route-out':
      return add(origin(h), geoOf(h).routeOut);
    case 'local': {
      // No socket: between the strip's caption and the chips, so no process looks reached.
      const L = geoOf(h).local;
      return add(origin(h), { x: L.x + 104, y: L.y + L.h / 2 });
    }
  }
}

/**
 * A bridge's step: on the bridge, above the port (left of its centre coming in, right going
 * out, as on the veth bars); null when the slot is not the bridge's or it is not drawn.
 */
function bridgePoint(h: HostBox, slot: Slot): Point | null {
  if ((slot.kind !== 'in' && slot.kind !== 'out') || !slot.bridge) return null;
  const b = h.bridge?.name === slot.bridge ? h.bridge : null;
  const port = b?.ports.find((p) => p.iface === slot.iface);
  if (!b || !port) return null;
  return { x: port.x + (slot.kind === 'in' ? -8 : 8), y: b.y + BRIDGE_LANE };
}

const onBridge = (h: HostBox, s: Slot) => bridgePoint(h, s) !== null;

/**
 * Along the bridge, from port to port (or down to the veth it leaves by); a hairpin (out by the
 * way in) dips towards the port and comes back up.
 */
function bridgePath(start: Point, end: Point): Point[] {
  if (Math.abs(start.x - end.x) > 20 || start.y !== end.y) return [start, end];
  const dip = start.y + 10;
  return [start, { x: start.x, y: dip }, { x: end.x, y: dip }, end];
}

function waypoint(h: HostBox, id: SlotId): Point {
  switch (id) {
    case 'route-in':
      return add(origin(h), geoOf(h).routeIn);
    case 'route-out':
      return add(origin(h), geoOf(h).routeOut);
    case 'local': {
      const L = geoOf(h).local;
      return add(origin(h), { x: geoOf(h).routeIn.x, y: L.y + L.h / 2 });
    }
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
  // The same place (the wire after the bridge's xmit on that veth): no move.
  if (start.x === end.x && start.y === end.y) return [start, end];
  // Between the bridge's ports, or from the bridge out of a veth: the frame stays at L2.
  if (onBridge(h, prev.slot) && (onBridge(h, cur.slot) || cur.slot.kind === 'out'))
    return bridgePath(start, end);
  // Back down to the bridge (a hairpin dropped after PREROUTING): along the left gutter, not
  // through hooks the frame never reached.
  if (onBridge(h, cur.slot)) {
    const gx = h.x + 12;
    return [start, { x: gx, y: start.y }, { x: gx, y: end.y }, end];
  }
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
    // A port of the bridge: the frame leaves through the bridge, along its band, to the veth.
    const port = h.bridge?.ports.find((p) => p.iface === b.iface);
    const y = port && h.bridge ? h.bridge.y + BRIDGE_LANE : end.y;
    pts.splice(pts.length - 1, 0, { x: gx, y: h.y + ROUTE_IN.y }, { x: gx, y });
    if (y !== end.y) pts.splice(pts.length - 1, 0, { x: end.x, y });
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
