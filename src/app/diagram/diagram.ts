/**
 * The diagram as an imperative factory (as xyflow wraps d3 behaviours): React creates it once in
 * an effect, calls `update` with a pure scene, and `destroy` on unmount. D3 owns only this SVG
 * (and the mini-map's). The camera follows the packet from host to host, shows the whole
 * cluster, or stays where the user put it.
 */
import { select, type Selection } from 'd3-selection';
import 'd3-transition';
import { easeCubicInOut } from 'd3-ease';
import { overlap, pointAlong, type Rect } from '../model/geometry.ts';
import type { Scene, SceneStep, StripMark } from '../model/scene.ts';
import {
  followTransform,
  overviewTransform,
  visibleRect,
  type Insets,
  type Transform,
} from '../model/camera.ts';
import { drawHosts, drawWires, type DiagramText } from './draw-static.ts';
import { createCamera, type CameraMode } from './camera.ts';
import { createMinimap, type Minimap } from './minimap.ts';
import { createToken } from './token.ts';
import { drawEnd, drawTrail, highlight } from './marks.ts';
import { drawCtEntries } from './ct-entry.ts';
import type { CtShown } from '../model/conntrack.ts';

export type { CameraMode };

export interface DiagramFrame {
  readonly scene: Scene | null;
  readonly step: number;
  readonly run: number;
  readonly marks: readonly StripMark[];
  /** Each node's conntrack entry at this step. */
  readonly ct: readonly CtShown[];
  /** Time the token takes to reach this step; 0 jumps (reduced motion, seeking). */
  readonly durationMs: number;
  readonly stale: boolean;
}

export interface DiagramOptions {
  /** Panel areas covered by overlays, per camera mode. */
  insets(mode: CameraMode): Insets;
  /** The camera mode changed (the user panned: `free`). */
  onMode?(mode: CameraMode): void;
  minimap?: SVGSVGElement | null;
  /** The page scrolls around the diagram (an embed): see camera.ts's pageGestures. */
  pageScrolls?: boolean;
}

export interface DiagramInstance {
  update(frame: DiagramFrame): void;
  /** New language: the texts drawn into the SVG. */
  setText(text: DiagramText): void;
  setMode(mode: Exclude<CameraMode, 'free'>): void;
  mode(): CameraMode;
  /** Re-frames after the panel changed size. */
  resize(): void;
  zoomBy(k: number): void;
  destroy(): void;
}

type G = Selection<SVGGElement, unknown, null, undefined>;

const union = (a: Rect | null, b: Rect): Rect => {
  if (!a) return b;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
};

const NO_INSETS: Insets = { top: 0, right: 0, bottom: 0, left: 0 };

