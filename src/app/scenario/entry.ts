/**
 * What the lab needs from a scenario file before any simulation: title, description, the
 * manifests shown in the editor, the default path, the variants. The full reading (schema,
 * cluster) happens in the worker (src/cluster); this is only the menu card.
 */
import { parse } from 'yaml';
import type { I18nText, PathSelection } from '../../cluster/types.ts';
import type { KubeProxyMode } from '../../cluster/scenario.ts';

export interface VariantEntry {
  readonly id: string;
  readonly title: I18nText;
  readonly description: I18nText | null;
  readonly manifests: string | null;
}

export interface ScenarioEntry {
  readonly id: string;
  readonly text: string;
  readonly title: I18nText;
  readonly description: I18nText;
  readonly order: number;
  readonly manifests: string;
  readonly defaultPath: PathSelection | null;
  readonly variants: readonly VariantEntry[];
  /**
   * The kube-proxy modes the lab can switch between (`kubeProxyModes`, in the file's order; the
   * first is the default runLab picks); empty when the scenario has no switch.
   */
  readonly modes: readonly KubeProxyMode[];
  /** The cluster's own mode (`cluster.kubeProxy.mode`, iptables by default): the one without a switch. */
  readonly clusterMode: KubeProxyMode;
}

const MODES: readonly string[] = ['iptables', 'nftables', 'ipvs'] satisfies KubeProxyMode[];

function modesOf(v: unknown): KubeProxyMode[] {
  if (!Array.isArray(v)) return [];
  const out: KubeProxyMode[] = [];
  for (const m of v)
    if (typeof m === 'string' && MODES.includes(m) && !out.includes(m as KubeProxyMode))
      out.push(m as KubeProxyMode);
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown, fallback: string): I18nText {
  if (typeof v === 'string') return { en: v, zh: v };
  if (isObj(v)) {
    const en = typeof v.en === 'string' ? v.en : fallback;
    return { en, zh: typeof v.zh === 'string' ? v.zh : en };
  }
  return { en: fallback, zh: fallback };
}

/** Reads the menu card of a scenario; a file that does not parse still gets a card (its id). */
export function readScenario(id: string, source: string): ScenarioEntry {
  let doc: unknown = null;
  try {
    doc = parse(source);
  } catch {
    doc = null;
  }
  const d: Obj = isObj(doc) ? doc : {};
  const probes = Array.isArray(d.probes) ? d.probes.filter(isObj) : [];
  const first = probes[0];
  const variants = Array.isArray(d.variants) ? d.variants.filter(isObj) : [];
  return {
    id,
    text: source,
    title: text(d.title, id),
    description: text(d.description, ''),
    order: typeof d.order === 'number' ? d.order : 1000,
    manifests: typeof d.manifests === 'string' ? d.manifests : '',
    defaultPath:
      first && typeof first.from === 'string' && typeof first.to === 'string'
        ? { from: first.from, to: first.to }
        : null,
    modes: modesOf(d.kubeProxyModes),
    clusterMode:
      (isObj(d.cluster) && isObj(d.cluster.kubeProxy) && modesOf([d.cluster.kubeProxy.mode])[0]) ||
      'iptables',
    variants: variants.map((v) => ({
      id: String(v.id ?? ''),
      title: text(v.title, String(v.id ?? '')),
      description: v.description ? text(v.description, '') : null,
      manifests: typeof v.manifests === 'string' ? v.manifests : null,
    })),
  };
}

export { scenarioId } from './entry-id.ts';

/** The editor's starting text for a scenario and variant. */
export function originalManifests(s: ScenarioEntry, variant: string | null): string {
  const v = variant ? s.variants.find((x) => x.id === variant) : undefined;
  return v?.manifests ?? s.manifests;
}
