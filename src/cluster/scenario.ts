/**
 * Scenario files (scenarios/*.yaml): read with positions, validated against the published JSON
 * Schema (src/cluster/scenario.schema.json), variants applied.
 */
import { isScalar, Scalar } from 'yaml';
import { parseStream, NO_SPAN, type SourceDoc, type Span } from '../kube/manifests/yaml-source.ts';
import { scenarioProblems } from './scenario-checks.ts';
import { lazyValidator, problemsOf } from './schema-check.ts';
import type { ErrorObject } from 'ajv';
import schema from './scenario.schema.json' with { type: 'json' };
import { placed } from './diagnostic.ts';
import type { I18nText } from './types.ts';
import { hasErrors, type Diagnostic, type Result } from '../engine/index.ts';

export interface ProcessSpec {
  readonly name: string;
  readonly listen: string;
  readonly proto?: 'tcp' | 'udp';
  readonly reply?: string;
}

/**
 * The kube-proxy modes the lab models. iptables and nftables are checked on the real kernel;
 * ipvs is modelled from the kernel and kube-proxy sources (this kernel has no IPVS).
 */
export type KubeProxyMode = 'iptables' | 'nftables' | 'ipvs';

export interface KubeProxySpec {
  /** Proxy mode; `ipvs` is modelled from the kernel and kube-proxy sources (no kernel check). */
  readonly mode?: KubeProxyMode;
  /** IPVS mode: ipvs.strictARP (arp_ignore=1, arp_announce=2). */
  readonly strictARP?: boolean;
  /** IPVS mode: ipvs.scheduler. */
  readonly scheduler?: 'rr' | 'wrr';
  readonly nodePortAddresses?: readonly string[];
  readonly masqueradeAll?: boolean;
  readonly localhostNodePorts?: boolean;
  readonly clusterCIDR?: string | null;
}

export interface NodeSpec {
  readonly name: string;
  readonly ip: string;
  readonly roles?: readonly ('control-plane' | 'worker')[];
  readonly zone?: string;
  readonly cpu?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly {
    readonly key: string;
    readonly value?: string;
    readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  }[];
  readonly podCIDR?: string;
  readonly processes?: readonly ProcessSpec[];
  readonly rules?: string;
  readonly sysctls?: {
    readonly routeLocalnet?: boolean;
    readonly rpFilter?: 0 | 1 | 2;
    readonly ipForward?: boolean;
  };
  readonly kubeProxy?: KubeProxySpec;
  readonly podNetwork?: PodNetworkSpec;
}

/**
 * How a node's pods are wired: `routed` (Calico-style: each pod a /32 behind its own veth, the
 * node routes between them, proxy ARP answers the pods' 169.254.1.1 gateway), or `bridge`
 * (flannel, kind, the bridge CNI plugin: every pod's veth is a port of the node's cni0, whose
 * address is the pods' gateway; pods on one node talk L2 through it).
 */
export interface PodNetworkSpec {
  readonly type?: 'routed' | 'bridge';
  /** net.bridge.bridge-nf-call-iptables on the node (bridge only; default true). */
  readonly bridgeNfCallIptables?: boolean;
  /** Hairpin mode on the pods' bridge ports (bridge only; default true, flannel's hairpinMode). */
  readonly hairpin?: boolean;
}

export interface ClientSpec {
  readonly name: string;
  readonly ip: string;
  readonly behind?: string;
  readonly processes?: readonly ProcessSpec[];
}

export interface RouterSpec {
  readonly name: string;
  readonly ip: string;
  readonly clientSideIp: string;
}

export interface VipSpec {
  readonly ip: string;
  readonly mode: 'kube-vip' | 'metallb-l2' | 'metallb-bgp';
  readonly holder?: string;
}

export interface ClusterSpec {
  readonly lan?: string;
  readonly serviceCIDR?: string;
  readonly clusterCIDR?: string;
  readonly nodes: readonly NodeSpec[];
  readonly clients?: readonly ClientSpec[];
  readonly routers?: readonly RouterSpec[];
  readonly vips?: readonly VipSpec[];
  readonly loadBalancerPool?: readonly string[];
  readonly kubeProxy?: KubeProxySpec;
  readonly podNetwork?: PodNetworkSpec;
}