// eslint-disable-next-line max-lines-per-function -- a factory: the methods it returns share this closure's state
export function createDiagram(
  svgEl: SVGSVGElement,
  initialText: DiagramText,
  opts: DiagramOptions = { insets: () => NO_INSETS },
): DiagramInstance {
  let text = initialText;
  const svg = select(svgEl).attr('class', 'diagram-svg');
  const defs = svg.append('defs');
  defs
    .append('marker')
    .attr('id', 'hp-arrow')
    .attr('viewBox', '0 0 10 10')
    .attr('refX', 9)
    .attr('refY', 5)
    .attr('markerWidth', 6)
    .attr('markerHeight', 6)
    .attr('orient', 'auto-start-reverse')
    .append('path')
    .attr('class', 'arrow-head')
    .attr('d', 'M0,0L10,5L0,10z');
  const viewport: G = svg.append('g').attr('class', 'viewport');
  const wires: G = viewport.append('g').attr('class', 'wires');
  const hosts: G = viewport.append('g').attr('class', 'hosts');
  const trail: G = viewport.append('g').attr('class', 'trail');
  const marks: G = viewport.append('g').attr('class', 'end-marks');
  const token = createToken(viewport);
  const minimap: Minimap | null = opts.minimap ? createMinimap(opts.minimap) : null;

  let mode: CameraMode = 'follow';
  let scene: Scene | null = null;
  let lastStep = -1;
  let lastFrame: DiagramFrame | null = null;
  /** Where the camera is going (the label is placed for that view, not the one in between). */
  let target: Transform | null = null;
  /** Boxes the label should not hide: hooks, sockets, conntrack tables, compact hosts. */
  let obstacles: Rect[] = [];

  const size = () => ({ w: svgEl.clientWidth || 960, h: svgEl.clientHeight || 540 });
  const setMode = (m: CameraMode) => {
    if (m === mode) return;
    mode = m;
    svg.attr('data-camera', m);
    opts.onMode?.(m);
  };
  svg.attr('data-camera', mode);
  const camera = createCamera(
    svg,
    viewport,
    size,
    (t, byUser) => {
      if (byUser) {
        target = null;
        setMode('free');
      }
      refreshMinimap(t);
    },
    { pageScrolls: opts.pageScrolls ?? false },
  );

  const refreshMinimap = (t: Transform) => {
    const s =
      scene && lastFrame ? scene.steps[Math.min(lastFrame.step, scene.steps.length - 1)] : null;
    if (!minimap || !scene || !s) return;
    minimap.update(
      s.host,
      scene.trail.filter((x) => x.step <= s.index).map((x) => x.points),
      s.at,
      visibleRect(t, size(), opts.insets(mode)),
    );
  };

  /** Where the camera should be for this step in the current mode (null: the user's view). */
  const aimFor = (s: SceneStep): Transform | null => {
    if (!scene) return null;
    const view = size();
    if (mode === 'follow')
      return followTransform(scene.layout, s.host, s.at, view, opts.insets(mode));
    if (mode === 'overview') return overviewTransform(scene.layout, view, opts.insets(mode));
    return null;
  };

  const aim = (s: SceneStep, ms: number) => {
    const t = aimFor(s);
    if (!t) return;
    // Within one host a wide panel keeps its frame; a narrow one pans along with the packet.
    const same =
      target &&
      Math.abs(target.k - t.k) + Math.abs(target.x - t.x) + Math.abs(target.y - t.y) < 0.5;
    if (same && ms > 0) return;
    target = t;
    camera.aim(t, ms);
  };

  const placeLabel = (s: SceneStep) => {
    if (!scene) return;
    const t = target ?? camera.current();
    const bounds = visibleRect(t, size(), opts.insets(mode));
    const h = scene.layout.hosts.find((x) => x.name === s.host);
    const hook = s.hook ? (h?.hooks.find((k) => k.hook === s.hook)?.box ?? null) : null;
    const chip = s.process ? h?.processes.find((p) => p.name === s.process) : undefined;
    // On a compact host (a client) with nothing else to point at, the host's name and address
    // stay readable: the label goes beside the box, not over it.
    const compact = h && !h.pipeline ? { x: h.x, y: h.y, w: h.w, h: h.h } : null;
    // On the bridge (its ports, br_netfilter's state) the label goes above or below it.
    const b = h?.bridge;
    const bridge = b && overlap(b, { x: s.at.x, y: s.at.y, w: 1, h: 1 }) > 0 ? b : null;
    let keepClear =
      hook ??
      bridge ??
      (chip ? { x: chip.at.x - chip.w / 2, y: chip.at.y - 10, w: chip.w, h: 20 } : compact);
    // The end mark (its cross and the DROP under it) stays visible too.
    if (s.end) keepClear = union(keepClear, { x: s.at.x - 30, y: s.at.y - 16, w: 60, h: 54 });
    token.label(s, obstacles, keepClear, bounds);
  };

  const render = (frame: DiagramFrame, animate: boolean) => {
    if (!scene) return;
    const s = scene.steps[Math.min(frame.step, scene.steps.length - 1)];
    if (!s) {
      token.g.style('display', 'none');
      return;
    }
    token.g.style('display', null);
    highlight(hosts, scene, s, frame.marks, frame.run);
    drawTrail(trail, scene, s.index);
    drawEnd(marks, s);
    drawCtEntries(hosts, frame.ct, text, s.at);
    const forward =
      animate && s.index === lastStep + 1 && frame.durationMs > 0 && s.path.length > 1;
    // Follow: glide to the next host as the packet crosses the wire (in step with the token).
    if (mode !== 'free') aim(s, forward ? frame.durationMs * 0.85 : 0);
    placeLabel(s);
    token.g.interrupt();
    lastStep = s.index;
    refreshMinimap(target ?? camera.current());
    if (!forward) {
      token.g.attr('transform', `translate(${s.at.x},${s.at.y})`);
      return;
    }
    token.g
      .transition()
      .duration(frame.durationMs * 0.85)
      .ease(easeCubicInOut)
      .attrTween('transform', () => (t: number) => {
        const p = pointAlong(s.path, t);
        return `translate(${p.x},${p.y})`;
      });
  };

  const drawStatic = (layout: Scene['layout']) => {
    drawWires(wires, layout);
    drawHosts(hosts, layout, text);
    minimap?.draw(layout);
    obstacles = layout.hosts.flatMap((h) => [
      ...h.hooks.map((k) => k.box),
      ...(h.ct ? [h.ct] : []),
      ...(h.bridge ? [h.bridge] : []),
      ...h.processes.map((p) => ({ x: p.at.x - p.w / 2, y: p.at.y - 10, w: p.w, h: 20 })),
      // A node's interface bar and title, a compact host whole.
      h.pipeline ? { x: h.x, y: h.y - 12, w: h.w, h: 46 } : { x: h.x, y: h.y, w: h.w, h: h.h },
    ]);
  };

  return {
    update(frame) {
      svg.classed('stale', frame.stale);
      lastFrame = frame;
      if (!frame.scene) {
        scene = null;
        token.g.style('display', 'none');
        return;
      }
      let fresh = false;
      if (frame.scene.layout !== scene?.layout) {
        drawStatic(frame.scene.layout);
        fresh = true;
      }
      scene = frame.scene;
      render(frame, !fresh);
    },
    setText(next) {
      text = next;
      if (!scene || !lastFrame) return;
      drawStatic(scene.layout);
      render(lastFrame, false);
    },
    setMode(m) {
      setMode(m);
      const s =
        scene && lastFrame ? scene.steps[Math.min(lastFrame.step, scene.steps.length - 1)] : null;
      if (s) {
        aim(s, 0);
        placeLabel(s);
        refreshMinimap(target ?? camera.current());
      }
    },
    mode: () => mode,
    resize() {
      if (lastFrame && scene) render(lastFrame, false);
    },
    zoomBy(k) {
      target = null;
      camera.zoomBy(k);
    },
    destroy() {
      token.g.interrupt();
      camera.destroy();
      minimap?.destroy();
      svg.selectAll('*').remove();
    },
  };
}
