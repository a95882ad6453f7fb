/**
 * Services as the API server stores them: defaults applied (type, protocol, targetPort,
 * traffic policies, session affinity timeout), values validated, and ClusterIPs, nodePorts and
 * healthCheckNodePorts allocated when absent. Allocation is deterministic (lowest free value in
 * manifest order) where the real allocators pick at random, so scenarios are reproducible.
 */
import { canonicalIp, cidrContains, formatIPv4, parseCidr } from '../../engine/index.ts';
import type { LoadBalancerIngress, Protocol, ServiceModel, ServicePortModel } from '../model.ts';
import { nameProblem } from './names.ts';
import type { Reader } from './reader.ts';
import type { ClusterSettings } from './types.ts';

const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;
const NODEPORT_MIN = 30000;
const NODEPORT_MAX = 32767;
/** Annotations that VIP providers read for a LoadBalancer address. */
const LB_IP_ANNOTATIONS = [
  'kube-vip.io/loadbalancerIPs',
  'metallb.universe.tf/loadBalancerIPs',
  'metallb.io/loadBalancerIPs',
];

export interface ServiceDraft {
  readonly reader: Reader;
  svc: ServiceModel;
  readonly wantsNodePorts: boolean;
  readonly wantsHealthCheck: boolean;
  readonly wantsClusterIP: boolean;
  readonly wantsLoadBalancerIP: boolean;
}

