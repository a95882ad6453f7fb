/**
 * Endpoints as kube-proxy sees them: EndpointSlices folded into one sorted endpoint list per
 * service port (pkg/proxy/endpointslicecache.go), then split into the Cluster and Local
 * traffic-policy sets (pkg/proxy/topology.go, `CategorizeEndpoints`). Followed: kube-proxy
 * v1.34/v1.35 (node hints for PreferSameNode, zone hints, serving-terminating fallback).
 */
import { ipOfFamily } from './addr.ts';
import type { EndpointSliceModel, Protocol } from '../model.ts';

export interface ProxyEndpoint {
  readonly ip: string;
  readonly port: number;
  /** `ip:port`, `[ip]:port` for IPv6 (Go's net.JoinHostPort); also the sort key. */
  readonly text: string;
  readonly local: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly zoneHints: ReadonlySet<string> | null;
  readonly nodeHints: ReadonlySet<string> | null;
}

/** Key of a service port in kube-proxy's maps: namespace/name, port name, protocol. */
export function servicePortKey(ns: string, name: string, port: string, proto: Protocol): string {
  return `${ns}/${name}\u0000${port}\u0000${proto}`;
}

export function joinHostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/**
 * The EndpointsMap of one proxier: slices of the proxier's address family only, one entry per
 * unique `ip:port` (a terminating duplicate never replaces an existing entry), sorted by text.
 */
export function buildEndpointsMap(
  slices: readonly EndpointSliceModel[],
  family: 4 | 6,
  nodeName: string,
): Map<string, ProxyEndpoint[]> {
  const byPort = new Map<string, Map<string, ProxyEndpoint>>();
  const addressType = family === 4 ? 'IPv4' : 'IPv6';
  for (const slice of slices) {
    if (slice.addressType !== addressType) continue;
    for (const sp of slice.ports) {
      if (!sp.port) continue;
      const key = servicePortKey(slice.namespace, slice.service, sp.name, sp.protocol);
      let set = byPort.get(key);
      if (!set) byPort.set(key, (set = new Map()));
      for (const ep of slice.endpoints) {
        const first = ep.addresses[0];
        if (first === undefined) continue;
        const ip = ipOfFamily(first, family);
        if (ip === null) continue;
        const text = joinHostPort(ip, sp.port);
        if (set.has(text) && ep.terminating) continue;
        const forNodes = ep.hints?.forNodes ?? [];
        set.set(text, {
          ip,
          port: sp.port,
          text,
          local: nodeName !== '' && ep.nodeName === nodeName,
          ready: ep.ready,
          serving: ep.serving,
          terminating: ep.terminating,
          zoneHints: ep.hints && ep.hints.forZones.length ? new Set(ep.hints.forZones) : null,
          nodeHints: forNodes.length ? new Set(forNodes) : null,
        });
      }
    }
  }
  const out = new Map<string, ProxyEndpoint[]>();
  for (const [key, set] of byPort) {
    if (set.size === 0) continue;
    out.set(key, [...set.values()].sort(byText));
  }
  return out;
}

export function byText(a: { readonly text: string }, b: { readonly text: string }): number {
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

/** What `CategorizeEndpoints` needs to know about the service port. */
export interface PolicyView {
  readonly usesClusterEndpoints: boolean;
  readonly usesLocalEndpoints: boolean;
}

export interface Categorized {
  /** Usable endpoints for Cluster policy (null when the service never uses Cluster policy). */
  readonly cluster: readonly ProxyEndpoint[] | null;
  /** Usable endpoints for Local policy (null when the service never uses Local policy). */
  readonly local: readonly ProxyEndpoint[] | null;
  /** Union of both: every endpoint this node may DNAT to (one KUBE-SEP chain each). */
  readonly reachable: readonly ProxyEndpoint[];
  /** Whether the service has a usable endpoint anywhere in the cluster. */
  readonly hasAny: boolean;
}

type TopologyMode = '' | 'PreferSameZone' | 'PreferSameNode';

/**
 * topologyModeFromHints: hints are used only if every ready endpoint has one and one matches.
 * The Service's topology annotation (ServiceModel.topologyMode) is not consulted: the version
 * followed relies on the EndpointSlice controller to set hints only when they are wanted.
 */
function topologyMode(eps: readonly ProxyEndpoint[], nodeName: string, zone: string): TopologyMode {
  let forNode = false;
  let allNode = true;
  let forZone = false;
  let allZone = true;
  for (const ep of eps) {
    if (!ep.ready) continue;
    if (!ep.nodeHints) allNode = false;
    else if (ep.nodeHints.has(nodeName)) forNode = true;
    if (!ep.zoneHints) allZone = false;
    else if (ep.zoneHints.has(zone)) forZone = true;
  }
  // PreferSameTrafficDistribution is on by default from v1.34.
  if (allNode && forNode) return 'PreferSameNode';
  if (allZone && forZone) return 'PreferSameZone';
  return '';
}

function availableForTopology(
  ep: ProxyEndpoint,
  mode: TopologyMode,
  nodeName: string,
  zone: string,
): boolean {
  if (mode === 'PreferSameNode') return ep.nodeHints?.has(nodeName) ?? false;
  if (mode === 'PreferSameZone') return ep.zoneHints?.has(zone) ?? false;
  return true;
}

export function categorizeEndpoints(
  eps: readonly ProxyEndpoint[],
  svc: PolicyView,
  nodeName: string,
  zone: string,
): Categorized {
  let cluster: ProxyEndpoint[] | null = null;
  let local: ProxyEndpoint[] | null = null;
  let hasAny = false;
  let mode: TopologyMode = '';
  if (svc.usesClusterEndpoints) {
    mode = topologyMode(eps, nodeName, zone);
    cluster = eps.filter((ep) => ep.ready && availableForTopology(ep, mode, nodeName, zone));
    // No ready endpoint anywhere: fall back to serving-and-terminating ones.
    if (cluster.length === 0) cluster = eps.filter((ep) => ep.serving && ep.terminating);
    if (cluster.length > 0) hasAny = true;
  }
  if (!svc.usesLocalEndpoints) return { cluster, local, reachable: cluster ?? [], hasAny };
  let localReady = false;
  let localServingTerminating = false;
  for (const ep of eps) {
    if (ep.ready) {
      hasAny = true;
      if (ep.local) localReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAny = true;
      if (ep.local) localServingTerminating = true;
    }
  }
  let usesServingTerminating = false;
  if (localReady) local = eps.filter((ep) => ep.local && ep.ready);
  else if (localServingTerminating) {
    usesServingTerminating = true;
    local = eps.filter((ep) => ep.local && ep.serving && ep.terminating);
  }
  if (!svc.usesClusterEndpoints) return { cluster, local, reachable: local ?? [], hasAny };
  // With every ready endpoint in `cluster`, it is a superset of a ready-only `local`.
  if (mode === '' && !usesServingTerminating) {
    return { cluster, local, reachable: cluster ?? [], hasAny };
  }
  const merged = new Map<string, ProxyEndpoint>();
  for (const ep of cluster ?? []) merged.set(ep.text, ep);
  for (const ep of local ?? []) merged.set(ep.text, ep);
  return { cluster, local, reachable: [...merged.values()].sort(byText), hasAny };
}
