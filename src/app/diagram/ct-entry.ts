/**
 * The entry drawn in each node's conntrack box at one step: both tuples, the NAT bindings, the
 * state, with what the current step used highlighted (the tuple a lookup matched, the binding a
 * NAT rule set up or a reply undid, the confirm that put it in the table).
 */
import type { Selection } from 'd3-selection';
import type { Tuple } from '../../engine/conntrack.ts';
import { ctState, type CtShown } from '../model/conntrack.ts';
import type { Point } from '../model/geometry.ts';
import { MONO_CHAR, clip, type DiagramText } from './draw-static.ts';

type G = Selection<SVGGElement, unknown, null, undefined>;

const esc = (v: string) => v.replace(/["\\]/g, '\\$&');

export function tupleLine(t: Tuple): string {
  const ep = (ip: string, port: number) =>
    t.proto === 'icmp' ? ip : ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
  return `${ep(t.src, t.sport)} → ${ep(t.dst, t.dport)}`;
}

const endpoint = (ip: string, port: number) =>
  ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;

/** Draws every node's entry; `at` is the token's point, for the connector of the current use. */
// eslint-disable-next-line max-lines-per-function -- d3 drawing of one element, in the order its SVG is built
export function drawCtEntries(
  hosts: G,
  shown: readonly CtShown[],
  text: DiagramText,
  at: Point | null,
): void {
  for (const c of shown) {
    const box = hosts.select<SVGGElement>(`g.host[data-host="${esc(c.host)}"] g.ct-box`);
    if (box.empty()) continue;
    box.classed('touched', c.touch !== null);
    const g = box.select<SVGGElement>('g.ct-entry');
    g.selectAll('*').remove();
    const r = c.box;
    const x = r.x + 8;
    const width = Math.floor((r.w - 16) / (10.5 * MONO_CHAR));
    const e = c.entry;
    if (!e) {
      g.append('text')
        .attr('class', 'ct-empty')
        .attr('x', x)
        .attr('y', r.y + 44)
        .text(text.ct.empty);
      continue;
    }
    g.attr('data-conn', e.id).attr('data-state', ctState(e));
    const use = c.touch?.use ?? null;
    g.append('text')
      .attr('class', `ct-id${use === 'new' ? ' hl' : ''}`)
      .attr('x', r.x + r.w - 8)
      .attr('y', r.y + 18)
      .attr('text-anchor', 'end')
      .text(`#${e.id} ${ctState(e)}`);
    const line = (cls: string, y: number, s: string, hl: boolean) =>
      g
        .append('text')
        .attr('class', `${cls}${hl ? ' hl' : ''}`)
        .attr('x', x)
        .attr('y', r.y + y)
        .text(clip(s, width))
        .append('title')
        .text(s);
    const looked = use === 'lookup' || use === 'related' || use === 'keep';
    g.append('text')
      .attr('class', 'ct-label')
      .attr('x', x)
      .attr('y', r.y + 37)
      .text(text.ct.original);
    g.append('text')
      .attr('class', `ct-status${use === 'confirm' ? ' hl' : ''}`)
      .attr('x', r.x + r.w - 8)
      .attr('y', r.y + 37)
      .attr('text-anchor', 'end')
      .text(e.confirmed ? text.ct.confirmed : text.ct.unconfirmed);
    line('ct-tuple ct-orig', 52, tupleLine(e.orig), looked && c.touch?.dir === 'original');
    g.append('text')
      .attr('class', 'ct-label')
      .attr('x', x)
      .attr('y', r.y + 70)
      .text(text.ct.reply);
    line(
      'ct-tuple ct-reply',
      85,
      tupleLine(e.reply),
      use === 'bind' || (looked && c.touch?.dir === 'reply'),
    );
    let y = 103;
    const bindings: ['dnat' | 'snat', string][] = [];
    if (e.dnat) bindings.push(['dnat', `DNAT ⇒ dst ${endpoint(e.reply.src, e.reply.sport)}`]);
    if (e.snat) bindings.push(['snat', `SNAT ⇒ src ${endpoint(e.reply.dst, e.reply.dport)}`]);
    for (const [kind, s] of bindings) {
      const active = c.touch?.binding === kind;
      // A reply: conntrack undoes the binding (the reply's source back to the original
      // destination for DNAT, its destination back to the original source for SNAT).
      const undone =
        kind === 'dnat'
          ? `↩ DNAT: src ⇒ ${endpoint(e.orig.dst, e.orig.dport)}`
          : `↩ SNAT: dst ⇒ ${endpoint(e.orig.src, e.orig.sport)}`;
      line(
        `ct-binding ct-${kind}`,
        y,
        active && c.touch?.reversed ? undone : s,
        active && (use === 'bind' || use === 'nat'),
      );
      y += 15;
    }
    if (c.touch && at) {
      // The current step reads or writes this entry: a dashed link from the token's row.
      const tx = Math.min(Math.max(at.x, r.x), r.x + r.w);
      const ty = Math.min(Math.max(at.y, r.y), r.y + r.h);
      g.insert('line', ':first-child')
        .attr('class', 'ct-link')
        .attr('x1', at.x)
        .attr('y1', at.y)
        .attr('x2', tx)
        .attr('y2', ty);
    }
  }
}
