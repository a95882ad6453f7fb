/**
 * The lab's one entry point: scenario text (+ edited manifests, variant, chosen path) in,
 * everything the UI draws out. Pure and synchronous; the app runs it in a Web Worker.
 */
import {
  buildNetwork,
  enumerateOutcomes,
  hostProblemText,
  type Diagnostic,
  type Network,
  type ProbeSpec,
} from '../engine/index.ts';
import {
  loadScenario,
  nodeRulesPath,
  resolveVariant,
  type KubeProxyMode,
  type LoadedScenario,
  type ProbeDef,
} from './scenario.ts';
import { pathChoices, resolveSender, resolveTarget } from './targets.ts';
import type { BuiltCluster } from './topology.ts';
import { composeCluster } from './compose.ts';
import { hookRowsOf } from './hook-rows.ts';
import { unplaced } from './diagnostic.ts';
import { IPVS_DEPRECATION, IPVS_MODELLED } from '../kube/ipvs/index.ts';
import type {
  ClusterView,
  HookRowsView,
  IpvsNodeView,
  LabResult,
  PathSelection,
  RunView,
} from './types.ts';

export { manifestDiagnostic } from './diagnostic.ts';

export interface LabInput {
  /** The scenario file's text. */
  readonly scenario: string;
  /** The manifests as edited in the lab; the scenario's (or the variant's) otherwise. */
  readonly manifests?: string;
  readonly variant?: string;
  /** kube-proxy mode, one of the scenario's `kubeProxyModes`; its first (or the cluster's) otherwise. */
  readonly mode?: KubeProxyMode;
  /** Who sends where; the scenario's first probe otherwise. */
  readonly path?: PathSelection;
  /**
   * False for the lab's own scenario files (their schema is checked by the test suite): skips the
   * JSON Schema, whose compilation is most of a cold first run.
   */
  readonly validate?: boolean;
}

/** Scenario files are re-read on every run as the user types; reading is cached by text. */
const loadedCache = new Map<string, ReturnType<typeof loadScenario>>();

export function loadCached(text: string, validate: boolean): ReturnType<typeof loadScenario> {
  const key = `${validate ? 'v' : 'n'}${text}`;
  let hit = loadedCache.get(key);
  if (!hit) {
    hit = loadScenario(text, { validate });
    if (loadedCache.size > 16) loadedCache.clear();
    loadedCache.set(key, hit);
  }
  return hit;
}

const EMPTY: Omit<LabResult, 'diagnostics' | 'ok'> = {
  cluster: null,
  choices: null,
  probe: null,
  runs: [],
  rules: {},
  nftables: {},
};

/** Builds the cluster of a loaded scenario's variant with the given manifests. */
export function clusterOf(
  loaded: LoadedScenario,
  variant: string | undefined,
  manifests: string | undefined,
  mode?: KubeProxyMode,
): { cluster: BuiltCluster | null; diagnostics: Diagnostic[]; probes: readonly ProbeDef[] } {
  const resolved = resolveVariant(loaded.def, variant, mode);
  if ('error' in resolved) {
    return {
      cluster: null,
      probes: [],
      diagnostics: [
        unplaced(/kube-proxy modes/.test(resolved.error) ? 'mode' : 'variant', resolved.error),
      ],
    };
  }
  const composed = composeCluster(
    resolved.cluster,
    manifests ?? resolved.manifests,
    loaded.def.fixedManifests,
    // Positions inside a node's own rules are mapped back into the scenario file.
    (p) => {
      const field = nodeRulesPath(loaded.def, variant, p.node);
      const at = field ? loaded.textPosition(field, p.line, p.column) : null;
      const message = `${at?.exact ? '' : `line ${p.line}, column ${p.column} of `}node ${p.node}'s rules: ${p.message}`;
      if (!field || !at) return unplaced(`cluster.nodes[${p.node}].rules`, message);
      return {
        ...unplaced(field.join('.'), message),
        line: at.line,
        column: at.column,
        endLine: at.line,
        endColumn: at.column,
      };
    },
  );
  return { ...composed, probes: resolved.probes };
}

