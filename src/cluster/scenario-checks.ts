/**
 * What the JSON Schema cannot say about a scenario's cluster: addresses and prefixes that exist
 * (no 999.1.1.1, no /33), a service CIDR the API server accepts, host names and addresses used
 * once, references that point at something. Each problem is placed at its field.
 */
import { canonicalIp, parseCidr, parseIPv4 } from '../engine/index.ts';
import { visible } from '../kube/manifests/names.ts';
import type { ClusterSpec, NodeSpec, ScenarioDef } from './scenario.ts';

export type FieldPath = readonly (string | number)[];

export interface FieldProblem {
  readonly path: FieldPath;
  readonly message: string;
}

/**
 * kube-apiserver refuses a service range with more than 20 host bits ("the mask must be >= 12",
 * cmd/kube-apiserver/app/options/validation.go); its IPv4 allocator never gives the network and
 * broadcast addresses and the first address goes to the `kubernetes` Service
 * (pkg/registry/core/service/ipallocator), so a /31 or /32 leaves nothing to allocate.
 */
export const SERVICE_CIDR_PREFIX = { min: 12, max: 30 };

function ipv4Problem(v: unknown): string | null {
  if (typeof v !== 'string' || parseIPv4(v) !== null) return null;
  return `'${visible(v)}' is not an IPv4 address: four numbers from 0 to 255, e.g. 192.168.50.10`;
}

/** An IPv4 prefix `A.B.C.D/N`, or (when `v6` allows it) an IPv6 one. */
function cidrProblem(v: unknown, v6 = false): string | null {
  if (typeof v !== 'string') return null;
  const c = parseCidr(v);
  if (c && (v6 || c.family === 4)) return null;
  const m = /^([^/]*)\/(\d+)$/.exec(v);
  if (m && parseIPv4(m[1] as string) !== null && Number(m[2]) > 32)
    return `'${visible(v)}': /${m[2]} is not a prefix length; an IPv4 prefix is /0 to /32`;
  if (m && parseIPv4(m[1] as string) === null && !canonicalIp(m[1] as string))
    return `'${visible(v)}': '${visible(m[1] as string)}' is not an IPv4 address (four numbers from 0 to 255)`;
  return `'${visible(v)}' is not a prefix like 10.96.0.0/12`;
}

function listenProblem(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const i = v.lastIndexOf(':');
  const addr = v.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(v.slice(i + 1));
  if (!canonicalIp(addr))
    return `'${visible(v)}': '${visible(addr)}' is not an address to listen on (0.0.0.0 for every address, or one of the host's)`;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return `'${visible(v)}': the port must be 1 to 65535`;
  return null;
}

function checkNode(n: Partial<NodeSpec>, at: FieldPath, out: FieldProblem[]): void {
  const put = (path: FieldPath, m: string | null) => {
    if (m) out.push({ path: [...at, ...path], message: m });
  };
  put(['ip'], ipv4Problem(n.ip));
  put(['podCIDR'], cidrProblem(n.podCIDR));
  (n.processes ?? []).forEach((p, i) => put(['processes', i, 'listen'], listenProblem(p.listen)));
  checkKubeProxy(n.kubeProxy, [...at, 'kubeProxy'], out);
}

function checkKubeProxy(
  kp: ClusterSpec['kubeProxy'] | undefined,
  at: FieldPath,
  out: FieldProblem[],
): void {
  (kp?.nodePortAddresses ?? []).forEach((a, i) => {
    if (a !== 'primary' && cidrProblem(a, true))
      out.push({
        path: [...at, 'nodePortAddresses', i],
        message: `'${visible(a)}' is neither a prefix (e.g. 192.168.10.0/24) nor 'primary'`,
      });
  });
  if (typeof kp?.clusterCIDR === 'string')
    kp.clusterCIDR.split(',').forEach((c) => {
      const m = cidrProblem(c.trim(), true);
      if (m) out.push({ path: [...at, 'clusterCIDR'], message: m });
    });
}

function checkServiceCIDR(v: string | undefined, at: FieldPath, out: FieldProblem[]): void {
  const c = v ? parseCidr(v) : null;
  if (!c || c.family !== 4) return;
  if (c.prefix < SERVICE_CIDR_PREFIX.min)
    out.push({
      path: at,
      message: `${v} is too large: kube-apiserver refuses a service range with more than 20 host bits ("for 32-bit addresses, the mask must be >= ${SERVICE_CIDR_PREFIX.min}")`,
    });
  else if (c.prefix > SERVICE_CIDR_PREFIX.max)
    out.push({
      path: at,
      message: `${v} leaves no ClusterIP to allocate: the API server never gives the network and broadcast addresses and gives the first one to the kubernetes Service; use /${SERVICE_CIDR_PREFIX.max} or shorter`,
    });
}

