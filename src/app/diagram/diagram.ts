/**
 * The diagram as an imperative factory (as xyflow wraps d3 behaviours): React creates it once in
 * an effect, calls `update` with a pure scene, and `destroy` on unmount. D3 owns only this SVG.
 */
import { select, type Selection } from 'd3-selection';
import 'd3-transition';
import { easeCubicInOut } from 'd3-ease';
import { zoom, zoomIdentity, type ZoomBehavior } from 'd3-zoom';
import { labelOffset, pointAlong, type Point, type Rect } from '../model/geometry.ts';
import type { Scene, SceneStep, StripMark } from '../model/scene.ts';
import { headerText, flagsOf, markText } from '../model/packet.ts';
import { drawHosts, drawWires, type DiagramText } from './draw-static.ts';

export interface DiagramFrame {
  readonly scene: Scene | null;
  readonly step: number;
  readonly run: number;
  readonly marks: readonly StripMark[];
  /** Time the token takes to reach this step; 0 jumps (reduced motion, seeking). */
  readonly durationMs: number;
  readonly stale: boolean;
}

export interface DiagramInstance {
  update(frame: DiagramFrame): void;
  fit(): void;
  zoomBy(k: number): void;
  destroy(): void;
}

type G = Selection<SVGGElement, unknown, null, undefined>;
const CHAR_W = 6.7;

