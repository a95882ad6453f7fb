/**
 * A scenario's cluster as hosts on segments: nodes on the LAN with kube-proxy's rules, pods on
 * veth pairs routed by their node (Calico-style: /32 pod addresses, proxy ARP, per-node pod CIDR
 * routes on the LAN), outside clients (optionally behind a router that does ECMP for MetalLB BGP),
 * VIPs on their holder.
 */
import { formatIPv4, parseCidr, parseIPv4 } from '../engine/index.ts';
import {
  parseRuleset,
  type HostSpec,
  type ListenerSpec,
  type NetworkSpec,
  type RouteSpec,
} from '../engine/index.ts';
import { renderFelix, type FelixWorkload } from '../kube/calico/index.ts';
import { generateIptablesRules, isPerServiceChain } from '../kube/proxier/index.ts';
import { generateIpvsRules, ipsetSpecs, type IpvsRules } from '../kube/ipvs/index.ts';
import { deriveSettings } from '../kube/proxier/config.ts';
import {
  generateNftablesRules,
  isPerServiceNftChain,
  nftablesConfig,
} from '../kube/nftables/index.ts';
import {
  DEFAULT_PROXIER_CONFIG,
  type EndpointSliceModel,
  type ProxierConfig,
} from '../kube/model.ts';
import {
  readManifests,
  type ClusterSettings,
  type ManifestModel,
  type NodeInfo,
  type PodModel,
  sha256Text,
} from '../kube/manifests/index.ts';
import { mergeIptablesSave } from './merge-rules.ts';
import type {
  ClusterSpec,
  KubeProxyMode,
  NodeSpec,
  PodNetworkSpec,
  ProcessSpec,
} from './scenario.ts';
import type { ClusterView, HostView, LinkView } from './types.ts';

export const DEFAULT_LAN = '192.168.50.0/24';
export const DEFAULT_CLUSTER_CIDR = '10.244.0.0/16';
export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';
/** kube-proxy's own health server (`--healthz-bind-address`). */
export const KUBE_PROXY_HEALTHZ_PORT = 10256;

export interface BuiltCluster {
  readonly spec: ClusterSpec;
  readonly settings: ClusterSettings;
  readonly model: ManifestModel;
  readonly network: NetworkSpec;
  readonly view: ClusterView;
  /**
   * iptables-save of a node, generated on first use: kube-proxy's rules merged with the node's
   * own in iptables mode; the node's own rules alone in nftables mode.
   */
  readonly rulesOf: (node: string) => string | undefined;
  /** The kube-proxy mode of each node. */
  readonly modeOf: (node: string) => KubeProxyMode | undefined;
  /** `nft -f` text of an nftables-mode node's kube-proxy table (undefined in iptables mode). */
  readonly nftablesOf: (node: string) => string | undefined;
  /** Problems in the nodes' own `rules` (extra host rules), with their node. */
  readonly ruleProblems: readonly {
    readonly node: string;
    readonly line: number;
    readonly column: number;
    readonly message: string;
  }[];
  /** Host name of each pod (`namespace/name` -> host). */
  readonly podHosts: ReadonlyMap<string, string>;
  /**
   * What kube-proxy's IPVS proxier programmed on a node in IPVS mode (kube-ipvs0 addresses,
   * ipsets, virtual servers); undefined for an iptables-mode node. Modelled, not kernel-checked.
   */
  readonly ipvsOf: (node: string) => IpvsRules | undefined;
}

function prefixOf(cidr: string | undefined, fallback: number): number {
  return (cidr ? parseCidr(cidr)?.prefix : undefined) ?? fallback;
}

export function nodePodCIDR(spec: ClusterSpec, index: number): string {
  const n = spec.nodes[index] as NodeSpec;
  if (n.podCIDR) return n.podCIDR;
  const base = parseCidr(spec.clusterCIDR ?? DEFAULT_CLUSTER_CIDR);
  const addr =
    base && base.family === 4 ? (base.addr as number) : (parseIPv4('10.244.0.0') as number);
  return `${formatIPv4((addr + index * 256) >>> 0)}/24`;
}

export function clusterSettings(spec: ClusterSpec): ClusterSettings {
  const nodes: NodeInfo[] = spec.nodes.map((n, i) => {
    const roles = n.roles ?? (i === 0 && spec.nodes.length > 1 ? ['control-plane'] : ['worker']);
    const labels: Record<string, string> = {
      'kubernetes.io/hostname': n.name,
      'kubernetes.io/os': 'linux',
      ...(n.zone ? { 'topology.kubernetes.io/zone': n.zone } : {}),
    };
    for (const r of roles) labels[`node-role.kubernetes.io/${r}`] = '';
    Object.assign(labels, n.labels ?? {});
    // kubeadm taints control-plane nodes; a scenario lists taints explicitly to change that.
    const taints =
      n.taints?.map((t) => ({ key: t.key, value: t.value ?? '', effect: t.effect })) ??
      (roles.includes('control-plane')
        ? [
            {
              key: 'node-role.kubernetes.io/control-plane',
              value: '',
              effect: 'NoSchedule' as const,
            },
          ]
        : []);
    return {
      name: n.name,
      ip: n.ip,
      zone: n.zone ?? null,
      labels,
      taints,
      podCIDR: nodePodCIDR(spec, i),
      cpu: n.cpu ?? 4,
    };
  });
  return {
    nodes,
    serviceCIDR: spec.serviceCIDR ?? DEFAULT_SERVICE_CIDR,
    loadBalancerPool: spec.loadBalancerPool ?? (spec.vips ?? []).map((v) => v.ip),
  };
}

