/**
 * What changes from step to step on the static drawing: the active host and hook, the rows rules
 * and conntrack acted on (with their badges), the trail, the end mark, the branch shares.
 */
import type { Selection } from 'd3-selection';
import type { Point } from '../model/geometry.ts';
import type { Scene, SceneStep, StripMark } from '../model/scene.ts';

type G = Selection<SVGGElement, unknown, null, undefined>;

/** Escapes a value for an attribute selector (CSS.escape is missing in some test DOMs). */
export const esc = (v: string) => v.replace(/["\\]/g, '\\$&');

export const line = (p: readonly Point[]) =>
  p.length ? `M${p.map((q) => `${q.x},${q.y}`).join('L')}` : '';

export function highlight(
  hosts: G,
  scene: Scene,
  s: SceneStep,
  stripMarks: readonly StripMark[],
  run: number,
): void {
  hosts.selectAll<SVGGElement, unknown>('g.host').classed('active', function () {
    return this.getAttribute('data-host') === s.host;
  });
  hosts.selectAll('g.hook').classed('active', false);
  hosts.selectAll('g.strip').classed('hit', false).classed('current', false);
  hosts.selectAll('text.strip-badge').text('');
  hosts.selectAll('g.process, text.process').classed('reached', false);
  hosts.selectAll('g.route').classed('active', false);
  const hostSel = hosts.select(`g.host[data-host="${esc(s.host)}"]`);
  if (s.hook) hostSel.select(`g.hook[data-hook="${s.hook}"]`).classed('active', true);
  if (s.process) hostSel.selectAll(`[data-process="${esc(s.process)}"]`).classed('reached', true);
  for (const m of stripMarks) {
    const strip = hosts.select(
      `g.host[data-host="${esc(m.host)}"] g.hook[data-hook="${m.hook}"] g.strip[data-row="${m.row}"]`,
    );
    strip.classed('hit', true).classed('current', m.current);
    if (m.badge) strip.select('text.strip-badge').text(m.badge);
  }
  if (s.hook && s.row)
    hostSel
      .select(`g.hook[data-hook="${s.hook}"] g.strip[data-row="${s.row}"]`)
      .classed('current', true);
  // Branches of a probabilistic run: each end host carries its share.
  hosts.selectAll('g.branch-badge').selectAll('*').remove();
  for (const b of scene.branches) {
    const box = scene.layout.hosts.find((h) => h.name === b.host);
    if (!box) continue;
    const g = hosts.select(`g.host[data-host="${esc(b.host)}"] g.branch-badge`);
    const bg = g
      .append('g')
      .attr('class', `branch${b.run === run ? ' selected' : ''}`)
      .attr('transform', `translate(${box.x + box.w - 30},${box.y - 2})`);
    bg.append('rect')
      .attr('x', -28)
      .attr('y', -12)
      .attr('width', 56)
      .attr('height', 22)
      .attr('rx', 11);
    bg.append('text')
      .attr('text-anchor', 'middle')
      .attr('y', 4)
      .text(`${Math.round(b.probability * 1000) / 10}%`);
  }
}

export function drawTrail(trail: G, scene: Scene, step: number): void {
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
}

export function drawEnd(marks: G, s: SceneStep): void {
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
    .attr('y', 32)
    .attr('text-anchor', 'middle')
    .text(s.end === 'reject' ? 'REJECT' : 'DROP');
}