/** A probe's `byMode` may only name modes the scenario runs in, or it would never be checked. */
function checkProbeModes(def: ScenarioDef, out: FieldProblem[]): void {
  const modes: readonly string[] = def.kubeProxyModes?.length
    ? def.kubeProxyModes
    : [def.cluster.kubeProxy?.mode ?? 'iptables'];
  const check = (probes: ScenarioDef['probes'], at: FieldPath) =>
    (probes ?? []).forEach((p, i) => {
      for (const m of Object.keys(p.byMode ?? {}))
        if (!modes.includes(m))
          out.push({
            path: [...at, i, 'byMode', m],
            message: `the scenario does not run in ${m} mode, so this expectation is never checked; add ${m} to kubeProxyModes (now ${modes.join(', ')})`,
          });
    });
  check(def.probes, ['probes']);
  (def.variants ?? []).forEach((v, vi) => check(v.probes, ['variants', vi, 'probes']));
}

/** Every field check of the base cluster and of each variant's patch. */
export function scenarioProblems(def: ScenarioDef): FieldProblem[] {
  const out: FieldProblem[] = [];
  checkProbeModes(def, out);
  const c = def.cluster;
  const at = ['cluster'];
  for (const f of ['lan', 'serviceCIDR', 'clusterCIDR'] as const) {
    const m = cidrProblem(c[f]);
    if (m) out.push({ path: [...at, f], message: m });
  }
  if (!out.some((p) => p.path[1] === 'serviceCIDR'))
    checkServiceCIDR(c.serviceCIDR, [...at, 'serviceCIDR'], out);
  c.nodes.forEach((n, i) => checkNode(n, [...at, 'nodes', i], out));
  (c.clients ?? []).forEach((x, i) => {
    const m = ipv4Problem(x.ip);
    if (m) out.push({ path: [...at, 'clients', i, 'ip'], message: m });
    (x.processes ?? []).forEach((p, j) => {
      const l = listenProblem(p.listen);
      if (l) out.push({ path: [...at, 'clients', i, 'processes', j, 'listen'], message: l });
    });
  });
  (c.routers ?? []).forEach((r, i) => {
    const m = ipv4Problem(r.ip);
    if (m) out.push({ path: [...at, 'routers', i, 'ip'], message: m });
    const s = cidrProblem(r.clientSideIp);
    if (s) out.push({ path: [...at, 'routers', i, 'clientSideIp'], message: s });
  });
  const vips = (path: FieldPath, list: ClusterSpec['vips']) =>
    (list ?? []).forEach((v, i) => {
      const m = ipv4Problem(v.ip);
      if (m) out.push({ path: [...path, i, 'ip'], message: m });
    });
  const pool = (path: FieldPath, list: readonly string[] | undefined) =>
    (list ?? []).forEach((ip, i) => {
      const m = ipv4Problem(ip);
      if (m) out.push({ path: [...path, i], message: m });
    });
  vips([...at, 'vips'], c.vips);
  pool([...at, 'loadBalancerPool'], c.loadBalancerPool);
  checkKubeProxy(c.kubeProxy, [...at, 'kubeProxy'], out);
  checkHosts(c, out);
  (def.variants ?? []).forEach((v, vi) => {
    const p = v.cluster;
    const vat = ['variants', vi, 'cluster'];
    if (!p) return;
    (p.nodes ?? []).forEach((n, i) => {
      checkNode(n, [...vat, 'nodes', i], out);
      if (!c.nodes.some((b) => b.name === n.name) && n.ip === undefined)
        out.push({
          path: [...vat, 'nodes', i, 'name'],
          message: `the cluster has no node '${visible(String(n.name))}' to change (nodes: ${c.nodes.map((b) => b.name).join(', ')}); a new node needs an ip`,
        });
    });
    vips([...vat, 'vips'], p.vips);
    pool([...vat, 'loadBalancerPool'], p.loadBalancerPool);
    checkKubeProxy(p.kubeProxy, [...vat, 'kubeProxy'], out);
    checkVariantHosts(def, vi, out);
  });
  return out;
}

interface HostEntry {
  readonly kind: 'node' | 'client' | 'router';
  readonly name: string;
  readonly ip: string | undefined;
  readonly path: FieldPath;
}