export interface ProbeExpect {
  readonly outcome?: 'answered' | 'refused' | 'timeout';
  readonly answeredBy?: string;
  readonly srcSeen?: string;
  readonly reply?: string;
  readonly split?: Readonly<Record<string, number>>;
}

export interface ProbeDef {
  readonly name?: string;
  readonly from: string;
  readonly to: string;
  /** `icmp` sends an echo request (ping) to the target's address; its port is ignored. */
  readonly proto?: 'tcp' | 'udp' | 'icmp';
  readonly expect: ProbeExpect;
  readonly note?: I18nText;
  /** Where a kube-proxy mode changes the outcome: that mode's expectation and why. */
  readonly byMode?: Partial<
    Record<KubeProxyMode, { readonly expect?: ProbeExpect; readonly note?: I18nText }>
  >;
}

export interface VariantDef {
  readonly id: string;
  readonly title: I18nText;
  readonly description?: I18nText;
  readonly manifests?: string;
  readonly cluster?: Partial<Omit<ClusterSpec, 'nodes'>> & {
    readonly nodes?: readonly (Partial<NodeSpec> & { readonly name: string })[];
  };
  readonly probes?: readonly ProbeDef[];
}

export interface ScenarioDef {
  readonly title: I18nText;
  readonly description: I18nText;
  readonly order?: number;
  readonly source?: string;
  readonly cluster: ClusterSpec;
  readonly manifests: string;
  /** Manifests applied with the editor's but not shown in it (an exercise's read-only part). */
  readonly fixedManifests?: string;
  /** The kube-proxy modes the scenario runs in; the first is the default. */
  readonly kubeProxyModes?: readonly KubeProxyMode[];
  readonly probes?: readonly ProbeDef[];
  readonly variants?: readonly VariantDef[];
  readonly notes?: readonly I18nText[];
}

export interface LoadedScenario {
  readonly def: ScenarioDef;
  /** First line of the manifests block in the scenario file (1-based), and its indentation. */
  readonly manifestsAt: { readonly line: number; readonly indent: number };
  /** Where the manifests a variant uses start (its own block, or the scenario's). */
  readonly manifestsBlock: (variantId: string | undefined) => {
    readonly line: number;
    readonly indent: number;
  };
  /** Position of a field path in the scenario file. */
  readonly span: (path: readonly (string | number)[]) => Span;
  /**
   * Where line `line`, column `column` of the text in the string field at `path` (a node's
   * `rules`) is in the file: exact for a literal block (`rules: |`), the field's start otherwise.
   */
  readonly textPosition: (
    path: readonly (string | number)[],
    line: number,
    column: number,
  ) => { readonly line: number; readonly column: number; readonly exact: boolean };
}

const validator = lazyValidator(schema);

const diag = (span: Span, path: string, message: string): Diagnostic =>
  placed('scenario', span, path, message);

/**
 * A file that holds one YAML document (a scenario, an exercise): the document, or why not, with
 * positions; `what` names the file in the messages ("scenario", "exercise").
 */
export function readOneDocument(
  text: string,
  what: string,
): { doc: SourceDoc | null; diagnostics: Diagnostic[] } {
  const stream = parseStream(text);
  const diagnostics: Diagnostic[] = stream.problems.map((p) => diag(p.span, 'YAML', p.message));
  const doc = stream.docs[0] ?? null;
  if (!doc) {
    if (!diagnostics.length) diagnostics.push(diag(NO_SPAN, '', `the ${what} file is empty`));
    return { doc, diagnostics };
  }
  if (stream.docs.length > 1)
    diagnostics.push(
      diag(
        stream.docs[1]?.span([]) ?? NO_SPAN,
        '',
        `${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} file holds one document; put manifests inside \`manifests: |\``,
      ),
    );
  return { doc, diagnostics };
}