/** Escapes a value for an attribute selector (CSS.escape is missing in some test DOMs). */
const esc = (v: string) => v.replace(/["\\]/g, '\\$&');

const line = (p: readonly Point[]) =>
  p.length ? `M${p.map((q) => `${q.x},${q.y}`).join('L')}` : '';

export function createDiagram(svgEl: SVGSVGElement, text: DiagramText): DiagramInstance {
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
  const token: G = viewport.append('g').attr('class', 'token').attr('data-testid', 'packet-token');
  token.append('circle').attr('class', 'token-dot').attr('r', 7);
  const label = token.append('g').attr('class', 'token-label');
  label.append('rect').attr('class', 'token-bg').attr('rx', 6).attr('height', 36);
  const l1 = label.append('text').attr('class', 'token-line1').attr('x', 8).attr('y', 15);
  const l2 = label.append('text').attr('class', 'token-line2').attr('x', 8).attr('y', 29);

  let layoutKey = '';
  let lastLayout: Scene['layout'] | null = null;
  let lastStep = -1;
  let lastRun = -1;
  let size = { w: 0, h: 0 };
  /** Boxes the label should not hide: hooks, sockets, compact hosts. */
  let obstacles: Rect[] = [];

  const zb: ZoomBehavior<SVGSVGElement, unknown> = zoom<SVGSVGElement, unknown>()
    .scaleExtent([0.2, 4])
    // Explicit extent: d3's default reads SVG length objects some DOMs (jsdom) do not have.
    .extent(() => [
      [0, 0],
      [svgEl.clientWidth || 960, svgEl.clientHeight || 540],
    ])
    .on('zoom', (e: { transform: { toString(): string } }) =>
      viewport.attr('transform', e.transform.toString()),
    );
  svg.call(zb).on('dblclick.zoom', null);

  const fit = () => {
    if (!lastLayout) return;
    const w = svgEl.clientWidth || 960;
    const h = svgEl.clientHeight || 540;
    size = { w, h };
    // The packet header overlay covers the top of the panel.
    const top = 44;
    // ... and the zoom buttons its right edge.
    const side = 44;
    const k = Math.min((w - 2 * side) / lastLayout.width, (h - top) / lastLayout.height, 1.25);
    const tx = (w - lastLayout.width * k) / 2;
    const ty = top + (h - top - lastLayout.height * k) / 2;
    svg.call(zb.transform, zoomIdentity.translate(tx, ty).scale(k));
  };

  const setLabel = (s: SceneStep) => {
    const { src, dst } = headerText(s.packet);
    const ch = new Set(s.changed);
    l1.selectAll('*').remove();
    l1.append('tspan')
      .attr('class', ch.has('src') || ch.has('sport') ? 'changed' : null)
      .text(src);
    l1.append('tspan').attr('class', 'arrow').text(' → ');
    l1.append('tspan')
      .attr('class', ch.has('dst') || ch.has('dport') ? 'changed' : null)
      .text(dst);
    l2.selectAll('*').remove();
    const flags = flagsOf(s.packet);
    l2.append('tspan').text(`${s.packet.proto}${flags ? ` ${flags}` : ''}`);
    if (s.packet.mark !== 0 || ch.has('mark'))
      l2.append('tspan')
        .attr('class', ch.has('mark') ? 'changed' : null)
        .text(` · mark ${markText(s.packet.mark)}`);
    const chars = Math.max(`${src} → ${dst}`.length, 24);
    const w = chars * CHAR_W + 16;
    label.select('rect').attr('width', w);
    const off = labelOffset(s.at, w, 36, obstacles);
    label.attr('transform', `translate(${off.x},${off.y})`);
    token.classed('reply', s.direction === 'reply').classed('rewritten', ch.size > 0);
  };

  const highlight = (scene: Scene, s: SceneStep, stripMarks: readonly StripMark[]) => {
    hosts.selectAll<SVGGElement, unknown>('g.host').classed('active', function () {
      return this.getAttribute('data-host') === s.host;
    });
    hosts.selectAll('g.hook').classed('active', false);
    hosts.selectAll('g.strip').classed('hit', false).classed('current', false);
    hosts.selectAll('text.strip-badge').text('');
    hosts.selectAll('g.process, text.process').classed('reached', false);
    const hostSel = hosts.select(`g.host[data-host="${esc(s.host)}"]`);
    if (s.hook) hostSel.select(`g.hook[data-hook="${s.hook}"]`).classed('active', true);
    if (s.process) hostSel.selectAll(`[data-process="${esc(s.process)}"]`).classed('reached', true);
    for (const m of stripMarks) {
      const strip = hosts.select(
        `g.host[data-host="${esc(m.host)}"] g.hook[data-hook="${m.hook}"] g.strip[data-table="${m.table}"]`,
      );
      strip.classed('hit', true).classed('current', m.current);
      if (m.badge) strip.select('text.strip-badge').text(m.badge);
    }
    if (s.hook && s.table)
      hostSel
        .select(`g.hook[data-hook="${s.hook}"] g.strip[data-table="${s.table}"]`)
        .classed('current', true);
    // Branches of a probabilistic run: each end host carries its share.
    hosts.selectAll('g.branch-badge').selectAll('*').remove();
    for (const b of scene.branches) {
      const box = scene.layout.hosts.find((h) => h.name === b.host);
      if (!box) continue;
      const g = hosts.select(`g.host[data-host="${esc(b.host)}"] g.branch-badge`);
      const bg = g
        .append('g')
        .attr('class', `branch${b.run === lastRun ? ' selected' : ''}`)
        .attr('transform', `translate(${box.x + box.w - 24},${box.y - 2})`);
      bg.append('rect')
        .attr('x', -22)
        .attr('y', -11)
        .attr('width', 44)
        .attr('height', 20)
        .attr('rx', 10);
      bg.append('text')
        .attr('text-anchor', 'middle')
        .attr('y', 4)
        .text(`${Math.round(b.probability * 1000) / 10}%`);
    }
  };

  const drawTrail = (scene: Scene, step: number) => {
    // Ahead of the token only its own direction is previewed: request and reply overlap.
    const dir = scene.trail[step]?.direction;
    trail
      .selectAll<SVGPathElement, Scene['trail'][number]>('path')
      .data(
        scene.trail.filter((t) => t.points.length > 1 && (t.step <= step || t.direction === dir)),
        (d) => String(d.step),
      )
      .join('path')
      .attr('d', (d) => line(d.points))
      .attr(
        'class',
        (d) =>
          `trail-seg ${d.direction}${d.step <= step ? ' travelled' : ''}${d.step === step ? ' current' : ''}`,
      );
  };

  const drawEnd = (s: SceneStep) => {
    marks.selectAll('*').remove();
    if (!s.end) return;
    const g = marks
      .append('g')
      .attr('class', `end-mark end-${s.end}`)
      .attr('data-testid', 'end-mark')
      .attr('transform', `translate(${s.at.x},${s.at.y})`);
    g.append('circle').attr('r', 14);
    g.append('path').attr('d', 'M-6,-6L6,6M6,-6L-6,6');
    g.append('text')
      .attr('y', 30)
      .attr('text-anchor', 'middle')
      .text(s.end === 'reject' ? 'REJECT' : 'DROP');
  };

  return {
    update(frame) {
      const scene = frame.scene;
      svg.classed('stale', frame.stale);
      if (!scene) {
        token.style('display', 'none');
        return;
      }
      if (scene.layout !== lastLayout) {
        lastLayout = scene.layout;
        drawWires(wires, scene.layout);
        drawHosts(hosts, scene.layout, text);
        obstacles = scene.layout.hosts.flatMap((h) => [
          ...h.hooks.map((k) => k.box),
          ...h.processes.map((p) => ({ x: p.at.x - p.w / 2, y: p.at.y - 9, w: p.w, h: 18 })),
          ...(h.pipeline ? [] : [{ x: h.x, y: h.y, w: h.w, h: h.h }]),
        ]);
        const key = scene.layout.hosts.map((h) => `${h.name}:${h.pipeline}`).join('|');
        if (key !== layoutKey || svgEl.clientWidth !== size.w) {
          layoutKey = key;
          fit();
        }
      }
      lastRun = frame.run;
      const s = scene.steps[Math.min(frame.step, scene.steps.length - 1)];
      if (!s) {
        token.style('display', 'none');
        return;
      }
      token.style('display', null);
      highlight(scene, s, frame.marks);
      drawTrail(scene, s.index);
      drawEnd(s);
      setLabel(s);
      token.interrupt();
      const forward = s.index === lastStep + 1 && frame.durationMs > 0 && s.path.length > 1;
      lastStep = s.index;
      if (!forward) {
        token.attr('transform', `translate(${s.at.x},${s.at.y})`);
        return;
      }
      token
        .transition()
        .duration(frame.durationMs * 0.85)
        .ease(easeCubicInOut)
        .attrTween('transform', () => (t: number) => {
          const p = pointAlong(s.path, t);
          return `translate(${p.x},${p.y})`;
        });
    },
    fit,
    zoomBy(k) {
      svg.transition().duration(200).call(zb.scaleBy, k);
    },
    destroy() {
      token.interrupt();
      svg.on('.zoom', null);
      svg.selectAll('*').remove();
    },
  };
}