function listenerOf(p: ProcessSpec): ListenerSpec {
  const idx = p.listen.lastIndexOf(':');
  return {
    process: p.name,
    proto: p.proto ?? 'tcp',
    address: p.listen.slice(0, idx),
    port: Number(p.listen.slice(idx + 1)),
    ...(p.reply ? { reply: p.reply } : {}),
  };
}

/** Names by pod: a SHA-256 each, thousands per run of a big cluster (~50 ms at 5,000 pods). */
const vethNames = new Map<string, string>();

const HEX = '0123456789abcdef';

function vethName(pod: string): string {
  let name = vethNames.get(pod);
  if (name !== undefined) return name;
  // The first 11 hex digits of SHA-256(pod), by the manifests' hasher over reused buffers (a
  // new hasher, array and strings per pod took 50 ms of a 5,000-pod cluster's build).
  const h = sha256Text(pod);
  name = 'cali';
  for (let i = 0; i < 11; i++) name += HEX[((h[i >> 1] as number) >> (i & 1 ? 0 : 4)) & 15];
  if (vethNames.size >= 100_000) vethNames.clear();
  vethNames.set(pod, name);
  return name;
}

/** The bridge of a `podNetwork: bridge` node (flannel's and the bridge CNI plugin's name). */
export const POD_BRIDGE = 'cni0';

/** A node's pod network: the cluster's settings, then the node's own, with the defaults. */
export function podNetworkOf(spec: ClusterSpec, node: NodeSpec): Required<PodNetworkSpec> {
  const p = { ...spec.podNetwork, ...node.podNetwork };
  return {
    type: p.type ?? 'routed',
    // kubeadm's preflight check requires bridge-nf-call-iptables=1.
    bridgeNfCallIptables: p.bridgeNfCallIptables ?? true,
    // flannel's CNI config (kube-flannel.yml cni-conf.json) sets "hairpinMode": true.
    hairpin: p.hairpin ?? true,
  };
}

/** A bridge-CNI host-side veth name (the bridge plugin's `veth` + 8 hex digits). */
function bridgeVethName(pod: string): string {
  return `veth${vethName(pod).slice(4, 12)}`;
}

/** The node's kube-proxy settings: the cluster's, then the node's own. */
export function kubeProxyOf(
  spec: ClusterSpec,
  node: NodeSpec,
): NonNullable<ClusterSpec['kubeProxy']> {
  return { ...spec.kubeProxy, ...node.kubeProxy };
}

/** A node's kube-proxy mode: its own, else the cluster's, else iptables (kube-proxy's default). */
export function nodeMode(spec: ClusterSpec, node: NodeSpec): KubeProxyMode {
  const m = kubeProxyOf(spec, node).mode;
  return m === 'nftables' || m === 'ipvs' ? m : 'iptables';
}

function proxierConfig(
  spec: ClusterSpec,
  settings: ClusterSettings,
  node: NodeSpec,
  nodeIPs: string[],
): ProxierConfig {
  const kp = kubeProxyOf(spec, node);
  return {
    ...DEFAULT_PROXIER_CONFIG,
    nodeName: node.name,
    nodeIPs,
    clusterCIDR:
      kp.clusterCIDR === undefined ? (spec.clusterCIDR ?? DEFAULT_CLUSTER_CIDR) : kp.clusterCIDR,
    masqueradeAll: kp.masqueradeAll ?? false,
    localhostNodePorts: kp.localhostNodePorts ?? true,
    nodePortAddresses: kp.nodePortAddresses ?? [],
    zone: node.zone ?? null,
    // The ServiceCIDR objects of the cluster (kube-apiserver's --service-cluster-ip-range).
    serviceCIDRs: [settings.serviceCIDR],
  };
}