/** Resolves a path selection into an engine probe. */
export function probeFor(
  c: BuiltCluster,
  path: PathSelection,
):
  | {
      probe: ProbeSpec;
      to: { address: string; port: number; proto: 'tcp' | 'udp' | 'sctp' | 'icmp' };
    }
  | { error: string } {
  const s = resolveSender(c, path.from);
  if ('error' in s) return s;
  const t = resolveTarget(c, path.to);
  if ('error' in t) return t;
  if (t.ok.onlyFrom && t.ok.onlyFrom !== s.ok.host)
    return {
      error: `${path.to} is 127.0.0.1 on ${t.ok.onlyFrom}: only ${t.ok.onlyFrom} itself can send to it`,
    };
  const proto = path.proto ?? t.ok.proto;
  return {
    probe: {
      kind: 'connect',
      from: s.ok.host,
      process: s.ok.process,
      proto,
      dst: t.ok.address,
      dport: t.ok.port,
    },
    to: { address: t.ok.address, port: t.ok.port, proto },
  };
}

/**
 * Rules the panel lists for every node up to this many rule-writing objects (nodes x (Services +
 * endpoints)); past it, only those of the nodes on the path: generating a 5,000-Service node's
 * rules costs ~0.1-0.3 s, and a node the packet never reaches would cost it on every run.
 */
export const ALL_NODES_RULES_MAX = 20_000;

function everyNode(c: BuiltCluster): boolean {
  const nodes = c.spec.nodes.length;
  if (nodes > 10) return false;
  let endpoints = 0;
  for (const s of c.model.endpointSlices) endpoints += s.endpoints.length;
  return nodes * (c.model.services.length + endpoints) <= ALL_NODES_RULES_MAX;
}

/**
 * Rules of every node of a small cluster; of the nodes on the path only in a large one:
 * iptables-save text, and the nft text of the nftables-mode nodes.
 */
function rulesFor(
  c: BuiltCluster,
  onPath: readonly string[],
): { rules: Record<string, string>; nftables: Record<string, string> } {
  const nodes = c.spec.nodes.map((n) => n.name);
  const wanted = everyNode(c) ? nodes : nodes.filter((n) => onPath.includes(n));
  const rules: Record<string, string> = {};
  const nftables: Record<string, string> = {};
  for (const n of wanted) {
    rules[n] = c.rulesOf(n) ?? '';
    const nft = c.nftablesOf(n);
    if (nft !== undefined) nftables[n] = nft;
  }
  return { rules, nftables };
}

/** The IPVS views of the cluster's IPVS-mode nodes (none: no `ipvs` field at all). */
function ipvsViews(c: BuiltCluster): { ipvs?: Record<string, IpvsNodeView> } {
  const out: Record<string, IpvsNodeView> = {};
  for (const n of c.spec.nodes) {
    const r = c.ipvsOf(n.name);
    if (r)
      out[n.name] = {
        ipvsadm: r.ipvsadm,
        ipsets: r.ipsetSave,
        dummyAddresses: r.dummyAddresses,
        modelled: IPVS_MODELLED,
        deprecation: IPVS_DEPRECATION,
      };
  }
  return Object.keys(out).length ? { ipvs: out } : {};
}

/** The hook rows of the nodes a run visits (the diagram draws the pipeline of those only). */
function hooksFor(c: BuiltCluster, net: Network, onPath: ReadonlySet<string>) {
  const hooks: Record<string, HookRowsView> = {};
  for (const n of c.spec.nodes) {
    const h = onPath.has(n.name) ? net.hosts.get(n.name) : undefined;
    if (h) hooks[n.name] = hookRowsOf(h);
  }
  return hooks;
}

/** Pods drawn per node beyond those on the path, in a big cluster. */
export const PODS_PER_NODE = 6;

/**
 * What the diagram gets of a big cluster: every node, client and router, the pods on the path and
 * a few more per node. Thousands of pods cannot be drawn, and sending them costs the page's main
 * thread (structured clone, layout) for nothing it can show.
 */
