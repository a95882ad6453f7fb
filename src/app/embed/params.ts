/**
 * The readable URL parameters (`?scenario=…&step=5&embed=1`), beside the compressed `#lab=` share
 * hash. A blog author writes them by hand, so anything the lab cannot use is said in a note on the
 * page (ParamNotes) and replaced by its default: a typo never leaves a blank lab.
 *
 * This module only reads the address. What needs the scenario catalog (an unknown scenario or
 * variant) is checked in instance.ts, what needs the trace (a step past the end, a path that does
 * not resolve) once the first answer arrives (apply.ts, controller.ts).
 */

export type EditorMode = 'hidden' | 'readonly' | 'edit';
export type Pickers = 'none' | 'path' | 'all';
export type ThemeParam = 'light' | 'dark' | 'auto';
export type ModeParam = 'iptables' | 'nftables' | 'ipvs';

export interface LinkParams {
  readonly scenario: string | null;
  readonly variant: string | null;
  /** kube-proxy's mode (whether the scenario runs in it is checked against the catalog later). */
  readonly mode: ModeParam | null;
  readonly from: string | null;
  readonly to: string | null;
  /** A step as the counter shows it (1-based, matched rules only), or the last one. */
  readonly step: number | 'end' | null;
  readonly theme: ThemeParam | null;
  readonly lang: 'en' | 'zh' | null;
  readonly embed: boolean;
  readonly autoplay: boolean;
  /** `verdict=after`: the verdict appears only once the packet arrives. */
  readonly verdictAfter: boolean;
  /** Null: the layout's default (the full lab edits, an embed shows no editor). */
  readonly editor: EditorMode | null;
  /** `editor=plain`: an editable textarea instead of Monaco (tests, slow machines). */
  readonly plainEditor: boolean;
  readonly pickers: Pickers;
  /** `compare=VARIANT` (or `original`): that variant side by side (checked against the scenario later). */
  readonly compare: string | null;
  /** `view=matrix`: the probe matrix instead of the diagram; `view=host`: Your host. */
  readonly view: 'diagram' | 'matrix' | 'host' | null;
}

/** Why a parameter was not used; the texts are `param.*` in the i18n files. */
export type ParamNoteKind =
  'invalid' | 'unknown' | 'scenario' | 'variant' | 'step' | 'exercise' | 'duplicate';

export interface ParamNote {
  readonly kind: ParamNoteKind;
  readonly param: string;
  readonly value: string;
  /** What to write instead (`invalid`), or what is shown instead (`scenario`, `variant`, `step`). */
  readonly hint?: string;
}

/** Every parameter the lab reads, in the README's order. */
export const KNOWN_PARAMS = [
  'scenario',
  'variant',
  'mode',
  'from',
  'to',
  'step',
  'theme',
  'lang',
  'embed',
  'autoplay',
  'verdict',
  'editor',
  'pickers',
  'exercise',
  'compare',
  'view',
] as const;

/** Parameters a blog platform or a newsletter adds to links: not ours, not worth a note. */
const FOREIGN = /^(utm_\w+|fbclid|gclid|mc_cid|mc_eid|ref)$/;

/** Longest value read: ids, path names and numbers are short; longer is not a hand-written URL. */
const MAX_VALUE = 300;
const MAX_STEP = 1_000_000;

const ENUMS = {
  theme: ['light', 'dark', 'auto'],
  lang: ['en', 'zh'],
  editor: ['hidden', 'readonly', 'edit', 'plain'],
  verdict: ['after', 'always'],
  pickers: ['0', '1', 'path', 'all'],
  view: ['diagram', 'matrix', 'host'],
  mode: ['iptables', 'nftables', 'ipvs'],
} as const;

const FLAG_ON = ['1', 'true', 'yes', ''];
const FLAG_OFF = ['0', 'false', 'no'];

export const NO_PARAMS: LinkParams = {
  scenario: null,
  variant: null,
  mode: null,
  from: null,
  to: null,
  step: null,
  theme: null,
  lang: null,
  embed: false,
  autoplay: false,
  verdictAfter: false,
  editor: null,
  plainEditor: false,
  pickers: 'none',
  compare: null,
  view: null,
};