/**
 * A node's rules (kube-proxy's merged with its own) by what they are made of: the Services and
 * EndpointSlices, the node's kube-proxy settings and own rules. An edit that leaves all of them
 * as they were (a label, a comment, a Deployment's image) gives the very same text, so neither
 * the generator (0.1-0.3 s at 5,000 Services) nor the engine's parser (cached by text) runs again.
 * The model is compared as JSON (~50 ms and a 3.6 MB string at 5,000 Services), written only
 * when an entry of the same settings was made from another model object: `hookpath run` (one
 * model, each node's settings once) never writes it, the lab does after an edit. The strings are
 * compared, never used as map keys: a multi-megabyte string as a map key cost 60-100 ms per
 * lookup (flattened and hashed anew by every get, delete and set), comparing equal strings costs
 * a memcmp. An entry holds its model only until the model is written as JSON.
 */
interface RulesEntry {
  readonly key: string;
  /** The model the text was made from, until it is written as JSON. */
  model: ManifestModel | null;
  modelJson: string | null;
  readonly text: string;
}
const rulesKept: RulesEntry[] = [];
const RULES_KEPT = 6;
const modelKeys = new WeakMap<ManifestModel, string>();

function modelJson(model: ManifestModel): string {
  let m = modelKeys.get(model);
  if (m === undefined) {
    m = JSON.stringify([model.services, model.endpointSlices]);
    modelKeys.set(model, m);
  }
  return m;
}

/** Whether the entry was made from this model, or from one with the same Services and slices. */
function madeFrom(e: RulesEntry, model: ManifestModel): boolean {
  if (e.model === model) return true;
  if (e.modelJson === null && e.model) {
    e.modelJson = modelJson(e.model);
    e.model = null;
  }
  return e.modelJson === modelJson(model);
}

function cachedRules(model: ManifestModel, key: unknown, make: () => string): string {
  const k = JSON.stringify(key);
  const at = rulesKept.findIndex((e) => e.key === k && madeFrom(e, model));
  const entry = (at >= 0 ? rulesKept.splice(at, 1)[0] : undefined) ?? {
    key: k,
    model,
    modelJson: null,
    text: make(),
  };
  rulesKept.unshift(entry);
  rulesKept.length = Math.min(rulesKept.length, RULES_KEPT);
  return entry.text;
}

/**
 * The manifests read into objects, by their text and the cluster's settings: `hookpath run` builds
 * a scenario once per kube-proxy mode from the same manifests (the mode changes no object), and
 * the lab re-runs the same text when the path or the mode changes; reading 5,000 Services' objects
 * is ~0.5 s. The model is never changed once read (the rules cache above relies on it too).
 */
const modelsKept: { text: string; settings: string; model: ManifestModel }[] = [];
const MODELS_KEPT = 2;

function cachedModel(text: string, settings: ClusterSettings): ManifestModel {
  const key = JSON.stringify(settings);
  const at = modelsKept.findIndex((e) => e.text === text && e.settings === key);
  const hit = at >= 0 ? modelsKept.splice(at, 1)[0] : undefined;
  const entry = hit ?? { text, settings: key, model: readManifests(text, settings) };
  modelsKept.unshift(entry);
  modelsKept.length = Math.min(modelsKept.length, MODELS_KEPT);
  return entry.model;
}

/** Builds every host of the cluster. `manifests` is the (possibly edited) YAML. */
export function buildCluster(spec: ClusterSpec, manifests: string): BuiltCluster {
  const settings = clusterSettings(spec);
  return buildClusterFromModel(spec, settings, cachedModel(manifests, settings));
}

/** The same from an already-built model (benchmarks build large models without YAML). */
export function buildClusterFromModel(
  spec: ClusterSpec,
  settings: ClusterSettings,
  model: ManifestModel,
): BuiltCluster {
  const b = new ClusterBuild(spec, settings, model);
  spec.nodes.forEach((node, i) => b.addNode(node, i));
  b.addRouter();
  for (const c of spec.clients ?? []) b.addClient(c);
  return b.finish();
}

type Iface = HostSpec['interfaces'][number];
type BridgeGw = ReturnType<typeof bridgeGateway>;

/** A cluster being built: its hosts and their views, links, and the nodes' lazy rules. */
class ClusterBuild {
  private readonly lanPrefix: number;
  private readonly slicesBy = new Map<string, EndpointSliceModel[]>();
  private readonly podsBy = new Map<string, PodModel[]>();
  private readonly specsOfPods: Map<PodModel, PodSpecEntry>;
  private readonly hosts: HostSpec[] = [];
  private readonly views: HostView[] = [];
  private readonly links: LinkView[] = [];
  private readonly ruleCache = new Map<string, string>();
  private readonly ruleMakers = new Map<string, () => string>();
  private readonly nftCache = new Map<string, string>();
  private readonly nftMakers = new Map<string, () => string>();
  private readonly modes = new Map<string, KubeProxyMode>();
  private readonly ruleProblems: BuiltCluster['ruleProblems'][number][] = [];
  private readonly podHosts = new Map<string, string>();
  private readonly ipvsByNode = new Map<string, IpvsRules>();
  private readonly usedNames: Set<string>;
  private readonly lanMembers: { host: string; iface: string }[] = [];
  private readonly router: NonNullable<ClusterSpec['routers']>[number] | undefined;
  /** Felix runs (and programs its chains on every node) when the manifests hold Calico resources. */
  private readonly felix: boolean;
  private readonly allWorkloads: FelixWorkload[];

