/**
 * What the lab is compared with: another variant of the scenario, the scenario as published
 * (before the user's edit), or the same variant and probe in another kube-proxy mode (`mode:X`,
 * one of the scenario's `kubeProxyModes`). The state keeps it as a string (`compare=VARIANT` in
 * the address, `c` in a share link); this module turns it into the second simulation's input.
 * The panes, the step sync, the divergence and the matrix marks take any input.
 */
import type { LabState } from '../store/lab-store.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import type { RunInput } from '../worker/protocol.ts';
import type { PathSelection } from '../../cluster/types.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';

export type CompareSpec =
  | { readonly kind: 'variant'; readonly variant: string }
  | { readonly kind: 'original' }
  | { readonly kind: 'mode'; readonly mode: KubeProxyMode };

/** `mode:nftables`: the compare value of another kube-proxy mode. */
export const MODE_PREFIX = 'mode:';

/** The word for "the scenario as published" (a variant of that id wins over it). */
export const ORIGINAL = 'original';

export function parseCompare(
  value: string | null,
  scenario: ScenarioEntry | null,
): CompareSpec | null {
  if (!value || !scenario) return null;
  if (scenario.variants.some((v) => v.id === value)) return { kind: 'variant', variant: value };
  if (value === ORIGINAL) return { kind: 'original' };
  if (value.startsWith(MODE_PREFIX)) {
    const mode = scenario.modes.find((m) => `${MODE_PREFIX}${m}` === value);
    if (mode) return { kind: 'mode', mode };
  }
  return null;
}

/** The mode the lab itself runs in (none chosen: the scenario's first). */
export function shownMode(s: Pick<LabState, 'doc' | 'scenario'>): KubeProxyMode | null {
  return s.doc.mode ?? s.scenario?.modes[0] ?? null;
}

/** The modes to offer beside the shown one (a scenario that lists two or more). */
export function otherModes(s: Pick<LabState, 'doc' | 'scenario'>): KubeProxyMode[] {
  const modes = s.scenario?.modes ?? [];
  return modes.length < 2 ? [] : modes.filter((m) => m !== shownMode(s));
}

/** The variant the lab itself shows (none chosen: the first, as runLab picks it). */
export function shownVariant(s: Pick<LabState, 'doc' | 'scenario'>): string | null {
  return s.doc.variant ?? s.scenario?.variants[0]?.id ?? null;
}

/**
 * The second simulation: the same scenario and path, with the compared variant (as published),
 * the scenario's own manifests of the shown variant, or the shown variant (with its edit) in the
 * compared mode. Variants compare in the lab's mode. No path: the matrix's input.
 */
export function compareInput(
  s: Pick<LabState, 'doc' | 'scenario' | 'compare' | 'original'>,
  path: PathSelection | null,
): RunInput | null {
  const spec = parseCompare(s.compare, s.scenario);
  if (!spec || !s.scenario) return null;
  const variant = spec.kind === 'variant' ? spec.variant : shownVariant(s);
  const mode = spec.kind === 'mode' ? spec.mode : s.doc.mode;
  // Two modes compare the same manifests: the user's edit runs on both sides.
  const edited = spec.kind === 'mode' && s.doc.manifests !== s.original;
  return {
    scenario: s.scenario.text,
    validate: false,
    ...(variant ? { variant } : {}),
    ...(mode ? { mode } : {}),
    ...(edited ? { manifests: s.doc.manifests } : {}),
    ...(path ? { path } : {}),
  };
}
