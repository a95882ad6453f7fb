/**
 * The static part of the diagram: wires, hosts, and inside each node on the path the netfilter
 * pipeline (hook boxes with their rows stacked in priority order, conntrack where the kernel
 * runs it, routing decisions, the conntrack table, local sockets). Redrawn only when the layout
 * changes.
 */
import type { Selection } from 'd3-selection';
import { DIAMOND, HOOK_TITLE_H, NIC_BAR_H, nodeGeometry, type Rect } from '../model/geometry.ts';
import type { DiagramLayout, HookRow, HostBox } from '../model/layout.ts';
import { drawBridge } from './bridge.ts';
import { shorten } from '../model/names.ts';

export interface DiagramText {
  routing: string;
  localProcesses: string;
  noProcess: string;
  kind: Record<string, string>;
  /**
   * Row captions of the kernel steps that are not tables; `nftTitle` is an nft base chain's
   * tooltip, with {family} {table} {chain} {type} {priority}.
   */
  rows: {
    conntrack: string;
    confirm: string;
    reroute: string;
    natCore: string;
    ipvs: string;
    nftTitle: string;
  };
  /** A node's bridge; `title` has {name} {address}. */
  bridge: {
    title: string;
    kind: string;
    nfOn: string;
    nfOff: string;
    hairpinOn: string;
    hairpinOff: string;
  };
  ct: {
    title: string;
    empty: string;
    original: string;
    reply: string;
    unconfirmed: string;
    confirmed: string;
  };
}

type G = Selection<SVGGElement, unknown, null, undefined>;

/** Average advance of the diagram's fonts, to cut labels before they overflow their box. */
export const MONO_CHAR = 0.6;
export const SANS_CHAR = 0.56;

const pts = (p: readonly { x: number; y: number }[]) => p.map((q) => `${q.x},${q.y}`).join(' ');

/** A rounded rectangle (attribute order kept stable for the golden file). */
function box(g: G, r: Rect, rx: number, cls: string | null = null): void {
  const el = g.append('rect');
  if (cls) el.attr('class', cls);
  el.attr('x', r.x).attr('y', r.y).attr('width', r.w).attr('height', r.h).attr('rx', rx);
}

export function drawWires(g: G, layout: DiagramLayout): void {
  g.selectAll('*').remove();
  for (const w of layout.wires) {
    const wg = g.append('g').attr('class', `wire wire-${w.kind}`).attr('data-segment', w.segment);
    if (w.kind === 'bus' && w.busY !== null) {
      const xs = w.attachments.map((a) => a.port.x);
      const x0 = Math.min(...xs) - 18;
      const x1 = Math.max(...xs) + 18;
      wg.append('line')
        .attr('class', 'bus')
        .attr('x1', x0)
        .attr('x2', x1)
        .attr('y1', w.busY)
        .attr('y2', w.busY);
      wg.append('text')
        .attr('class', 'segment-label')
        .attr('x', x0)
        .attr('y', w.busY - 6)
        .text(w.segment);
      for (const a of w.attachments)
        wg.append('line')
          .attr('class', 'drop')
          .attr('x1', a.port.x)
          .attr('x2', a.port.x)
          .attr('y1', w.busY)
          .attr('y2', a.port.y);
    } else {
      const [a, b] = w.attachments;
      if (!a || !b) continue;
      const midY = (a.port.y + b.port.y) / 2;
      wg.append('polyline')
        .attr('class', 'p2p')
        .attr('points', pts([a.port, { x: a.port.x, y: midY }, { x: b.port.x, y: midY }, b.port]));
    }
  }
}

export function drawHosts(g: G, layout: DiagramLayout, text: DiagramText): void {
  g.selectAll('*').remove();
  for (const h of layout.hosts) {
    const hg = g
      .append('g')
      .attr(
        'class',
        `host host-${h.kind}${h.pipeline ? ' host-pipeline' : ''}${h.onPath ? ' on-path' : ''}`,
      )
      .attr('data-host', h.name)
      .attr('data-testid', `host-${h.name}`);
    box(hg, h, 10, 'host-box');
    if (h.pipeline) drawNode(hg, h, text);
    else drawSimple(hg, h, text);
    for (const i of h.ifaces) {
      const ig = hg.append('g').attr('class', `iface iface-${i.side}`).attr('data-iface', i.name);
      box(ig, i.bar, 4);
      const size = h.pipeline && i.side === 'top' ? 12 : 11;
      const full = h.pipeline && i.side === 'top' ? `${i.name} · ${h.ips.join(', ')}` : i.name;
      ig.append('text')
        .attr('x', i.bar.x + i.bar.w / 2)
        .attr('y', i.bar.y + i.bar.h / 2 + size * 0.36)
        .attr('text-anchor', 'middle')
        .text(shorten(full, Math.floor((i.bar.w - 8) / (size * MONO_CHAR))))
        .append('title')
        .text(full);
    }
    hg.append('g').attr('class', 'branch-badge');
  }
}

