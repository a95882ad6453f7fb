/**
 * The mini-map: the whole cluster in a corner while the camera follows the packet, with the
 * path, the packet, and a frame where the main view looks. Drawn in layout units (its viewBox
 * is the layout), so nothing here needs the camera's arithmetic.
 */
import { select } from 'd3-selection';
import type { Point, Rect } from '../model/geometry.ts';
import type { DiagramLayout } from '../model/layout.ts';

export interface Minimap {
  draw(layout: DiagramLayout): void;
  update(host: string, trail: readonly (readonly Point[])[], at: Point, view: Rect): void;
  destroy(): void;
}

const line = (p: readonly Point[]) =>
  p.length ? `M${p.map((q) => `${q.x},${q.y}`).join('L')}` : '';

export function createMinimap(el: SVGSVGElement): Minimap {
  const svg = select(el).attr('preserveAspectRatio', 'xMidYMid meet');
  const hosts = svg.append('g').attr('class', 'mm-hosts');
  const path = svg.append('path').attr('class', 'mm-path');
  const dot = svg.append('circle').attr('class', 'mm-token');
  const frame = svg.append('rect').attr('class', 'mm-view');
  let r = 8;
  return {
    draw(layout) {
      svg.attr('viewBox', `0 0 ${layout.width} ${layout.height}`);
      r = Math.max(layout.width, layout.height) / 60;
      hosts.selectAll('*').remove();
      for (const w of layout.wires)
        if (w.busY !== null)
          hosts
            .append('line')
            .attr('class', 'mm-wire')
            .attr('x1', Math.min(...w.attachments.map((a) => a.port.x)))
            .attr('x2', Math.max(...w.attachments.map((a) => a.port.x)))
            .attr('y1', w.busY)
            .attr('y2', w.busY);
      for (const h of layout.hosts)
        hosts
          .append('rect')
          .attr('class', `mm-host mm-${h.kind}`)
          .attr('data-host', h.name)
          .attr('x', h.x)
          .attr('y', h.y)
          .attr('width', h.w)
          .attr('height', h.h)
          .attr('rx', 8);
    },
    update(host, trail, at, view) {
      hosts.selectAll<SVGRectElement, unknown>('rect.mm-host').classed('active', function () {
        return this.getAttribute('data-host') === host;
      });
      path.attr('d', trail.map(line).join(''));
      dot.attr('cx', at.x).attr('cy', at.y).attr('r', r);
      frame.attr('x', view.x).attr('y', view.y).attr('width', view.w).attr('height', view.h);
    },
    destroy() {
      svg.selectAll('*').remove();
    },
  };
}