function hostsOf(c: ClusterSpec): HostEntry[] {
  return [
    ...c.nodes.map((n, i) => ({
      kind: 'node' as const,
      name: n.name,
      ip: n.ip as string | undefined,
      path: ['cluster', 'nodes', i] as FieldPath,
    })),
    ...(c.clients ?? []).map((n, i) => ({
      kind: 'client' as const,
      name: n.name,
      ip: n.ip as string | undefined,
      path: ['cluster', 'clients', i] as FieldPath,
    })),
    ...(c.routers ?? []).map((n, i) => ({
      kind: 'router' as const,
      name: n.name,
      ip: n.ip as string | undefined,
      path: ['cluster', 'routers', i] as FieldPath,
    })),
  ];
}

function where(h: HostEntry, field: string): string {
  return `${h.path.join('.')}.${field}`;
}

/** Hosts share one namespace of names and one LAN: each name and address once. */
function checkDuplicates(hosts: readonly HostEntry[], out: FieldProblem[]): void {
  const byName = new Map<string, HostEntry>();
  const byIp = new Map<string, HostEntry>();
  for (const h of hosts) {
    const first = byName.get(h.name);
    if (first)
      out.push({
        path: [...h.path, 'name'],
        message: `the name '${visible(h.name)}' is already the ${first.kind} at ${where(first, 'name')}; every node, client and router needs its own name`,
      });
    else byName.set(h.name, h);
    const ip = h.ip === undefined ? null : canonicalIp(h.ip);
    if (!ip) continue;
    const other = byIp.get(ip);
    if (other)
      out.push({
        path: [...h.path, 'ip'],
        message: `${ip} is already the address of ${other.kind} ${other.name} (${where(other, 'ip')}); two hosts with one address make ARP answer for either`,
      });
    else byIp.set(ip, h);
  }
}

function checkHosts(c: ClusterSpec, out: FieldProblem[]): void {
  const hosts = hostsOf(c);
  checkDuplicates(hosts, out);
  const nodes = new Set(c.nodes.map((n) => n.name));
  (c.vips ?? []).forEach((v, i) => {
    if (v.holder !== undefined && !nodes.has(v.holder))
      out.push({
        path: ['cluster', 'vips', i, 'holder'],
        message: `no node named '${visible(v.holder)}' to hold ${v.ip}; nodes are ${[...nodes].join(', ')}`,
      });
  });
  const routers = new Set((c.routers ?? []).map((r) => r.name));
  (c.clients ?? []).forEach((x, i) => {
    if (x.behind !== undefined && !routers.has(x.behind))
      out.push({
        path: ['cluster', 'clients', i, 'behind'],
        message: `no router named '${visible(x.behind)}'${routers.size ? `; routers are ${[...routers].join(', ')}` : ' (the cluster has no routers)'}`,
      });
  });
}

/** A variant's patch may change node addresses and VIPs: the patched cluster must stay consistent. */
function checkVariantHosts(def: ScenarioDef, vi: number, out: FieldProblem[]): void {
  const c = def.cluster;
  const patch = def.variants?.[vi]?.cluster;
  if (!patch) return;
  const vat = ['variants', vi, 'cluster'];
  const hosts = hostsOf(c).map((h) => {
    if (h.kind !== 'node') return h;
    const j = (patch.nodes ?? []).findIndex((n) => n.name === h.name);
    const n = patch.nodes?.[j];
    return n?.ip !== undefined ? { ...h, ip: n.ip, path: [...vat, 'nodes', j] } : h;
  });
  (patch.nodes ?? []).forEach((n, j) => {
    if (!c.nodes.some((b) => b.name === n.name))
      hosts.push({ kind: 'node', name: n.name, ip: n.ip, path: [...vat, 'nodes', j] });
  });
  const found: FieldProblem[] = [];
  checkDuplicates(hosts, found);
  // Problems of the base cluster are reported once, at the base.
  out.push(...found.filter((p) => p.path[0] === 'variants'));
  const nodes = new Set(hosts.filter((h) => h.kind === 'node').map((h) => h.name));
  (patch.vips ?? []).forEach((v, i) => {
    if (v.holder !== undefined && !nodes.has(v.holder))
      out.push({
        path: [...vat, 'vips', i, 'holder'],
        message: `no node named '${visible(v.holder)}' to hold ${v.ip}; nodes are ${[...nodes].join(', ')}`,
      });
  });
}