  constructor(
    private readonly spec: ClusterSpec,
    private readonly settings: ClusterSettings,
    private readonly model: ManifestModel,
  ) {
    this.lanPrefix = prefixOf(spec.lan, 24);
    // Pushed, not copied: thousands of pods on one node would make copying quadratic.
    for (const sl of model.endpointSlices) {
      const k = `${sl.namespace}/${sl.service}`;
      const list = this.slicesBy.get(k);
      if (list) list.push(sl);
      else this.slicesBy.set(k, [sl]);
    }
    for (const p of model.pods) {
      if (!p.node || !p.ip) continue;
      const list = this.podsBy.get(p.node);
      if (list) list.push(p);
      else this.podsBy.set(p.node, [p]);
    }
    let specsOfPods = podSpecs.get(model);
    if (!specsOfPods) podSpecs.set(model, (specsOfPods = new Map()));
    this.specsOfPods = specsOfPods;
    this.usedNames = new Set<string>([
      ...spec.nodes.map((n) => n.name),
      ...(spec.clients ?? []).map((c) => c.name),
      ...(spec.routers ?? []).map((r) => r.name),
    ]);
    this.router = spec.routers?.[0];
    const calico = model.calico;
    this.felix = !!calico && (calico.hostEndpoints.length > 0 || calico.policies.length > 0);
    this.allWorkloads = this.felix ? model.pods.filter((p) => p.node && p.ip).map(workloadOf) : [];
  }

  private readonly rulesOf = (name: string): string | undefined => {
    let text = this.ruleCache.get(name);
    const make = this.ruleMakers.get(name);
    if (text === undefined && make) this.ruleCache.set(name, (text = make()));
    return text;
  };

  private readonly nftablesOf = (name: string): string | undefined => {
    let text = this.nftCache.get(name);
    const make = this.nftMakers.get(name);
    if (text === undefined && make) this.nftCache.set(name, (text = make()));
    return text;
  };

  /** A node: its interfaces and routes (pod veths or the cni0 bridge), rules, listeners, pods. */
  addNode(node: NodeSpec, i: number): void {
    const { spec } = this;
    const vipsHere = (spec.vips ?? [])
      .filter((v) => v.mode === 'kube-vip' && v.holder === node.name)
      .map((v) => v.ip);
    const pods = this.podsBy.get(node.name) ?? [];
    const podNet = podNetworkOf(spec, node);
    const bridgeGw = podNet.type === 'bridge' ? bridgeGateway(nodePodCIDR(spec, i)) : null;
    const { ifaces, routes } = this.nodeLinks(node, i, vipsHere, pods, bridgeGw, podNet.hairpin);
    const mode = nodeMode(spec, node);
    this.modes.set(node.name, mode);
    const base = proxierConfig(spec, this.settings, node, [node.ip, ...vipsHere]);
    // nftables mode's own defaults (nodePortAddresses: primary) decide the health servers too.
    const cfg = mode === 'nftables' ? nftablesConfig(base) : base;
    const { felixOut, ipvs } = this.nodeRules(node, mode, cfg, vipsHere, pods);
    if (ipvs)
      // A NOARP dummy device; its /32 addresses enter the local table only (no connected route).
      ifaces.push({
        name: 'kube-ipvs0',
        kind: 'dummy',
        addresses: ipvs.dummyAddresses.map((a) => `${a}/32`),
      });
    const np = deriveSettings(cfg);
    const listeners = this.nodeListeners(node, np);
    const kp = kubeProxyOf(spec, node);
    this.hosts.push({
      name: node.name,
      role: 'node',
      interfaces: ifaces,
      routes,
      // kube-proxy sets route_localnet=1 when localhost NodePorts are on (iptables mode, IPv4) and
      // nodePortAddresses include 127.0.0.0/8 (they do when empty); IPVS mode never sets it.
      // IPVS mode with strictARP sets arp_ignore=1 (pkg/proxy/ipvs/proxier.go, NewProxier).
      sysctls: {
        ipForward: node.sysctls?.ipForward ?? true,
        routeLocalnet: node.sysctls?.routeLocalnet ?? (ipvs ? false : np.localhostNodePorts),
        rpFilter: node.sysctls?.rpFilter ?? 0,
        ...(ipvs && kp.strictARP ? { arpIgnore: 1 as const } : {}),
        ...(bridgeGw ? { bridgeNfCallIptables: podNet.bridgeNfCallIptables } : {}),
      },
      listeners,
      ...(felixOut || ipvs
        ? {
            ipsets: [
              ...(felixOut?.ipsets.map((x) => ({ ...x, entries: [...x.entries] })) ?? []),
              ...(ipvs ? ipsetSpecs(ipvs.sets) : []),
            ],
          }
        : {}),
      ...(ipvs ? { ipvs: ipvs.ipvs } : {}),
      lazyRules: () => this.rulesOf(node.name) ?? '',
      deferChains: isPerServiceChain,
      // Lazily, like lazyRules: a big cluster generates it only for the nodes a packet reaches.
      ...(mode === 'nftables'
        ? {
            lazyNftables: () => this.nftablesOf(node.name) ?? '',
            deferNftChains: isPerServiceNftChain,
          }
        : {}),
    });
    this.lanMembers.push({ host: node.name, iface: 'eth0' });
    this.views.push(
      this.nodeView(node, i, vipsHere, listeners, ifaces, bridgeGw, podNet.bridgeNfCallIptables),
    );
    for (const pod of pods) this.addPod(node, pod, bridgeGw);
  }

