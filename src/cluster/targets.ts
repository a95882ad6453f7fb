/**
 * The path picker's vocabulary: who can send (`client/laptop`, `pod/web`, `pod/web@worker-1` (the
 * workload's pod on that node), `node/cp-1`, `node/cp-1/curl`) and where to (`vip:22`, `svc/web:80`, `lb/web:443`, `nodeport/web@worker-1`,
 * `localhost-nodeport/web@cp-1`, `healthcheck/web@worker-1`, `externalip/web:80`, `pod/web:8080`,
 * `node/cp-1:22`, or a plain `ADDRESS:PORT`), resolved against the built cluster.
 */
import { canonicalIp } from '../engine/index.ts';
import type { ServiceModel, ServicePortModel } from '../kube/model.ts';
import type { BuiltCluster } from './topology.ts';
import type { DestinationChoice, PathChoices, SenderChoice } from './types.ts';

export interface ResolvedSender {
  readonly host: string;
  readonly process: string;
}

export interface ResolvedTarget {
  readonly address: string;
  readonly port: number;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  /** The sender must be this node (127.0.0.1 targets). */
  readonly onlyFrom: string | null;
}

type Result<T> = { readonly ok: T } | { readonly error: string };

/** The host of pod (or workload) `name`; `NAME@NODE` picks the workload's pod on that node. */
function findPodHost(c: BuiltCluster, name: string): string | null {
  const at = name.lastIndexOf('@');
  const [base, node] = at > 0 ? [name.slice(0, at), name.slice(at + 1)] : [name, null];
  const onNode = (p: (typeof c.model.pods)[number]) => p.ip && (node === null || p.node === node);
  const pod =
    c.model.pods.find((p) => p.name === base && onNode(p)) ??
    c.model.pods.find((p) => p.workload === base && onNode(p));
  return pod ? (c.podHosts.get(`${pod.namespace}/${pod.name}`) ?? null) : null;
}

export function resolveSender(c: BuiltCluster, id: string): Result<ResolvedSender> {
  const [kind, name, proc] = id.split('/');
  if (!name) {
    // A bare name: any host.
    const h = c.view.hosts.find((x) => x.name === id);
    return h
      ? { ok: { host: h.name, process: h.kind === 'pod' ? 'app' : 'curl' } }
      : { error: `no sender '${id}'` };
  }
  if (kind === 'client' || kind === 'router') {
    return c.view.hosts.some((h) => h.name === name && (h.kind === 'client' || h.kind === 'router'))
      ? { ok: { host: name, process: proc ?? 'curl' } }
      : { error: `no client named '${name}'` };
  }
  if (kind === 'node') {
    return c.view.hosts.some((h) => h.name === name && h.kind === 'node')
      ? { ok: { host: name, process: proc ?? 'curl' } }
      : { error: `no node named '${name}'` };
  }
  if (kind === 'pod') {
    const host = findPodHost(c, name);
    return host
      ? { ok: { host, process: proc ?? 'app' } }
      : { error: `no running pod or workload named '${name}'` };
  }
  return { error: `a sender is client/NAME, pod/NAME or node/NAME, not '${id}'` };
}

function servicePort(svc: ServiceModel, ref: string | undefined): ServicePortModel | null {
  if (ref === undefined) return svc.ports[0] ?? null;
  return svc.ports.find((p) => p.name === ref || String(p.port) === ref) ?? null;
}

function lowerProto(p: ServicePortModel): 'tcp' | 'udp' | 'sctp' {
  return p.protocol.toLowerCase() as 'tcp' | 'udp' | 'sctp';
}

