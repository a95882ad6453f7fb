/**
 * Where the camera looks: the host the packet is on, framed large enough to read (follow), or
 * the whole cluster (overview). Pure: the zoom behaviour in diagram/camera.ts only animates to
 * the transforms computed here.
 */
import { NODE_H, NODE_W, type Rect } from './geometry.ts';
import type { DiagramLayout } from './layout.ts';

export interface Size {
  readonly w: number;
  readonly h: number;
}

/** Parts of the panel covered by overlays (packet header, mini-map): the frame avoids them. */
export interface Insets {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

/** A d3-zoom transform: screen = layout × k + (x, y). */
export interface Transform {
  readonly k: number;
  readonly x: number;
  readonly y: number;
}

/** Room around a node: its interface bars stick out above and below. */
const PAD_X = 8;
const PAD_TOP = 18;
const PAD_BOTTOM = 12;
/** Every frame is at least a node's size, so the zoom stays the same from host to host. */
export const FRAME_W = NODE_W + 2 * PAD_X;
export const FRAME_H = NODE_H + PAD_TOP + PAD_BOTTOM;

/** The part of the drawing to frame when the packet is on `host`. */
export function focusRect(layout: DiagramLayout, host: string): Rect {
  const h = layout.hosts.find((x) => x.name === host);
  if (!h) return { x: 0, y: 0, w: layout.width, h: layout.height };
  // A node taller than usual (many rows, a bridge) is framed whole: the zoom is a little smaller.
  if (h.pipeline)
    return {
      x: h.x - PAD_X,
      y: h.y - PAD_TOP,
      w: h.w + 2 * PAD_X,
      h: Math.max(FRAME_H, h.h + PAD_TOP + PAD_BOTTOM),
    };
  // A client, pod or router: a node-sized frame around it, kept on the drawing, so its
  // neighbours (the node a pod hangs under, the wire a client sends on) give context.
  const clamp = (v: number, size: number, total: number) =>
    total <= size ? (total - size) / 2 : Math.min(Math.max(v, 0), total - size);
  return {
    x: clamp(h.x + h.w / 2 - FRAME_W / 2, FRAME_W, layout.width),
    y: clamp(h.y + h.h / 2 - FRAME_H / 2, FRAME_H, layout.height),
    w: FRAME_W,
    h: FRAME_H,
  };
}

/** The transform that shows `r` centred in the panel's free area, no larger than `kMax`. */
export function frameTransform(r: Rect, view: Size, insets: Insets, kMax: number): Transform {
  const aw = Math.max(1, view.w - insets.left - insets.right);
  const ah = Math.max(1, view.h - insets.top - insets.bottom);
  const k = Math.min(aw / r.w, ah / r.h, kMax);
  return {
    k,
    x: insets.left + (aw - r.w * k) / 2 - r.x * k,
    y: insets.top + (ah - r.h * k) / 2 - r.y * k,
  };
}

/** The whole cluster. */
export function overviewTransform(
  layout: DiagramLayout,
  view: Size,
  insets: Insets,
  kMax = 1.25,
): Transform {
  return frameTransform({ x: 0, y: 0, w: layout.width, h: layout.height }, view, insets, kMax);
}

/** The part of the drawing a transform shows in `view` (minus `insets`), in layout units. */
export function visibleRect(t: Transform, view: Size, insets: Insets | null = null): Rect {
  const i = insets ?? { top: 0, right: 0, bottom: 0, left: 0 };
  return {
    x: (i.left - t.x) / t.k,
    y: (i.top - t.y) / t.k,
    w: Math.max(0, view.w - i.left - i.right) / t.k,
    h: Math.max(0, view.h - i.top - i.bottom) / t.k,
  };
}

/** Largest follow zoom: big screens show a node large, not gigantic. */
export const FOLLOW_MAX_K = 1.7;

/** Below this zoom a node's labels get too small to read: a narrow panel pans along the node instead. */
export const READABLE_K = 0.85;

/**
 * The follow camera's transform: the whole focused host when it fits at a readable size, else
 * the readable-size window of that host that keeps the packet (`at`) in view.
 */
export function followTransform(
  layout: DiagramLayout,
  host: string,
  at: { x: number; y: number },
  view: Size,
  insets: Insets,
): Transform {
  const f = focusRect(layout, host);
  const whole = frameTransform(f, view, insets, FOLLOW_MAX_K);
  if (whole.k >= READABLE_K) return whole;
  const aw = Math.max(1, view.w - insets.left - insets.right) / READABLE_K;
  const ah = Math.max(1, view.h - insets.top - insets.bottom) / READABLE_K;
  const slide = (p: number, start: number, size: number, win: number) =>
    win >= size ? start + size / 2 : Math.min(Math.max(p, start + win / 2), start + size - win / 2);
  const cx = slide(at.x, f.x, f.w, aw);
  const cy = slide(at.y, f.y, f.h, ah);
  // Exactly the readable zoom: framing the window would give aw / (aw / K), a hair under K in
  // floating point, and labels sized to be readable at K a hair under their size.
  const k = READABLE_K;
  return {
    k,
    x: insets.left + (aw * k) / 2 - cx * k,
    y: insets.top + (ah * k) / 2 - cy * k,
  };
}