export function viewFor(c: BuiltCluster, onPath: ReadonlySet<string>): ClusterView {
  const v = c.view;
  const pods = v.hosts.filter((h) => h.kind === 'pod');
  if (pods.length <= 10 * PODS_PER_NODE) return v;
  const perNode = new Map<string, number>();
  const keep = new Set<string>();
  for (const h of pods) {
    const n = perNode.get(h.node ?? '') ?? 0;
    if (onPath.has(h.name) || n < PODS_PER_NODE) {
      keep.add(h.name);
      perNode.set(h.node ?? '', n + 1);
    }
  }
  const podNames = new Set(pods.map((p) => p.name));
  const visible = (name: string) => !podNames.has(name) || keep.has(name);
  return {
    ...v,
    hosts: v.hosts.filter((h) => visible(h.name)),
    links: v.links.filter((l) => visible(l.a) && visible(l.b)),
  };
}

const networkCache = new WeakMap<BuiltCluster, Network | { problems: string }>();

export function networkOf(c: BuiltCluster): Network | { problems: string } {
  let n = networkCache.get(c);
  if (!n) {
    const built = buildNetwork(c.network);
    n = built.network ?? {
      problems: built.problems
        .map((p) => `${p.source ?? ''}: ${p.field ?? ''}: ${hostProblemText(p)}`)
        .join('; '),
    };
    networkCache.set(c, n);
  }
  return n;
}

// eslint-disable-next-line max-lines-per-function -- the lab's one entry, a call per step: load, build, run each probe, check
export function runLab(input: LabInput): LabResult {
  const read = loadCached(input.scenario, input.validate !== false);
  const { diagnostics } = read;
  if (!read.ok) return { ok: false, diagnostics, ...EMPTY };
  const scenario = read.value;
  const built = clusterOf(scenario, input.variant, input.manifests, input.mode);
  const all = [...diagnostics, ...built.diagnostics];
  const cluster = built.cluster;
  if (!cluster || all.some((d) => d.severity === 'error'))
    return {
      ok: false,
      diagnostics: all,
      ...EMPTY,
      cluster: cluster ? viewFor(cluster, new Set()) : null,
      choices: cluster ? pathChoices(cluster) : null,
      ...(cluster ? rulesFor(cluster, []) : { rules: {}, nftables: {} }),
      ...(cluster ? ipvsViews(cluster) : {}),
    };
  const choices = pathChoices(cluster);
  const first = built.probes[0];
  const path: PathSelection | null =
    input.path ??
    (first
      ? { from: first.from, to: first.to, ...(first.proto ? { proto: first.proto } : {}) }
      : null);
  const base: {
    cluster: ClusterView;
    choices: typeof choices;
    rules: Record<string, string>;
    nftables: Record<string, string>;
    ipvs?: Record<string, IpvsNodeView>;
  } = {
    cluster: viewFor(cluster, new Set()),
    choices,
    ...rulesFor(cluster, []),
    ...ipvsViews(cluster),
  };
  if (!path) return { ok: true, diagnostics: all, ...base, probe: null, runs: [] };
  const resolved = probeFor(cluster, path);
  if ('error' in resolved) {
    return {
      ok: false,
      diagnostics: [...all, unplaced('path', resolved.error)],
      ...base,
      probe: null,
      runs: [],
    };
  }
  const net = networkOf(cluster);
  if ('problems' in net)
    return {
      ok: false,
      diagnostics: [...all, unplaced('cluster', net.problems)],
      ...base,
      probe: null,
      runs: [],
    };
  const en = enumerateOutcomes(net, resolved.probe);
  const onPath = new Set(en.runs.flatMap((r) => r.events.map((e) => e.host)));
  Object.assign(base, rulesFor(cluster, [...onPath]));
  base.cluster = viewFor(cluster, onPath);
  const runs: RunView[] = en.runs.map((r) => ({
    probability: r.probability,
    outcome: r.outcome,
    events: r.events,
    choices: r.choices,
  }));
  return {
    ok: true,
    diagnostics: all,
    ...base,
    probe: { from: path.from, to: path.to, ...resolved.to },
    runs,
    hooks: hooksFor(cluster, net, onPath),
    ...(en.truncated
      ? {
          partial: {
            covered: en.covered,
            notComputed: en.notComputed,
            stoppedBy: en.stoppedBy ?? { limit: 'branches', count: en.runs.length },
          },
        }
      : {}),
  };
}