  /**
   * The route to each node's pod CIDR via the node, made once and shared by every other node's
   * route list: N nodes have N(N-1) such routes (a routed CNI's host routes), and the engine
   * compiles a shared route once (host.ts, staticRoutes). 2,000 nodes took 34 s with a new route
   * object, and its compilation, per node and destination.
   */
  private podRoutesMade: readonly RouteSpec[] | null = null;
  private get podRoutes(): readonly RouteSpec[] {
    const { spec } = this;
    this.podRoutesMade ??= spec.nodes.map((other, j) => ({
      to: nodePodCIDR(spec, j),
      via: other.ip,
    }));
    return this.podRoutesMade;
  }

  /** eth0 on the LAN, a veth (or a cni0 port) per pod with its route, the routes to other nodes. */
  private nodeLinks(
    node: NodeSpec,
    i: number,
    vipsHere: readonly string[],
    pods: readonly PodModel[],
    bridgeGw: BridgeGw | null,
    hairpin: boolean,
  ): { ifaces: Iface[]; routes: RouteSpec[] } {
    const { spec } = this;
    const toPods = this.podRoutes;
    const routes: RouteSpec[] = [];
    for (let j = 0; j < toPods.length; j++) if (j !== i) routes.push(toPods[j] as RouteSpec);
    // Nodes route everything else to the LAN's gateway (a router of the scenario, or the LAN's
    // first address). Calico-style pods need it: proxy ARP answers 169.254.1.1 only when routed.
    routes.push({ to: 'default', via: this.router?.ip ?? lanGateway(spec.lan ?? DEFAULT_LAN) });
    const ifaces: Iface[] = [
      {
        name: 'eth0',
        addresses: [`${node.ip}/${this.lanPrefix}`, ...vipsHere.map((v) => `${v}/32`)],
        segment: 'lan',
      },
    ];
    // The bridge CNI plugin gives cni0 the first address of the node's pod CIDR: the pods'
    // gateway and the connected route to every pod of the node.
    if (bridgeGw)
      ifaces.push({ name: POD_BRIDGE, kind: 'bridge', addresses: [bridgeGw.withPrefix] });
    for (const pod of pods) {
      const host = podHostName(pod.namespace, pod.name, this.usedNames);
      this.podHosts.set(`${pod.namespace}/${pod.name}`, host);
      const key = `${pod.namespace}/${pod.name}`;
      const veth = bridgeGw ? bridgeVethName(key) : vethName(key);
      if (bridgeGw)
        ifaces.push({
          name: veth,
          addresses: [],
          kind: 'veth',
          segment: `veth:${host}`,
          master: POD_BRIDGE,
          hairpin,
        });
      else {
        ifaces.push({
          name: veth,
          addresses: [],
          kind: 'veth',
          segment: `veth:${host}`,
          proxyArp: true,
        });
        routes.push({ to: `${pod.ip}/32`, dev: veth });
      }
      this.links.push({ a: node.name, aIf: veth, b: host, bIf: 'eth0', segment: `veth:${host}` });
    }
    return { ifaces, routes };
  }

