/**
 * What the lab is compared with. Today: another variant of the scenario, or the scenario as
 * published (before the user's edit). The state keeps it as a string (`compare=VARIANT` in the
 * address, `c` in a share link); this module turns it into the second simulation's input.
 *
 * To compare two kube-proxy modes later (nftables mode is being added), add a kind here, e.g.
 * `{ kind: 'proxy-mode', mode: 'nftables' }` read from `mode:nftables`, and set the mode in
 * `compareInput`: the panes, the step sync, the divergence and the matrix marks take any input.
 */
import type { LabState } from '../store/lab-store.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import type { RunInput } from '../worker/protocol.ts';
import type { PathSelection } from '../../cluster/types.ts';

export type CompareSpec =
  { readonly kind: 'variant'; readonly variant: string } | { readonly kind: 'original' };

/** The word for "the scenario as published" (a variant of that id wins over it). */
export const ORIGINAL = 'original';

export function parseCompare(
  value: string | null,
  scenario: ScenarioEntry | null,
): CompareSpec | null {
  if (!value || !scenario) return null;
  if (scenario.variants.some((v) => v.id === value)) return { kind: 'variant', variant: value };
  if (value === ORIGINAL) return { kind: 'original' };
  return null;
}

/** The variant the lab itself shows (none chosen: the first, as runLab picks it). */
export function shownVariant(s: Pick<LabState, 'doc' | 'scenario'>): string | null {
  return s.doc.variant ?? s.scenario?.variants[0]?.id ?? null;
}

/**
 * The second simulation: the same scenario and path, with the compared variant (as published)
 * or the scenario's own manifests of the shown variant. No path: the matrix's input.
 */
export function compareInput(
  s: Pick<LabState, 'doc' | 'scenario' | 'compare'>,
  path: PathSelection | null,
): RunInput | null {
  const spec = parseCompare(s.compare, s.scenario);
  if (!spec || !s.scenario) return null;
  const variant = spec.kind === 'variant' ? spec.variant : shownVariant(s);
  return {
    scenario: s.scenario.text,
    validate: false,
    ...(variant ? { variant } : {}),
    ...(path ? { path } : {}),
  };
}
