/**
 * Addresses a lab hands out: the embed's "Open in Hookpath ↗" (the full lab at the same place) and
 * the Embed dialog's iframe. Readable parameters say where; the `#lab=` hash is added only when
 * they cannot (edited manifests, another random branch, a rule that did not match).
 */
import type { LabDoc } from '../store/lab-store.ts';
import type { Step } from '../model/timeline.ts';
import type { PathSelection } from '../../cluster/types.ts';
import { encodeShare, SHARE_PARAM } from '../store/share.ts';
import { readableStep } from './apply.ts';
import type { EditorMode, Pickers, ThemeParam } from './params.ts';

/** What a URL needs of the lab's state. */
export interface PlaceState {
  readonly doc: LabDoc;
  /** The scenario's own manifests (for the variant): edits go in the hash. */
  readonly original: string;
  readonly defaultPath: PathSelection | null;
  readonly steps: readonly Step[];
}

/** Which step an embed opens at. */
export type StepChoice = 'start' | 'current' | 'end';

export interface EmbedOptions {
  readonly step: StepChoice;
  readonly theme: ThemeParam;
  readonly lang: 'en' | 'zh';
  readonly autoplay: boolean;
  readonly verdictAfter: boolean;
  readonly editor: EditorMode;
  readonly pickers: Pickers;
}

/** Characters a query value may hold as they are (RFC 3986 §3.4): `client/laptop`, `vip:22`. */
function encodeValue(v: string): string {
  return encodeURIComponent(v).replace(/%2F/gi, '/').replace(/%3A/gi, ':').replace(/%40/g, '@');
}

function query(pairs: readonly (readonly [string, string | null])[]): string {
  const kept = pairs.filter((p): p is readonly [string, string] => p[1] !== null);
  return kept.length ? `?${kept.map(([k, v]) => `${k}=${encodeValue(v)}`).join('&')}` : '';
}

const samePath = (a: PathSelection | null, b: PathSelection | null) =>
  !!a && !!b && a.from === b.from && a.to === b.to && (a.proto ?? null) === (b.proto ?? null);

/**
 * The place as readable parameters, and the hash when they cannot say it all. `step`: a trace
 * index, or `end`.
 */
function place(
  s: PlaceState,
  step: number | 'end',
): { pairs: [string, string | null][]; hash: string } {
  const d = s.doc;
  const path = d.path && !samePath(d.path, s.defaultPath) ? d.path : null;
  const readable = step === 'end' ? 'end' : step === 0 ? null : readableStep(s.steps, step);
  const exact =
    d.manifests === s.original &&
    d.run === 0 &&
    (step === 'end' || step === 0 || readable !== null);
  const pairs: [string, string | null][] = [
    ['scenario', d.scenarioId],
    ['variant', d.variant],
    ['mode', d.mode],
    ['from', path?.from ?? null],
    ['to', path?.to ?? null],
    ['step', readable === null ? null : String(readable)],
  ];
  const index = step === 'end' ? Math.max(0, s.steps.length - 1) : step;
  const hash = exact ? '' : `#${SHARE_PARAM}=${encodeShare({ ...d, step: index }, s.original)}`;
  return { pairs, hash };
}

/** The full lab at the same place (the embed's "Open in Hookpath ↗"). */
export function fullLabUrl(
  site: string,
  s: PlaceState,
  carry: { readonly lang: string | null; readonly theme: string | null },
): string {
  const { pairs, hash } = place(s, s.doc.step);
  return `${site}${query([...pairs, ['lang', carry.lang], ['theme', carry.theme]])}${hash}`;
}

/** The embed's address for the dialog's choices (defaults are left out: a shorter snippet). */
export function embedUrl(site: string, s: PlaceState, o: EmbedOptions): string {
  const step = o.step === 'end' ? 'end' : o.step === 'start' ? 0 : s.doc.step;
  const { pairs, hash } = place(s, step);
  return `${site}${query([
    ...pairs,
    ['embed', '1'],
    ['theme', o.theme === 'auto' ? null : o.theme],
    ['lang', o.lang],
    ['autoplay', o.autoplay ? '1' : null],
    ['verdict', o.verdictAfter ? 'after' : null],
    ['editor', o.editor === 'hidden' ? null : o.editor],
    ['pickers', o.pickers === 'none' ? null : o.pickers === 'path' ? '1' : 'all'],
  ])}${hash}`;
}

const escapeAttr = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The HTML a blog author pastes: the iframe, and with `script` the embed.js that sizes it. */
export function iframeSnippet(
  url: string,
  o: { readonly title: string; readonly height: number; readonly script: string | null },
): string {
  const frame =
    `<iframe data-hookpath src="${escapeAttr(url)}" title="${escapeAttr(o.title)}"` +
    ` width="100%" height="${Math.round(o.height)}" style="border:0;width:100%;max-width:900px"` +
    ` loading="lazy"></iframe>`;
  return o.script ? `${frame}\n<script src="${escapeAttr(o.script)}" async></script>` : frame;
}