  /**
   * The node's rules, made when a packet first reaches it (large clusters): kube-proxy's (iptables,
   * nftables or IPVS mode), Felix's and the node's own; IPVS mode's virtual servers now.
   */
  private nodeRules(
    node: NodeSpec,
    mode: KubeProxyMode,
    cfg: ReturnType<typeof proxierConfig>,
    vipsHere: readonly string[],
    pods: readonly PodModel[],
  ): { felixOut: ReturnType<typeof renderFelix> | null; ipvs: IpvsRules | null } {
    const { spec, model } = this;
    const calico = model.calico;
    const proxierInput = {
      services: model.services,
      endpointSlices: model.endpointSlices,
      config: cfg,
    };
    // Felix's chains (its jumps inserted at the top of the built-in chains, as Felix's insert
    // mode does) and the IP sets they match on.
    const felixOut =
      this.felix && calico
        ? renderFelix({
            node: {
              name: node.name,
              ips: [node.ip, ...vipsHere],
              interfaces: [{ name: 'eth0', ips: [node.ip, ...vipsHere] }],
              workloads: pods.filter((p) => p.ip).map(workloadOf),
            },
            calico,
            allWorkloads: this.allWorkloads,
            // Calico's default IPv4 pool: the cluster CIDR, natOutgoing: true.
            ipPools: [{ cidr: spec.clusterCIDR ?? DEFAULT_CLUSTER_CIDR, natOutgoing: true }],
          })
        : null;
    /** The iptables rules beside kube-proxy's: Felix's, then the node's own extra rules. */
    const withHostRules = (kube: string): string => {
      const withFelix = felixOut ? mergeIptablesSave(kube, felixOut.rules) : kube;
      return withFelix ? mergeIptablesSave(withFelix, node.rules ?? '') : (node.rules ?? '');
    };
    const hostRules = [node.rules ?? '', felixOut?.rules ?? ''];
    const kp = kubeProxyOf(spec, node);
    // IPVS mode: kube-ipvs0, the ipsets and the virtual servers are part of the host, so they are
    // generated now; the iptables rules of either mode are made when a packet first needs them.
    const ipvs =
      mode === 'ipvs'
        ? generateIpvsRules(proxierInput, {
            ...(kp.scheduler ? { scheduler: kp.scheduler } : {}),
            strictARP: kp.strictARP ?? false,
          })
        : null;
    if (ipvs) {
      this.ipvsByNode.set(node.name, ipvs);
      this.ruleMakers.set(node.name, () => withHostRules(ipvs.dump));
    } else if (mode === 'nftables') {
      // Its own table; the host's iptables rules (Felix, a firewall) stay beside it, untouched.
      this.ruleMakers.set(node.name, () => withHostRules(''));
      this.nftMakers.set(node.name, () =>
        cachedRules(model, ['nftables', cfg], () => generateNftablesRules(proxierInput)),
      );
    } else
      this.ruleMakers.set(node.name, () =>
        cachedRules(model, ['iptables', cfg, hostRules], () =>
          withHostRules(generateIptablesRules(proxierInput)),
        ),
      );
    if (node.rules?.trim()) {
      for (const d of parseRuleset(node.rules).diagnostics) {
        if (d.severity === 'error')
          this.ruleProblems.push({
            node: node.name,
            line: d.line,
            column: d.column,
            message: d.hint ? `${d.message}. ${d.hint}` : d.message,
          });
      }
    }
    return { felixOut, ipvs };
  }

  /** The node's processes, kube-proxy's healthz, and its health-check servers per Local Service. */
  private nodeListeners(node: NodeSpec, np: ReturnType<typeof deriveSettings>): ListenerSpec[] {
    const listeners: ListenerSpec[] = (node.processes ?? []).map(listenerOf);
    listeners.push({
      process: 'kube-proxy',
      proto: 'tcp',
      address: '0.0.0.0',
      port: KUBE_PROXY_HEALTHZ_PORT,
      reply: 'HTTP/1.1 200 OK',
    });
    // pkg/proxy/healthcheck: the health servers listen on every address, or on the node's
    // nodePortAddresses; route_localnet=1 only when localhost NodePorts are in effect.
    const healthAddresses = np.nodePortMatchAll
      ? ['0.0.0.0']
      : np.nodePortIPs.filter((ip) => !ip.includes(':'));
    for (const svc of this.model.services) {
      if (svc.healthCheckNodePort === null || svc.externalTrafficPolicy !== 'Local') continue;
      const local = (this.slicesBy.get(`${svc.namespace}/${svc.name}`) ?? [])
        .flatMap((s) => s.endpoints)
        .filter((e) => e.nodeName === node.name && e.ready).length;
      // pkg/proxy/healthcheck/service_health.go: 200 with local endpoints, 503 without.
      const body = `{"service":{"namespace":"${svc.namespace}","name":"${svc.name}"},"localEndpoints":${local},"serviceProxyHealthy":true}`;
      for (const address of healthAddresses)
        listeners.push({
          process: 'kube-proxy',
          proto: 'tcp',
          address,
          port: svc.healthCheckNodePort,
          reply: local > 0 ? `HTTP/1.1 200 OK ${body}` : `HTTP/1.1 503 Service Unavailable ${body}`,
        });
    }
    return listeners;
  }