/** Cuts a caption to `n` characters with an ellipsis (names: model/names.ts shorten). */
export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, Math.max(1, n - 1))}…`;
}

function drawSimple(hg: G, h: HostBox, text: DiagramText): void {
  const sans = Math.floor((h.w - 20) / (12 * SANS_CHAR));
  const mono = Math.floor((h.w - 20) / (12 * MONO_CHAR));
  const kind = [text.kind[h.kind] ?? h.kind, h.kind === 'pod' ? '' : h.subtitle]
    .filter(Boolean)
    .join(' · ');
  hg.append('text')
    .attr('class', 'host-kind')
    .attr('x', h.x + 10)
    .attr('y', h.y + 26)
    .text(clip(kind, sans - (h.hiddenPods > 0 ? 8 : 0)));
  hg.append('text')
    .attr('class', 'host-name')
    .attr('x', h.x + 10)
    .attr('y', h.y + 45)
    .text(shorten(h.title, Math.floor((h.w - 20) / (14 * SANS_CHAR))))
    .append('title')
    .text(h.title);
  const ips = h.ips.join(', ');
  const detail = h.kind === 'pod' ? `${ips} · ${h.subtitle}` : ips;
  hg.append('text')
    .attr('class', 'host-ip')
    .attr('x', h.x + 10)
    .attr('y', h.y + 62)
    .text(
      // A pod's generated name is cut in its middle, its addresses kept whole.
      h.kind === 'pod' && ips.length + 3 < mono - 6
        ? `${ips} · ${shorten(h.subtitle, mono - ips.length - 3)}`
        : clip(detail, mono),
    )
    .append('title')
    .text(detail);
  const procs = h.processes.map((p) => p.label).join('  ');
  if (procs)
    hg.append('text')
      .attr('class', 'process process-inline')
      .attr('data-process', h.processes[0]?.name ?? '')
      .attr('x', h.x + 10)
      .attr('y', h.y + h.h - 12)
      .text(clip(`⟶ ${procs}`, mono));
  if (h.hiddenPods > 0)
    hg.append('text')
      .attr('class', 'host-kind')
      .attr('x', h.x + h.w - 10)
      .attr('y', h.y + 26)
      .attr('text-anchor', 'end')
      .text(`+${h.hiddenPods} ${text.kind.pod ?? 'pod'}`);
}

/** The caption of a row: the table's own name, or the kernel step's (nft rows: see nftRow). */
function rowCaption(r: HookRow, text: DiagramText): string {
  switch (r.kind) {
    case 'table':
    case 'nft':
      return r.row;
    case 'nat-core':
      return text.rows.natCore;
    default:
      return text.rows[r.kind];
  }
}

const rowClass = (r: HookRow) => (r.kind === 'table' ? 'row-table' : `row-${r.kind}`);

/** A priority as nft prints it, with a true minus sign (−100). */
const prio = (p: number | null) => (p === null ? '' : String(p).replace('-', '−'));

/** Characters of 12 px monospace that fit in `px`. */
const fits = (px: number) => Math.floor(px / (12 * MONO_CHAR));

/**
 * An nft base chain's row, two lines: its table on the left with the priority on the right (a
 * badge takes the priority's place, see marks.ts), then the chain's name, cut to the box.
 */
function nftRow(sg: G, r: HookRow, x: number, y: number, w: number, text: DiagramText): void {
  const n = r.nft;
  if (!n) return;
  const p = prio(r.priority);
  sg.append('title').text(
    text.rows.nftTitle
      .replace('{family}', n.family)
      .replace('{table}', n.table)
      .replace('{chain}', n.chain)
      .replace('{type}', n.type)
      .replace('{priority}', p),
  );
  sg.append('text')
    .attr('class', 'strip-label strip-table')
    .attr('x', x + 10)
    .attr('y', y + 12)
    .text(shorten(n.table, fits(w - 24) - p.length - 1));
  sg.append('text')
    .attr('class', 'strip-prio')
    .attr('x', x + w - 9)
    .attr('y', y + 12)
    .attr('text-anchor', 'end')
    .text(p);
  // Shortened around the middle (the row's title above has the full name).
  sg.append('text')
    .attr('class', 'strip-label strip-chain')
    .attr('x', x + 10)
    .attr('y', y + 25)
    .text(shorten(n.chain, fits(w - 14)));
  sg.append('text')
    .attr('class', 'strip-badge')
    .attr('x', x + w - 9)
    .attr('y', y + 12)
    .attr('text-anchor', 'end');
}

// eslint-disable-next-line max-lines-per-function -- d3 drawing of one element, in the order its SVG is built
function drawNode(hg: G, h: HostBox, text: DiagramText): void {
  const o = { x: h.x, y: h.y };
  const at = (x: number, y: number) => ({ x: o.x + x, y: o.y + y });
  hg.append('text')
    .attr('class', 'host-name')
    .attr('x', o.x + 16)
    .attr('y', o.y + NIC_BAR_H / 2 + 26)
    .text(h.title);
  hg.append('text')
    .attr('class', 'host-kind')
    .attr('x', o.x + h.w - 16)
    .attr('y', o.y + NIC_BAR_H / 2 + 26)
    .attr('text-anchor', 'end')
    .text([text.kind[h.kind] ?? h.kind, h.subtitle].filter(Boolean).join(' · '));
  const edges = hg.append('g').attr('class', 'pipeline-edges');
  for (const e of h.edges)
    edges
      .append('polyline')
      .attr('class', 'edge')
      .attr('data-edge', `${e.from}>${e.to}`)
      .attr('points', pts(e.points))
      .attr('marker-end', 'url(#hp-arrow)');
  if (h.ct) drawCtBox(hg, h.ct, text);
  if (h.bridge) drawBridge(hg, h.bridge, text);
  for (const k of h.hooks) {
    const kg = hg.append('g').attr('class', 'hook').attr('data-hook', k.hook);
    box(kg, k.box, 6, 'hook-box');
    kg.append('text')
      .attr('class', 'hook-name')
      .attr('x', k.box.x + k.box.w / 2)
      .attr('y', k.box.y + 17)
      .attr('text-anchor', 'middle')
      .text(k.hook);
    let y = k.box.y + HOOK_TITLE_H;
    for (const t of k.rows) {
      const sg = kg
        .append('g')
        .attr('class', `strip ${rowClass(t)}${t.present ? ' present' : ''}`)
        .attr('data-row', t.row);
      box(sg, { x: k.box.x + 5, y, w: k.box.w - 10, h: t.h - 3 }, 3);
      if (t.kind === 'nft') nftRow(sg, t, k.box.x, y, k.box.w, text);
      else {
        sg.append('text')
          .attr('class', 'strip-label')
          .attr('x', k.box.x + 10)
          .attr('y', y + t.h - 6)
          .text(rowCaption(t, text));
        sg.append('text')
          .attr('class', 'strip-badge')
          .attr('x', k.box.x + k.box.w - 9)
          .attr('y', y + t.h - 6)
          .attr('text-anchor', 'end');
      }
      y += t.h;
    }
  }
  const geo = h.geo ?? nodeGeometry(() => 0);
  for (const [cls, c] of [
    ['route-in', geo.routeIn],
    ['route-out', geo.routeOut],
  ] as const) {
    const p = at(c.x, c.y);
    const rg = hg.append('g').attr('class', `route ${cls}`);
    rg.append('polygon').attr(
      'points',
      pts([
        { x: p.x, y: p.y - DIAMOND },
        { x: p.x + DIAMOND, y: p.y },
        { x: p.x, y: p.y + DIAMOND },
        { x: p.x - DIAMOND, y: p.y },
      ]),
    );
    rg.append('text')
      .attr('x', p.x)
      .attr('y', p.y - DIAMOND - 6)
      .attr('text-anchor', 'middle')
      .text(text.routing);
  }
  const s = at(geo.local.x, geo.local.y);
  const lg = hg.append('g').attr('class', 'local');
  box(lg, { x: s.x, y: s.y, w: geo.local.w, h: geo.local.h }, 6);
  lg.append('text')
    .attr('class', 'local-label')
    .attr('x', s.x + 10)
    .attr('y', s.y + 20)
    .text(text.localProcesses);
  if (!h.processes.length)
    lg.append('text')
      .attr('class', 'local-none')
      .attr('x', s.x + 120)
      .attr('y', s.y + 20)
      .text(text.noProcess);
  for (const p of h.processes) {
    const pg = lg.append('g').attr('class', 'process').attr('data-process', p.name);
    box(pg, { x: p.at.x - p.w / 2, y: p.at.y - 10, w: p.w, h: 20 }, 10);
    pg.append('text')
      .attr('x', p.at.x)
      .attr('y', p.at.y + 4)
      .attr('text-anchor', 'middle')
      .text(shorten(p.label, Math.floor((p.w - 8) / (11 * MONO_CHAR))));
    pg.append('title').text(p.label);
  }
}

/** The frame of a node's conntrack table; diagram.ts fills in the entry for each step. */
function drawCtBox(hg: G, r: { x: number; y: number; w: number; h: number }, text: DiagramText) {
  const g = hg.append('g').attr('class', 'ct-box').attr('data-testid', 'ct-box');
  box(g, r, 8, 'ct-frame');
  g.append('text')
    .attr('class', 'ct-title')
    .attr('x', r.x + 8)
    .attr('y', r.y + 18)
    .text(text.ct.title);
  g.append('g').attr('class', 'ct-entry');
}