// eslint-disable-next-line max-lines-per-function -- one case per target kind of the probe syntax (pod/, svc/, node/, lb/ ...)
export function resolveTarget(c: BuiltCluster, id: string): Result<ResolvedTarget> {
  const plain = /^(\[[^\]]+\]|[^:/@]+):(\d{1,5})$/.exec(id);
  if (plain && canonicalIp((plain[1] as string).replace(/^\[|\]$/g, ''))) {
    return {
      ok: {
        address: canonicalIp((plain[1] as string).replace(/^\[|\]$/g, '')) as string,
        port: Number(plain[2]),
        proto: 'tcp',
        onlyFrom: null,
      },
    };
  }
  const m = /^([a-z-]+)(?:\/([^:@]+))?(?::([^@]+))?(?:@(.+))?$/.exec(id);
  if (!m)
    return {
      error: `'${id}' is not a destination; write ADDRESS:PORT, vip:PORT, svc/NAME:PORT, nodeport/NAME@NODE, ...`,
    };
  const [, kind, name, portRef, node] = m as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  const svc = name
    ? c.model.services.find((s) => s.name === name || `${s.namespace}/${s.name}` === name)
    : undefined;
  const needSvc = (): Result<ServiceModel> =>
    svc ? { ok: svc } : { error: `no Service named '${name ?? ''}'` };
  const nodeIp = (n: string | undefined) => c.spec.nodes.find((x) => x.name === n)?.ip;
  switch (kind) {
    case 'vip': {
      const ip = c.spec.vips?.[0]?.ip;
      if (!ip) return { error: 'this cluster has no VIP' };
      const port = Number(name ?? portRef);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        return { error: `vip needs a port: vip:22` };
      return { ok: { address: ip, port, proto: 'tcp', onlyFrom: null } };
    }
    case 'svc':
    case 'lb':
    case 'externalip': {
      const s = needSvc();
      if ('error' in s) return s;
      const p = servicePort(s.ok, portRef);
      if (!p) return { error: `Service ${s.ok.name} has no port ${portRef}` };
      const address =
        kind === 'svc'
          ? s.ok.clusterIP
          : kind === 'lb'
            ? (s.ok.loadBalancerIngress[0]?.ip ?? null)
            : (s.ok.externalIPs[0] ?? null);
      if (!address)
        return {
          error: `Service ${s.ok.name} has no ${kind === 'svc' ? 'cluster IP' : kind === 'lb' ? 'load-balancer address' : 'external IP'}`,
        };
      return { ok: { address, port: p.port, proto: lowerProto(p), onlyFrom: null } };
    }
    case 'nodeport':
    case 'localhost-nodeport':
    case 'healthcheck': {
      const s = needSvc();
      if ('error' in s) return s;
      const ip = nodeIp(node);
      if (!ip)
        return {
          error: `${kind} needs a node: ${kind}/${s.ok.name}@NODE (nodes: ${c.spec.nodes.map((n) => n.name).join(', ')})`,
        };
      if (kind === 'healthcheck') {
        if (s.ok.healthCheckNodePort === null)
          return {
            error: `Service ${s.ok.name} has no healthCheckNodePort (only LoadBalancer Services with externalTrafficPolicy: Local have one)`,
          };
        return {
          ok: { address: ip, port: s.ok.healthCheckNodePort, proto: 'tcp', onlyFrom: null },
        };
      }
      const p = servicePort(s.ok, portRef);
      if (!p?.nodePort)
        return {
          error: `Service ${s.ok.name} has no NodePort${portRef ? ` for port ${portRef}` : ''}`,
        };
      return {
        ok: {
          address: kind === 'nodeport' ? ip : '127.0.0.1',
          port: p.nodePort,
          proto: lowerProto(p),
          onlyFrom: kind === 'nodeport' ? null : (node as string),
        },
      };
    }
    case 'pod': {
      // pod/NAME:PORT, or pod/WORKLOAD:PORT@NODE for the workload's pod on that node.
      const host = name ? findPodHost(c, node ? `${name}@${node}` : name) : null;
      const view = c.view.hosts.find((h) => h.name === host);
      if (!view) return { error: `no running pod or workload named '${name ?? ''}'` };
      const port = Number(portRef ?? view.processes[0]?.port);
      if (!Number.isInteger(port)) return { error: `pod/${name}:PORT needs a port` };
      return { ok: { address: view.ips[0] as string, port, proto: 'tcp', onlyFrom: null } };
    }
    case 'node':
    case 'client': {
      const view = c.view.hosts.find((h) => h.name === name);
      const port = Number(portRef);
      if (!view) return { error: `no ${kind} named '${name ?? ''}'` };
      if (!Number.isInteger(port)) return { error: `${kind}/${name}:PORT needs a port` };
      return { ok: { address: view.ips[0] as string, port, proto: 'tcp', onlyFrom: null } };
    }
    default:
      return { error: `unknown destination kind '${kind}'` };
  }
}