/** JSON Schema problems of a YAML document (a scenario, an exercise) as positioned diagnostics. */
export function schemaDiagnostics(doc: SourceDoc, errors: readonly ErrorObject[]): Diagnostic[] {
  return problemsOf(errors, doc).map((p) => diag(p.span, p.field, p.message));
}

/**
 * Where the text of a string field starts: block scalars (`manifests: |`) begin on the line after
 * the indicator; `indent` is the indentation of their first line.
 */
export function blockStart(
  lines: readonly string[],
  span: Span,
): { readonly line: number; readonly indent: number } {
  let first = span.line;
  const indicator = lines[span.line - 1] ?? '';
  if (/:\s*[|>][-+0-9]*\s*$/.test(indicator) || /^\s*[|>][-+0-9]*\s*$/.test(indicator))
    first = span.line + 1;
  for (let i = first - 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l.trim() !== '') return { line: first, indent: l.length - l.trimStart().length };
  }
  return { line: first, indent: 0 };
}

/** Reads a scenario file. On errors, the result fails and its diagnostics say where. */
export function loadScenario(
  text: string,
  options: { readonly validate?: boolean } = {},
): Result<LoadedScenario> {
  const { doc, diagnostics } = readOneDocument(text, 'scenario');
  if (!doc) return { ok: false, diagnostics };
  if (options.validate !== false) {
    const v = validator();
    if (!v(doc.value)) diagnostics.push(...schemaDiagnostics(doc, v.errors ?? []));
  }
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  const def = doc.value as ScenarioDef;
  const checkable = Array.isArray((def as Partial<ScenarioDef>).cluster?.nodes);
  for (const p of checkable ? scenarioProblems(def) : [])
    diagnostics.push(diag(doc.span(p.path), p.path.join('.'), p.message));
  if (hasErrors(diagnostics)) return { ok: false, diagnostics };
  // Split only for a position (a 5,000-Service scenario is 140,000 lines).
  let lines: string[] | null = null;
  const blockAt = (path: readonly (string | number)[]) =>
    blockStart((lines ??= text.split('\n')), doc.span(path));
  return {
    ok: true,
    value: {
      def,
      // Positions come from composing the file with `yaml`: only when a message needs one.
      get manifestsAt() {
        return blockAt(['manifests']);
      },
      manifestsBlock: (variantId) => {
        const i = (def.variants ?? []).findIndex((v) => v.id === variantId);
        return i >= 0 && def.variants?.[i]?.manifests !== undefined
          ? blockAt(['variants', i, 'manifests'])
          : blockAt(['manifests']);
      },
      span: (p) => doc.span(p),
      textPosition: (path, line, column) => {
        const node = doc.doc.getIn(path, true);
        if (isScalar(node) && node.type === Scalar.BLOCK_LITERAL) {
          const at = blockAt(path);
          return { line: at.line + line - 1, column: column + at.indent, exact: true };
        }
        const span = doc.span(path);
        return { line: span.line, column: span.column, exact: false };
      },
    },
    diagnostics,
  };
}

function patchByName<T extends { readonly name: string }>(
  base: readonly T[],
  patch: readonly (Partial<T> & { readonly name: string })[] | undefined,
): T[] {
  if (!patch) return [...base];
  const out = base.map((b) => {
    const p = patch.find((x) => x.name === b.name);
    return p ? ({ ...b, ...p } as T) : b;
  });
  for (const p of patch) if (!base.some((b) => b.name === p.name)) out.push(p as T);
  return out;
}

export type ClusterPatch = NonNullable<VariantDef['cluster']>;

/** A cluster with a variant's (or an exercise's) patch: fields replaced, nodes patched by name. */
export function patchCluster(c: ClusterSpec, p: ClusterPatch): ClusterSpec {
  return {
    ...c,
    ...(p.vips ? { vips: p.vips } : {}),
    ...(p.loadBalancerPool ? { loadBalancerPool: p.loadBalancerPool } : {}),
    ...(p.kubeProxy ? { kubeProxy: { ...c.kubeProxy, ...p.kubeProxy } } : {}),
    ...(p.podNetwork ? { podNetwork: { ...c.podNetwork, ...p.podNetwork } } : {}),
    nodes: patchByName(c.nodes, p.nodes),
  };
}