  private nodeView(
    node: NodeSpec,
    i: number,
    vipsHere: readonly string[],
    listeners: readonly ListenerSpec[],
    ifaces: readonly Iface[],
    bridgeGw: BridgeGw | null,
    nfCallIptables: boolean,
  ): HostView {
    const info = this.settings.nodes[i] as NodeInfo;
    return {
      name: node.name,
      kind: 'node',
      ips: [node.ip, ...vipsHere],
      node: null,
      workload: null,
      namespace: null,
      zone: node.zone ?? null,
      roles: Object.keys(info.labels)
        .filter((l) => l.startsWith('node-role.kubernetes.io/'))
        .map((l) => l.slice(24)),
      processes: processViews(listeners),
      ...(bridgeGw
        ? {
            bridge: {
              name: POD_BRIDGE,
              address: bridgeGw.ip,
              nfCallIptables,
              ports: ifaces
                .filter((f) => f.master === POD_BRIDGE)
                .map((f) => ({ iface: f.name, hairpin: f.hairpin ?? false })),
            },
          }
        : {}),
    };
  }

  /** A pod: its own host (eth0 to the node, its container's ports listening) and its view. */
  private addPod(node: NodeSpec, pod: PodModel, bridgeGw: BridgeGw | null): void {
    const host = this.podHosts.get(`${pod.namespace}/${pod.name}`) as string;
    const listeners: ListenerSpec[] = pod.ports.map((p) => ({
      process: pod.workload,
      proto: p.protocol.toLowerCase() as 'tcp' | 'udp' | 'sctp',
      address: '0.0.0.0',
      port: p.port,
      reply: pod.reply,
    }));
    this.hosts.push(podHostSpec(this.specsOfPods, pod, host, bridgeGw, listeners));
    this.views.push({
      name: host,
      kind: 'pod',
      ips: [pod.ip as string],
      node: node.name,
      workload: pod.workload,
      namespace: pod.namespace,
      zone: node.zone ?? null,
      roles: [],
      processes: processViews(listeners),
    });
  }

  /** The scenario's router: on the LAN and on its clients' net, with MetalLB BGP's routes. */
  addRouter(): void {
    const { router, spec } = this;
    if (!router) return;
    const clientNet = router.clientSideIp;
    const bgp = (spec.vips ?? []).filter((v) => v.mode === 'metallb-bgp');
    const routes: RouteSpec[] = bgp
      .map((v) => ({
        to: `${v.ip}/32`,
        nexthops: announcers(spec, this.model, v.ip).map((via) => ({ via })),
      }))
      .filter((r) => (r.nexthops?.length ?? 0) > 0);
    this.hosts.push({
      name: router.name,
      role: 'router',
      interfaces: [
        { name: 'eth0', addresses: [`${router.ip}/${this.lanPrefix}`], segment: 'lan' },
        { name: 'eth1', addresses: [clientNet], segment: `net:${router.name}` },
      ],
      routes,
      sysctls: { ipForward: true },
    });
    this.lanMembers.push({ host: router.name, iface: 'eth0' });
    this.views.push({
      name: router.name,
      kind: 'router',
      ips: [router.ip, clientNet.split('/')[0] as string],
      node: null,
      workload: null,
      namespace: null,
      zone: null,
      roles: [],
      processes: [],
    });
  }

  /** A client: on the LAN, or behind a router. */
  addClient(c: NonNullable<ClusterSpec['clients']>[number]): void {
    const { spec, router } = this;
    const behind = c.behind ? spec.routers?.find((r) => r.name === c.behind) : undefined;
    const prefix = behind ? prefixOf(behind.clientSideIp, 24) : this.lanPrefix;
    const segment = behind ? `net:${behind.name}` : 'lan';
    const listeners = (c.processes ?? []).map(listenerOf);
    this.hosts.push({
      name: c.name,
      role: 'client',
      interfaces: [{ name: 'eth0', addresses: [`${c.ip}/${prefix}`], segment }],
      routes: behind
        ? [{ to: 'default', via: behind.clientSideIp.split('/')[0] as string }]
        : router
          ? [{ to: 'default', via: router.ip }]
          : [],
      listeners,
    });
    if (behind) this.links.push({ a: c.name, aIf: 'eth0', b: behind.name, bIf: 'eth1', segment });
    else this.lanMembers.push({ host: c.name, iface: 'eth0' });
    this.views.push({
      name: c.name,
      kind: 'client',
      ips: [c.ip],
      node: null,
      workload: null,
      namespace: null,
      zone: null,
      roles: [],
      processes: processViews(listeners),
    });
  }

  /**
   * The LAN's links, the ARP owners of L2 VIPs, and the result. The diagram draws a segment as a
   * bus of the members its links name, so the LAN is its first member linked to each other one:
   * every pair of members was N(N-1)/2 links, 2 million (hundreds of MB sent to the page) at
   * 2,000 nodes.
   */
  finish(): BuiltCluster {
    const { spec, lanMembers, links } = this;
    const hub = lanMembers[0];
    for (let j = 1; hub && j < lanMembers.length; j++) {
      const b = lanMembers[j] as { host: string; iface: string };
      links.push({ a: hub.host, aIf: hub.iface, b: b.host, bIf: b.iface, segment: 'lan' });
    }
    const arpOwners: Record<string, string> = {};
    for (const v of spec.vips ?? [])
      if (v.mode === 'metallb-l2' && v.holder) arpOwners[v.ip] = v.holder;
    const { modes, ipvsByNode } = this;
    return {
      spec,
      settings: this.settings,
      model: this.model,
      network: { hosts: this.hosts, arpOwners },
      view: {
        hosts: this.views,
        links,
        vips: (spec.vips ?? []).map((v) => ({ ip: v.ip, mode: v.mode, holder: v.holder ?? null })),
      },
      rulesOf: this.rulesOf,
      modeOf: (n) => modes.get(n),
      nftablesOf: this.nftablesOf,
      ruleProblems: this.ruleProblems,
      podHosts: this.podHosts,
      ipvsOf: (name) => ipvsByNode.get(name),
    };
  }
}