/** Everything the path picker can offer for this cluster. */
// eslint-disable-next-line max-lines-per-function -- the path picker's senders and destinations per target kind, in the order shown
export function pathChoices(c: BuiltCluster): PathChoices {
  const senders: SenderChoice[] = c.view.hosts
    .filter((h) => h.kind !== 'router')
    .flatMap((h) => [
      {
        id: h.kind === 'pod' ? `pod/${h.name}` : `${h.kind}/${h.name}`,
        kind: h.kind,
        label: h.kind === 'pod' ? `${h.name} (${h.node})` : h.name,
        host: h.name,
      },
      // A process on a node sends from that node (OUTPUT path), as `node/NAME/PROCESS`.
      ...(h.kind === 'node'
        ? h.processes
            .filter((p) => p.name !== 'kube-proxy')
            .map((p) => ({
              id: `node/${h.name}/${p.name}`,
              kind: h.kind,
              label: `${h.name} · ${p.name}`,
              host: h.name,
            }))
        : []),
    ]);
  const dest: DestinationChoice[] = [];
  // A set, not a scan of the list: tens of thousands of pods make the scan quadratic.
  const ids = new Set<string>();
  const add = (d: DestinationChoice) => {
    if (ids.has(d.id)) return;
    ids.add(d.id);
    dest.push(d);
  };
  const vip = c.spec.vips?.[0];
  if (vip) {
    const holder = c.view.hosts.find((h) => h.name === vip.holder);
    const ports = new Set<number>([
      ...(holder?.processes.filter((p) => p.name !== 'kube-proxy').map((p) => p.port) ?? []),
      ...c.model.services
        .filter((s) => s.loadBalancerIngress.some((x) => x.ip === vip.ip))
        .flatMap((s) => s.ports.map((p) => p.port)),
    ]);
    for (const port of [...ports].sort((a, b) => a - b))
      add({
        id: `vip:${port}`,
        kind: 'vip',
        label: `VIP ${vip.ip}:${port}`,
        address: vip.ip,
        port,
        proto: 'tcp',
      });
  }
  for (const s of c.model.services) {
    for (const p of s.ports) {
      const proto = lowerProto(p);
      const ref = s.ports.length > 1 ? `:${p.name || p.port}` : '';
      for (const lb of s.loadBalancerIngress)
        add({
          id: `lb/${s.name}:${p.port}`,
          kind: 'loadbalancer',
          label: `${s.name} LB ${lb.ip}:${p.port}`,
          address: lb.ip,
          port: p.port,
          proto,
        });
      if (s.clusterIP)
        add({
          id: `svc/${s.name}:${p.port}`,
          kind: 'clusterip',
          label: `${s.name} ClusterIP ${s.clusterIP}:${p.port}`,
          address: s.clusterIP,
          port: p.port,
          proto,
        });
      for (const ip of s.externalIPs)
        add({
          id: `externalip/${s.name}:${p.port}`,
          kind: 'externalip',
          label: `${s.name} external IP ${ip}:${p.port}`,
          address: ip,
          port: p.port,
          proto,
        });
      if (p.nodePort) {
        for (const n of c.spec.nodes) {
          add({
            id: `nodeport/${s.name}${ref}@${n.name}`,
            kind: 'nodeport',
            label: `${s.name} NodePort ${n.name} ${n.ip}:${p.nodePort}`,
            address: n.ip,
            port: p.nodePort,
            proto,
          });
          add({
            id: `localhost-nodeport/${s.name}${ref}@${n.name}`,
            kind: 'localhost-nodeport',
            label: `${s.name} 127.0.0.1:${p.nodePort} on ${n.name}`,
            address: '127.0.0.1',
            port: p.nodePort,
            proto,
          });
        }
      }
    }
    if (s.healthCheckNodePort)
      for (const n of c.spec.nodes)
        add({
          id: `healthcheck/${s.name}@${n.name}`,
          kind: 'healthcheck',
          label: `${s.name} health check ${n.name} ${n.ip}:${s.healthCheckNodePort}`,
          address: n.ip,
          port: s.healthCheckNodePort,
          proto: 'tcp',
        });
  }
  for (const h of c.view.hosts) {
    for (const p of h.processes) {
      if (h.kind === 'pod')
        add({
          id: `pod/${h.name}:${p.port}`,
          kind: 'pod',
          label: `pod ${h.name} ${h.ips[0]}:${p.port}`,
          address: h.ips[0] as string,
          port: p.port,
          proto: p.proto,
        });
      else if (h.kind === 'node' && p.name !== 'kube-proxy')
        add({
          id: `node/${h.name}:${p.port}`,
          kind: 'node',
          label: `${h.name} ${p.name} ${h.ips[0]}:${p.port}`,
          address: h.ips[0] as string,
          port: p.port,
          proto: p.proto,
        });
    }
  }
  return { senders, destinations: dest };
}
