/**
 * The current step as a file for slides and blog posts: the diagram as the camera shows it, with
 * the scenario's title, the step, the packet's header and the verdict above it. Self-contained:
 * every style is resolved to plain attributes (light theme, so it reads on white; generic font
 * families, so it renders the same without the page's fonts), no class or variable left.
 */

export interface ExportInfo {
  readonly title: string;
  /** Variant and step, one line. */
  readonly subtitle: string;
  readonly packet: string;
  readonly verdict: string;
  readonly tone: 'ok' | 'info' | 'warn' | 'bad';
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const PAD = 16;

/** Style properties the diagram's CSS sets, written back as attributes of each element. */
const PAINT = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-opacity',
  'opacity',
] as const;
const FONT = ['font-size', 'font-weight', 'letter-spacing'] as const;

const TONE: Readonly<Record<ExportInfo['tone'], string>> = {
  ok: '#15803d',
  info: '#1d4ed8',
  warn: '#b45309',
  bad: '#dc2626',
};

/** `color(srgb r g b / a)` (what color-mix() computes to) as rgb()/rgba(), which every SVG reader knows. */
export function plainColor(v: string): string {
  const m = /^color\(srgb\s+([\d.e-]+)\s+([\d.e-]+)\s+([\d.e-]+)(?:\s*\/\s*([\d.e-]+))?\)$/.exec(
    v.trim(),
  );
  if (!m) return v;
  const c = [m[1], m[2], m[3]].map((x) => Math.round(Math.min(1, Math.max(0, Number(x))) * 255));
  return m[4] !== undefined ? `rgba(${c.join(', ')}, ${Number(m[4])})` : `rgb(${c.join(', ')})`;
}

function text(
  parent: SVGElement,
  x: number,
  y: number,
  s: string,
  attrs: Record<string, string | number>,
): void {
  const t = document.createElementNS(SVG_NS, 'text');
  t.setAttribute('x', String(x));
  t.setAttribute('y', String(y));
  for (const [k, v] of Object.entries(attrs)) t.setAttribute(k, String(v));
  t.textContent = s;
  parent.append(t);
}

/**
 * Resolves the computed style of every element under `root` into attributes, then drops the
 * classes (in a second pass: a parent's class is what its children's selectors match).
 */
function inlineStyles(root: SVGElement): void {
  const all = [root, ...root.querySelectorAll<SVGElement>('*')];
  const resolved = all.map((el) => {
    const cs = getComputedStyle(el);
    const attrs: [string, string][] = [];
    if (cs.display === 'none') return null;
    for (const p of PAINT) {
      const v = cs.getPropertyValue(p);
      if (v) attrs.push([p, plainColor(v)]);
    }
    if (el.tagName === 'text' || el.tagName === 'tspan') {
      for (const p of FONT) {
        const v = cs.getPropertyValue(p);
        if (v && v !== 'normal') attrs.push([p, v]);
      }
      attrs.push(['font-family', /mono/i.test(cs.fontFamily) ? 'monospace' : 'sans-serif']);
    }
    // The generic font of the reader may be wider than the page's: each line keeps the length
    // it has on screen, so it still fits its box.
    if (el.tagName === 'text') {
      const len = (el as SVGTextElement).getComputedTextLength();
      if (len > 0) attrs.push(['textLength', len.toFixed(1)], ['lengthAdjust', 'spacingAndGlyphs']);
    }
    return attrs;
  });
  all.forEach((el, i) => {
    const attrs = resolved[i];
    if (!attrs) {
      el.remove();
      return;
    }
    for (const [k, v] of attrs) el.setAttribute(k, v);
    el.removeAttribute('class');
    el.removeAttribute('style');
    el.removeAttribute('data-testid');
  });
}

/** Splits `s` into lines of at most `n` characters, at spaces where it can. */
export function wrap(s: string, n: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const word of s.split(' ')) {
    if (cur && (cur + ' ' + word).length > n) {
      lines.push(cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * Builds the export SVG from the live diagram (`svgEl`, as it is on screen). It is assembled
 * inside an element that carries the light theme, so the computed styles are the light ones.
 */
export function exportSvg(svgEl: SVGSVGElement, info: ExportInfo): string {
  const w = Math.max(480, svgEl.clientWidth || 960);
  const h = svgEl.clientHeight || 540;
  const holder = document.createElement('div');
  holder.className = 'hp-export';
  holder.setAttribute('aria-hidden', 'true');
  holder.style.cssText = `position:fixed;left:-${w + 100}px;top:0;width:${w}px;pointer-events:none`;
  const out = document.createElementNS(SVG_NS, 'svg');
  out.setAttribute('class', 'diagram-svg');
  const defs = svgEl.querySelector('defs')?.cloneNode(true) as SVGDefsElement | undefined;
  const body = document.createElementNS(SVG_NS, 'g');
  const view = svgEl.querySelector('g.viewport')?.cloneNode(true);
  if (view) body.append(view);
  if (defs) out.append(defs);
  out.append(body);
  holder.append(out);
  document.body.append(holder);
  try {
    if (defs) inlineStyles(defs);
    inlineStyles(body);
  } finally {
    holder.remove();
  }
  out.removeAttribute('class');
  out.setAttribute('xmlns', SVG_NS);
  out.setAttribute('width', String(w));
  const clip = document.createElementNS(SVG_NS, 'clipPath');
  clip.setAttribute('id', 'hp-export-clip');
  const clipRect = document.createElementNS(SVG_NS, 'rect');
  clipRect.setAttribute('width', String(w));
  clipRect.setAttribute('height', String(h));
  clip.append(clipRect);
  (defs ?? out).append(clip);
  body.setAttribute('clip-path', 'url(#hp-export-clip)');
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  const head = document.createElementNS(SVG_NS, 'g');
  head.setAttribute('font-family', 'sans-serif');
  // Long titles and verdicts wrap (about 0.6 em a character for bold sans).
  let y = 10;
  const put = (s: string, size: number, attrs: Record<string, string | number>) => {
    for (const l of wrap(s, Math.floor((w - 2 * PAD) / (size * 0.6)))) {
      y += size * 1.4;
      text(head, PAD, y, l, { 'font-size': size, ...attrs });
    }
  };
  put(info.title, 19, { 'font-weight': 700, fill: '#1b2230' });
  put(info.subtitle, 13, { fill: '#475467' });
  put(info.packet, 14, { fill: '#1b2230', 'font-family': 'monospace' });
  put(info.verdict, 14, { 'font-weight': 700, fill: TONE[info.tone] });
  const top = Math.ceil(y + 14);
  out.setAttribute('height', String(h + top));
  out.setAttribute('viewBox', `0 0 ${w} ${h + top}`);
  body.setAttribute('transform', `translate(0,${top})`);
  out.insertBefore(head, body);
  out.insertBefore(bg, out.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(out)}`;
}

/** Renders the SVG text to a PNG (twice the size, white behind it). */
export async function exportPng(svg: string, scale = 2): Promise<Blob> {
  const size = /<svg[^>]*\swidth="(\d+)"[^>]*\sheight="(\d+)"/.exec(svg);
  const w = Number(size?.[1] ?? 960);
  const h = Number(size?.[2] ?? 640);
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = w * scale;
  canvas.height = h * scale;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.scale(scale, scale);
  ctx.drawImage(img, 0, 0, w, h);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'),
  );
}

/** Saves a blob under `name` (an <a download> click: no permission prompt, works in iframes). */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