// eslint-disable-next-line max-lines-per-function -- reads a Service's fields top to bottom, as the API documents them
export function readService(
  r: Reader,
  namespace: string,
  name: string,
  cluster: ClusterSettings,
): ServiceDraft {
  const badName = nameProblem(name, 'dns1035-label', 'a Service name');
  if (badName) r.report(['metadata', 'name'], badName);
  const type = (r.str(['spec', 'type'], { enum: TYPES }) ?? 'ClusterIP') as ServiceModel['type'];
  const rawPorts = r.list(['spec', 'ports']);
  if (type !== 'ExternalName' && rawPorts.length === 0)
    r.report(['spec'], 'spec.ports needs at least one port');
  const ports: ServicePortModel[] = [];
  const seenNames = new Set<string>();
  rawPorts.forEach((_, i) => {
    const p = ['spec', 'ports', i] as const;
    const port = r.int([...p, 'port'], { required: true, min: 1, max: 65535 });
    const protocol = (r.str([...p, 'protocol'], { enum: ['TCP', 'UDP', 'SCTP'] }) ??
      'TCP') as Protocol;
    let pname = r.str([...p, 'name'], { name: { rule: 'port-name', what: 'a port name' } }) ?? '';
    if (rawPorts.length > 1 && !pname) {
      r.report([...p], 'every port needs a name when a Service has more than one port');
      pname = `port-${i}`;
    }
    if (pname && seenNames.has(`${pname}`))
      r.report([...p, 'name'], `port name '${pname}' is used twice`);
    seenNames.add(pname);
    const tpRaw = r.get([...p, 'targetPort']);
    let targetPort: number | string = port ?? 0;
    if (typeof tpRaw === 'number') {
      if (!Number.isInteger(tpRaw) || tpRaw < 1 || tpRaw > 65535)
        r.report([...p, 'targetPort'], `${tpRaw} is not a port (1..65535)`);
      else targetPort = tpRaw;
    } else if (typeof tpRaw === 'string') {
      if (/^\d+$/.test(tpRaw)) targetPort = Number(tpRaw);
      else if (nameProblem(tpRaw, 'port-name', 'a named targetPort'))
        r.report(
          [...p, 'targetPort'],
          `neither a port number nor a port name: ${nameProblem(tpRaw, 'port-name', 'a named targetPort') ?? ''}`,
        );
      else targetPort = tpRaw;
    } else if (tpRaw !== undefined && tpRaw !== null)
      r.report([...p, 'targetPort'], 'must be a port number or a port name');
    const nodePort =
      r.int([...p, 'nodePort'], {
        min: NODEPORT_MIN,
        max: NODEPORT_MAX,
        what: 'the default NodePort range is 30000-32767',
      }) ?? null;
    if (nodePort !== null && type !== 'NodePort' && type !== 'LoadBalancer')
      r.report(
        [...p, 'nodePort'],
        `nodePort is only allowed for type NodePort or LoadBalancer, not ${type}`,
      );
    if (port !== undefined) ports.push({ name: pname, port, protocol, targetPort, nodePort });
  });
  const ipOf = (path: readonly (string | number)[], v: unknown): string | null => {
    if (v === undefined || v === null || v === '') return null;
    const ip = typeof v === 'string' ? canonicalIp(v) : null;
    if (!ip) r.report(path, `'${String(v)}' is not an IP address`);
    return ip;
  };
  const clusterIPRaw = r.get(['spec', 'clusterIP']);
  let clusterIP: string | null = null;
  let headless = false;
  if (clusterIPRaw === 'None') headless = true;
  else {
    clusterIP = ipOf(['spec', 'clusterIP'], clusterIPRaw);
    const cidr = parseCidr(cluster.serviceCIDR);
    if (clusterIP && cidr && !cidrContains(cidr, clusterIP))
      r.report(
        ['spec', 'clusterIP'],
        `${clusterIP} is outside the service CIDR ${cluster.serviceCIDR}`,
      );
  }
  const externalIPs = r
    .list(['spec', 'externalIPs'])
    .flatMap((v, i) => ipOf(['spec', 'externalIPs', i], v) ?? []);
  const eTP = (r.str(['spec', 'externalTrafficPolicy'], { enum: ['Cluster', 'Local'] }) ??
    'Cluster') as 'Cluster' | 'Local';
  if (
    eTP === 'Local' &&
    type !== 'NodePort' &&
    type !== 'LoadBalancer' &&
    externalIPs.length === 0
  ) {
    r.report(
      ['spec', 'externalTrafficPolicy'],
      'externalTrafficPolicy applies to NodePort and LoadBalancer Services (and external IPs); it has no effect here',
      'warning',
    );
  }
  const iTP = (r.str(['spec', 'internalTrafficPolicy'], { enum: ['Cluster', 'Local'] }) ??
    'Cluster') as 'Cluster' | 'Local';
  const affinity = r.str(['spec', 'sessionAffinity'], { enum: ['None', 'ClientIP'] }) ?? 'None';
  const timeout =
    r.int(['spec', 'sessionAffinityConfig', 'clientIP', 'timeoutSeconds'], {
      min: 1,
      max: 86400,
    }) ?? 10800;
  const ranges = r.list(['spec', 'loadBalancerSourceRanges']).flatMap((v, i) => {
    if (typeof v !== 'string' || !parseCidr(v.trim())) {
      r.report(
        ['spec', 'loadBalancerSourceRanges', i],
        `'${String(v)}' is not a CIDR like 203.0.113.0/24`,
      );
      return [];
    }
    return [v];
  });
  const annotations = r.labels(['metadata', 'annotations']);
  const ingress: LoadBalancerIngress[] = [];
  if (type === 'LoadBalancer') {
    const fromSpec = ipOf(['spec', 'loadBalancerIP'], r.get(['spec', 'loadBalancerIP']));
    if (fromSpec) ingress.push({ ip: fromSpec });
    for (const a of LB_IP_ANNOTATIONS) {
      for (const v of (annotations[a] ?? '').split(',').filter(Boolean)) {
        const ip = ipOf(['metadata', 'annotations', a], v.trim());
        if (ip && !ingress.some((x) => x.ip === ip)) ingress.push({ ip });
      }
    }
    r.list(['status', 'loadBalancer', 'ingress']).forEach((_, i) => {
      const ip = ipOf(
        ['status', 'loadBalancer', 'ingress', i, 'ip'],
        r.get(['status', 'loadBalancer', 'ingress', i, 'ip']),
      );
      const mode = r.str(['status', 'loadBalancer', 'ingress', i, 'ipMode'], {
        enum: ['VIP', 'Proxy'],
      });
      if (ip && !ingress.some((x) => x.ip === ip))
        ingress.push(mode ? { ip, ipMode: mode as 'VIP' | 'Proxy' } : { ip });
    });
  } else if (r.get(['spec', 'loadBalancerIP']) !== undefined) {
    r.report(
      ['spec', 'loadBalancerIP'],
      `loadBalancerIP only applies to type LoadBalancer, not ${type}`,
      'warning',
    );
  }
  const hcnp =
    r.int(['spec', 'healthCheckNodePort'], { min: NODEPORT_MIN, max: NODEPORT_MAX }) ?? null;
  const topo =
    annotations['service.kubernetes.io/topology-mode'] ??
    annotations['service.kubernetes.io/topology-aware-hints'];
  const selectorMap =
    r.get(['spec', 'selector']) === undefined ? null : r.labels(['spec', 'selector']);
  const svc: ServiceModel = {
    namespace,
    name,
    type,
    clusterIP: headless || type === 'ExternalName' ? null : clusterIP,
    ports,
    externalIPs,
    loadBalancerIngress: ingress,
    loadBalancerSourceRanges: ranges,
    externalTrafficPolicy: eTP,
    internalTrafficPolicy: iTP,
    healthCheckNodePort: hcnp,
    sessionAffinity:
      affinity === 'ClientIP' ? { type: 'ClientIP', timeoutSeconds: timeout } : { type: 'None' },
    topologyMode: topo === 'Auto' || topo === 'auto' ? 'Auto' : null,
    selector: selectorMap,
  };
  return {
    reader: r,
    svc,
    wantsNodePorts:
      type === 'NodePort' ||
      (type === 'LoadBalancer' && r.get(['spec', 'allocateLoadBalancerNodePorts']) !== false),
    wantsHealthCheck: type === 'LoadBalancer' && eTP === 'Local' && hcnp === null,
    wantsClusterIP: !headless && type !== 'ExternalName' && clusterIP === null,
    wantsLoadBalancerIP: type === 'LoadBalancer' && ingress.length === 0,
  };
}

