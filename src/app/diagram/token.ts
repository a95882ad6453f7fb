/**
 * The packet token and its label (the header as it is at this step, rewritten fields in orange),
 * placed where it hides neither the active hook nor goes past the panel's edge.
 */
import type { Selection } from 'd3-selection';
import { labelOffset, type Rect } from '../model/geometry.ts';
import type { SceneStep } from '../model/scene.ts';
import { flagsOf, headerText, markText } from '../model/packet.ts';
import { MONO_CHAR } from './draw-static.ts';

type G = Selection<SVGGElement, unknown, null, undefined>;

export const LABEL_H = 26;
const LINE1 = 13;
/** A label wider than this share of the visible panel is too wide to place beside the packet. */
const NARROW = 0.85;

export interface Token {
  readonly g: G;
  /** Writes the label for `s`, then moves it clear of `keepClear` and inside `bounds`. */
  label(s: SceneStep, obstacles: readonly Rect[], keepClear: Rect | null, bounds: Rect): void;
}

export function createToken(parent: G): Token {
  const g: G = parent.append('g').attr('class', 'token').attr('data-testid', 'packet-token');
  g.append('circle').attr('class', 'token-dot').attr('r', 7);
  const label = g.append('g').attr('class', 'token-label').attr('data-testid', 'token-label');
  label.append('rect').attr('class', 'token-bg').attr('rx', 6).attr('height', LABEL_H);
  // One line (the header panel above the diagram has the protocol): short enough to fit
  // between the rows of boxes it must not hide.
  const l1 = label.append('text').attr('class', 'token-line1').attr('x', 9).attr('y', 17.5);
  return {
    g,
    label(s, obstacles, keepClear, bounds) {
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
      const flags = flagsOf(s.packet);
      const flagSpan = flags
        ? l1.append('tspan').attr('class', 'token-flags').text(`  ${flags}`)
        : null;
      if (s.packet.mark !== 0 || ch.has('mark'))
        l1.append('tspan')
          .attr('class', `token-flags${ch.has('mark') ? ' changed' : ''}`)
          .text(` · mark ${markText(s.packet.mark)}`);
      // The browser measures the text; test DOMs without layout fall back to the font's advance.
      const width = () => {
        const measured =
          (l1.node() as SVGTextContentElement | null)?.getComputedTextLength?.() ?? 0;
        const estimate = (l1.text() || `${src} → ${dst}`).length * LINE1 * MONO_CHAR;
        return Math.max(measured || estimate, 120) + 18;
      };
      let w = width();
      // In a narrow panel (a 400 px embed) a label nearly as wide as the panel finds no place
      // beside the packet: it drops the TCP flags, which the header panel above still shows.
      if (flagSpan && w > bounds.w * NARROW) {
        flagSpan.remove();
        w = width();
      }
      label.select('rect').attr('width', w);
      const off = labelOffset(s.at, w, LABEL_H, obstacles, keepClear, bounds);
      label.attr('transform', `translate(${off.x},${off.y})`);
      g.classed('reply', s.direction === 'reply').classed('rewritten', ch.size > 0);
    },
  };
}