/**
 * The field holding node `node`'s own rules as variant `variantId` sees them (the variant's patch
 * when it sets them, the base cluster's otherwise), or null when the node has none.
 */
export function nodeRulesPath(
  def: ScenarioDef,
  variantId: string | undefined,
  node: string,
): (string | number)[] | null {
  const variants = def.variants ?? [];
  const vi = variantId === undefined ? 0 : variants.findIndex((v) => v.id === variantId);
  const patch = variants[vi]?.cluster?.nodes ?? [];
  const pj = patch.findIndex((n) => n.name === node && n.rules !== undefined);
  if (pj >= 0) return ['variants', vi, 'cluster', 'nodes', pj, 'rules'];
  const bi = def.cluster.nodes.findIndex((n) => n.name === node);
  return bi >= 0 && def.cluster.nodes[bi]?.rules !== undefined
    ? ['cluster', 'nodes', bi, 'rules']
    : null;
}

export interface ResolvedScenario {
  readonly cluster: ClusterSpec;
  readonly manifests: string;
  /** The probes with the expectation and note of the chosen mode. */
  readonly probes: readonly ProbeDef[];
  readonly variant: VariantDef | null;
  /** The mode applied cluster-wide, or null when the cluster's own settings stand. */
  readonly mode: KubeProxyMode | null;
}

/** The modes a scenario runs in: `kubeProxyModes`, else the cluster's own mode. */
export function scenarioModes(def: ScenarioDef): readonly KubeProxyMode[] {
  if (def.kubeProxyModes?.length) return def.kubeProxyModes;
  return [def.cluster.kubeProxy?.mode ?? 'iptables'];
}

/**
 * A cluster in kube-proxy mode `mode`: set cluster-wide, kept on the nodes that name their own
 * (a scenario may mix modes on purpose, as a second kube-proxy DaemonSet with a nodeSelector does).
 */
export function withMode(c: ClusterSpec, mode: KubeProxyMode): ClusterSpec {
  return { ...c, kubeProxy: { ...c.kubeProxy, mode } };
}

/** A probe as mode `mode` sees it: that mode's `expect` and `note` replace the probe's own. */
export function probeInMode(p: ProbeDef, mode: KubeProxyMode | null): ProbeDef {
  const o = mode ? p.byMode?.[mode] : undefined;
  if (!o) return p;
  return { ...p, ...(o.expect ? { expect: o.expect } : {}), ...(o.note ? { note: o.note } : {}) };
}

/**
 * The scenario as one variant sees it (the first variant when none is named), in kube-proxy mode
 * `mode` (one of `scenarioModes`; when absent the first of `kubeProxyModes`, or the cluster's own
 * settings).
 */
export function resolveVariant(
  def: ScenarioDef,
  variantId?: string,
  mode?: KubeProxyMode,
): ResolvedScenario | { error: string } {
  const variants = def.variants ?? [];
  const v =
    variantId === undefined
      ? (variants[0] ?? null)
      : (variants.find((x) => x.id === variantId) ?? null);
  if (variantId !== undefined && !v)
    return {
      error: `no variant '${variantId}'; variants are ${variants.map((x) => x.id).join(', ') || 'none'}`,
    };
  const modes = scenarioModes(def);
  if (mode !== undefined && !modes.includes(mode))
    return {
      error: `the scenario does not run in ${mode} mode; its kube-proxy modes are ${modes.join(', ')} (kubeProxyModes)`,
    };
  // Without kubeProxyModes there is no switch: the cluster (and each variant) keeps its own modes.
  const chosen = def.kubeProxyModes?.length ? (mode ?? def.kubeProxyModes[0] ?? null) : null;
  const patched = v?.cluster ? patchCluster(def.cluster, v.cluster) : def.cluster;
  const probes = [...(def.probes ?? []), ...(v?.probes ?? [])];
  return {
    cluster: chosen ? withMode(patched, chosen) : patched,
    manifests: v?.manifests ?? def.manifests,
    probes: probes.map((p) => probeInMode(p, chosen)),
    variant: v,
    mode: chosen,
  };
}