/** A pod as Felix sees it: its workload interface, address, namespace and labels. */
function workloadOf(pod: PodModel): FelixWorkload {
  return {
    iface: vethName(`${pod.namespace}/${pod.name}`),
    ip: pod.ip as string,
    namespace: pod.namespace,
    serviceAccount: 'default',
    labels: pod.labels,
  };
}

function processViews(listeners: readonly ListenerSpec[]): HostView['processes'] {
  return listeners.map((l) => ({
    name: l.process,
    proto: l.proto,
    address: l.address,
    port: l.port,
  }));
}

/**
 * Pod hosts by pod, per model: `hookpath run` builds a cluster once per kube-proxy mode from the
 * same model (cached by text), and no pod's host depends on the mode. The same spec object again
 * lets the engine find its config without comparing it (specs are readonly). A pod (never changed
 * once read) gives the same listeners; its spec is reused while its host's name and gateway are
 * as they were. One WeakMap entry per model: 40,000 entries of their own slowed every GC.
 */
interface PodSpecEntry {
  readonly host: string;
  readonly gw: string | null;
  readonly spec: HostSpec;
}
const podSpecs = new WeakMap<ManifestModel, Map<PodModel, PodSpecEntry>>();

function podHostSpec(
  specs: Map<PodModel, PodSpecEntry>,
  pod: PodModel,
  host: string,
  bridgeGw: { readonly ip: string; readonly prefix: number } | null,
  listeners: readonly ListenerSpec[],
): HostSpec {
  const gw = bridgeGw ? `${bridgeGw.ip}/${bridgeGw.prefix}` : null;
  const hit = specs.get(pod);
  if (hit && hit.host === host && hit.gw === gw) return hit.spec;
  const spec: HostSpec = {
    name: host,
    role: 'pod',
    // Built by the network when a packet reaches it: a probe's path holds a few of thousands.
    generated: true,
    interfaces: [
      {
        name: 'eth0',
        addresses: [`${pod.ip}/${bridgeGw ? bridgeGw.prefix : 32}`],
        kind: 'veth',
        segment: `veth:${host}`,
      },
    ],
    routes: bridgeGw
      ? [{ to: 'default', via: bridgeGw.ip, dev: 'eth0' }]
      : [
          { to: '169.254.1.1/32', dev: 'eth0' },
          { to: 'default', via: '169.254.1.1', dev: 'eth0' },
        ],
    listeners,
  };
  specs.set(pod, { host, gw, spec });
  return spec;
}

/** Nodes that announce a MetalLB BGP address: all nodes, or only those with a local endpoint under eTP Local. */
function announcers(spec: ClusterSpec, model: ManifestModel, ip: string): string[] {
  const svcs = model.services.filter((s) => s.loadBalancerIngress.some((x) => x.ip === ip));
  const local = svcs.length > 0 && svcs.every((s) => s.externalTrafficPolicy === 'Local');
  return spec.nodes
    .filter(
      (n) =>
        !local ||
        svcs.some((s) =>
          model.endpointSlices.some(
            (sl) =>
              sl.namespace === s.namespace &&
              sl.service === s.name &&
              sl.endpoints.some((e) => e.nodeName === n.name && e.ready),
          ),
        ),
    )
    .map((n) => n.ip);
}

/** The first address of a node's pod CIDR, cni0's. */
function bridgeGateway(podCIDR: string): { ip: string; prefix: number; withPrefix: string } {
  const c = parseCidr(podCIDR);
  const base = c && c.family === 4 ? (c.addr as number) : (parseIPv4('10.244.0.0') as number);
  const prefix = c?.prefix ?? 24;
  const ip = formatIPv4((base + 1) >>> 0);
  return { ip, prefix, withPrefix: `${ip}/${prefix}` };
}

function lanGateway(lan: string): string {
  const c = parseCidr(lan);
  return c && c.family === 4 ? formatIPv4(((c.addr as number) + 1) >>> 0) : '192.168.50.1';
}

function podHostName(ns: string, name: string, used: Set<string>): string {
  const base = used.has(name) ? `${ns}.${name}` : name;
  used.add(base);
  return base;
}