export function readParams(search: string): { params: LinkParams; notes: ParamNote[] } {
  const q = new URLSearchParams(search);
  const notes: ParamNote[] = [];
  const seen = new Set<string>();
  for (const [k, v] of q) {
    if (seen.has(k) && (KNOWN_PARAMS as readonly string[]).includes(k))
      notes.push({ kind: 'duplicate', param: k, value: short(v) });
    seen.add(k);
    if (!(KNOWN_PARAMS as readonly string[]).includes(k) && !FOREIGN.test(k))
      notes.push({ kind: 'unknown', param: short(k), value: short(v) });
  }

  const text = (k: string): string | null => {
    const v = q.get(k);
    if (v === null) return null;
    const t = v.trim();
    if (t && t.length <= MAX_VALUE) return t;
    notes.push({ kind: 'invalid', param: k, value: short(v), hint: 'text' });
    return null;
  };
  function oneOf<T extends string>(k: keyof typeof ENUMS): T | null {
    const v = q.get(k);
    if (v === null) return null;
    const allowed: readonly string[] = ENUMS[k];
    const t = v.trim().toLowerCase();
    if (allowed.includes(t)) return t as T;
    notes.push({ kind: 'invalid', param: k, value: short(v), hint: allowed.join(' | ') });
    return null;
  }
  const flag = (k: string): boolean => {
    const v = q.get(k);
    if (v === null) return false;
    const t = v.trim().toLowerCase();
    if (FLAG_ON.includes(t)) return true;
    if (!FLAG_OFF.includes(t))
      notes.push({ kind: 'invalid', param: k, value: short(v), hint: '1' });
    return false;
  };

  // Read in the README's order, so the notes come in that order too.
  const scenario = text('scenario');
  const variant = text('variant');
  const mode = oneOf<ModeParam>('mode');
  const from = text('from');
  const to = text('to');
  const step = readStep(q.get('step'), notes);
  const theme = oneOf<ThemeParam>('theme');
  const lang = oneOf<'en' | 'zh'>('lang');
  const embed = flag('embed');
  const autoplay = flag('autoplay');
  const verdict = oneOf<'after' | 'always'>('verdict');
  const editor = oneOf<EditorMode | 'plain'>('editor');
  const pickers = oneOf<(typeof ENUMS.pickers)[number]>('pickers');
  const compare = text('compare');
  const view = oneOf<'diagram' | 'matrix' | 'host'>('view');
  return {
    params: {
      scenario,
      variant,
      mode,
      from,
      to,
      step,
      theme,
      lang,
      embed,
      autoplay,
      verdictAfter: verdict === 'after',
      editor: editor === 'plain' ? 'edit' : editor,
      plainEditor: editor === 'plain',
      pickers: pickers === '1' || pickers === 'path' ? 'path' : pickers === 'all' ? 'all' : 'none',
      compare,
      view,
    },
    notes,
  };
}

function readStep(v: string | null, notes: ParamNote[]): LinkParams['step'] {
  if (v === null) return null;
  const t = v.trim().toLowerCase();
  if (t === 'end') return 'end';
  if (/^\d{1,7}$/.test(t)) {
    const n = Number(t);
    if (n >= 1 && n <= MAX_STEP) return n;
  }
  notes.push({ kind: 'invalid', param: 'step', value: short(v), hint: '1, 2, … | end' });
  return null;
}

/** A value as a note quotes it: never a wall of text. */
function short(v: string): string {
  return v.length > 40 ? `${v.slice(0, 39)}…` : v;
}

/** True when the address names a place in a scenario: it is then a link, like `#lab=`. */
export function namesPlace(p: LinkParams): boolean {
  return (
    p.variant !== null ||
    p.mode !== null ||
    p.from !== null ||
    p.to !== null ||
    p.step !== null ||
    p.compare !== null
  );
}

/** The parameters that describe where the lab is (dropped once the user leaves that place). */
export const PLACE_PARAMS = [
  'variant',
  'mode',
  'from',
  'to',
  'step',
  'autoplay',
  'compare',
  'view',
] as const;