/** Fills in what the API server and the VIP provider allocate. */
// eslint-disable-next-line max-lines-per-function -- ClusterIP and NodePort allocation in the apiserver's order
export function allocate(drafts: readonly ServiceDraft[], cluster: ClusterSettings): void {
  const usedPorts = new Set<number>();
  const usedIps = new Set<string>();
  for (const d of drafts) {
    for (const p of d.svc.ports)
      if (p.nodePort !== null) {
        if (usedPorts.has(p.nodePort))
          d.reader.report(
            ['spec', 'ports'],
            `nodePort ${p.nodePort} is already allocated to another Service`,
          );
        usedPorts.add(p.nodePort);
      }
    if (d.svc.healthCheckNodePort !== null) usedPorts.add(d.svc.healthCheckNodePort);
    if (d.svc.clusterIP) {
      if (usedIps.has(d.svc.clusterIP))
        d.reader.report(
          ['spec', 'clusterIP'],
          `clusterIP ${d.svc.clusterIP} is already allocated to another Service`,
        );
      usedIps.add(d.svc.clusterIP);
    }
  }
  const nextPort = () => {
    for (let p = NODEPORT_MIN; p <= NODEPORT_MAX; p++)
      if (!usedPorts.has(p)) return (usedPorts.add(p), p);
    return null;
  };
  const cidr = parseCidr(cluster.serviceCIDR);
  // The API server's IPv4 allocator never gives the network or broadcast address, and the first
  // address is the `kubernetes` Service's (pkg/registry/core/service/ipallocator). The lab gives
  // the lowest free address from the 10th on (reproducible where the real allocator picks at
  // random), then the lower ones, so a small range is used up before a Service is refused.
  const size = cidr && cidr.family === 4 ? 2 ** (32 - cidr.prefix) : 0;
  const offsets = function* () {
    for (let o = 10; o < size - 1; o++) yield o;
    for (let o = 2; o < Math.min(10, size - 1); o++) yield o;
  };
  const free = offsets();
  const nextIp = () => {
    if (!cidr || cidr.family !== 4) return null;
    for (let o = free.next(); !o.done; o = free.next()) {
      const ip = formatIPv4(((cidr.addr as number) + o.value) >>> 0);
      if (!usedIps.has(ip)) return (usedIps.add(ip), ip);
    }
    return null;
  };
  const usable = Math.max(0, size - 3);
  const pool = [...cluster.loadBalancerPool];
  const usedLb = new Set(drafts.flatMap((d) => d.svc.loadBalancerIngress.map((x) => x.ip)));
  for (const d of drafts) {
    let svc = d.svc;
    if (d.wantsClusterIP) {
      const ip = nextIp();
      // The API server refuses the Service; the lab says so instead of dropping it silently.
      if (ip === null)
        d.reader.report(
          ['metadata', 'name'],
          cidr?.family === 4
            ? `no ClusterIP is left for this Service in the service CIDR ${cluster.serviceCIDR} (it has ${usable} address${usable === 1 ? '' : 'es'} for Services: not the network and broadcast addresses, and the first is the kubernetes Service's); the API server refuses it with "failed to allocate a serviceIP: range is full". Give the cluster a larger serviceCIDR`
            : `cannot allocate a ClusterIP: the service CIDR '${cluster.serviceCIDR}' is not an IPv4 prefix`,
        );
      svc = { ...svc, clusterIP: ip };
    }
    const port = () => {
      const p = nextPort();
      if (p === null)
        d.reader.report(
          ['spec', 'ports'],
          `no NodePort is left in ${NODEPORT_MIN}-${NODEPORT_MAX}; the API server refuses this Service ("range is full")`,
        );
      return p;
    };
    if (d.wantsNodePorts)
      svc = {
        ...svc,
        ports: svc.ports.map((p) => (p.nodePort === null ? { ...p, nodePort: port() } : p)),
      };
    if (d.wantsHealthCheck) svc = { ...svc, healthCheckNodePort: port() };
    if (d.wantsLoadBalancerIP) {
      // A LoadBalancer IP can be shared by Services on different ports (kube-vip, MetalLB sharing key).
      const ip = pool.find((x) => !usedLb.has(x)) ?? pool[0];
      if (ip) svc = { ...svc, loadBalancerIngress: [{ ip }] };
      else
        d.reader.report(
          ['spec', 'type'],
          'this LoadBalancer Service has no address: set spec.loadBalancerIP or give the cluster a VIP pool',
          'warning',
        );
    }
    d.svc = svc;
  }
}
