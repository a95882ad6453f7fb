/**
 * The EndpointSlice controller for what the lab needs: one slice per Service with a selector,
 * endpoints from matching pods (ready / serving / terminating), named target ports resolved per
 * pod, and topology hints for `topology-mode: Auto` allocated in proportion to each zone's CPU
 * (pkg/controller/endpointslice/topologycache, overload threshold 20 %).
 */
import type {
  EndpointModel,
  EndpointSliceModel,
  EndpointSlicePortModel,
  ServiceModel,
} from '../model.ts';
import type { ServiceDraft } from './services.ts';
import type { ClusterSettings, PodModel } from './types.ts';

const OVERLOAD_THRESHOLD = 0.2;

function selects(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  const keys = Object.keys(selector);
  return keys.length > 0 && keys.every((k) => labels[k] === selector[k]);
}

export function selectorText(selector: Readonly<Record<string, string>>): string {
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** Why hints are not set, or the zone each ready endpoint is hinted for. */
export type HintResult = { readonly hints: Map<number, string> } | { readonly reason: string };

/** getAllocations + AddHints of the topology cache, for one service's ready endpoints. */
export function allocateHints(
  endpointZones: readonly (string | null)[],
  cluster: ClusterSettings,
): HintResult {
  // Allocatable CPU in millicores, as Quantity.MilliValue() gives it, so the ratios are Go's.
  const cpuByZone = new Map<string, number>();
  for (const n of cluster.nodes) {
    // hasExcludedLabels: control-plane nodes do not count towards a zone's capacity.
    if (
      'node-role.kubernetes.io/control-plane' in n.labels ||
      'node-role.kubernetes.io/master' in n.labels
    )
      continue;
    if (!n.zone || !(n.cpu > 0))
      return { reason: 'a node has no zone label or no allocatable CPU (insufficient node info)' };
    cpuByZone.set(n.zone, (cpuByZone.get(n.zone) ?? 0) + Math.round(n.cpu * 1000));
  }
  // Go's float64 arithmetic, reproduced: 0.4 * 6 * (1 / 1.2) is 2.0000000000000004, so ceil gives 3.
  if (cpuByZone.size < 2) return { reason: 'all nodes are in one zone' };
  const total = [...cpuByZone.values()].reduce((a, b) => a + b, 0);
  const n = endpointZones.length;
  if (cpuByZone.size > n)
    return { reason: `fewer endpoints (${n}) than zones (${cpuByZone.size})` };
  // Go ranges over maps in random order; the lab takes zones by name where the order matters.
  const zones = [...cpuByZone.keys()].sort();
  const alloc = new Map<string, { minimum: number; desired: number }>();
  let remaining = n;
  for (const zone of zones) {
    const desired = ((cpuByZone.get(zone) as number) / total) * n;
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)));
    alloc.set(zone, { minimum, desired: Math.max(desired, minimum) });
    remaining -= minimum;
    if (remaining < 0)
      return {
        reason: 'the endpoints cannot be spread without overloading a zone by more than 20 %',
      };
  }
  if (endpointZones.some((z) => !z)) return { reason: 'an endpoint has no zone' };
  // Step 1: every endpoint hinted for its own zone.
  const hints = new Map<number, string>();
  const count = new Map<string, number>();
  endpointZones.forEach((z, i) => {
    hints.set(i, z as string);
    count.set(z as string, (count.get(z as string) ?? 0) + 1);
  });
  // Step 2 (getGivingAndReceivingZones): how far each zone is above or below its desired share,
  // turned into whole endpoints; a move needs at least half an endpoint on both sides and a whole
  // one on one side.
  const over = new Map<string, number>();
  const under = new Map<string, number>();
  for (const [zone, a] of alloc) {
    const have = count.get(zone) ?? 0;
    if (have > a.desired) over.set(zone, have - a.desired);
    else if (have < a.desired) under.set(zone, a.desired - have);
  }
  const most = (m: Map<string, number>): [string, number] => {
    let zone = '';
    let num = 0;
    for (const [z, v] of m) if (v > num) [zone, num] = [z, v];
    return [zone, num];
  };
  const giving = new Map<string, number>();
  const receiving = new Map<string, number>();
  for (;;) {
    const [g, give] = most(over);
    const [r, receive] = most(under);
    if (g === '' || r === '' || (give < 1 && receive < 1) || give < 0.5 || receive < 0.5) break;
    giving.set(g, (giving.get(g) ?? 0) + 1);
    over.set(g, give - 1);
    receiving.set(r, (receiving.get(r) ?? 0) + 1);
    under.set(r, receive - 1);
  }
  // Step 3 (redistributeHints): endpoints of giving zones, in order, are hinted for receiving zones.
  for (const [i, zone] of hints) {
    if (giving.size === 0 || receiving.size === 0) break;
    const g = giving.get(zone);
    if (g === undefined) continue;
    const [to, need] = [...receiving][0] as [string, number];
    hints.set(i, to);
    if (g === 1) giving.delete(zone);
    else giving.set(zone, g - 1);
    if (need === 1) receiving.delete(to);
    else receiving.set(to, need - 1);
  }
  return { hints };
}

export interface SliceResult {
  readonly slices: EndpointSliceModel[];
  /** Per service (`ns/name`): why topology hints were not set, for the explanation panel. */
  readonly hintNotes: Map<string, string>;
}

/**
 * Pods by namespace and label pair, so a Service finds its pods without scanning every pod (a
 * 5,000-Service cluster would otherwise test 25 million selector/pod pairs). Lists keep pod order.
 */
function podIndex(pods: readonly PodModel[]): Map<string, Map<string, PodModel[]>> {
  const byNs = new Map<string, Map<string, PodModel[]>>();
  // The pods of one workload share their labels object: its keys are made once.
  const keysOf = new Map<Readonly<Record<string, string>>, string[]>();
  for (const p of pods) {
    if (p.ip === null) continue;
    let byLabel = byNs.get(p.namespace);
    if (!byLabel) byNs.set(p.namespace, (byLabel = new Map()));
    let keys = keysOf.get(p.labels);
    if (!keys)
      keysOf.set(p.labels, (keys = Object.entries(p.labels).map(([k, v]) => `${k}\u0000${v}`)));
    for (const key of keys) {
      const list = byLabel.get(key);
      if (list) list.push(p);
      else byLabel.set(key, [p]);
    }
  }
  return byNs;
}

function selectedPods(
  index: Map<string, Map<string, PodModel[]>>,
  namespace: string,
  selector: Readonly<Record<string, string>>,
): PodModel[] {
  const byLabel = index.get(namespace);
  let smallest: PodModel[] | null = null;
  for (const [k, v] of Object.entries(selector)) {
    const list = byLabel?.get(`${k}\u0000${v}`) ?? [];
    if (!smallest || list.length < smallest.length) smallest = list;
  }
  // Pods of one workload share their labels object: it is tested once.
  let labels: Readonly<Record<string, string>> | null = null;
  let match = false;
  return (smallest ?? []).filter((p) => {
    if (p.labels !== labels) {
      labels = p.labels;
      match = selects(selector, labels);
    }
    return match;
  });
}

// eslint-disable-next-line max-lines-per-function -- the EndpointSlice controller's steps for one Service, in upstream order
export function endpointSlicesFor(
  drafts: readonly ServiceDraft[],
  pods: readonly PodModel[],
  cluster: ClusterSettings,
  explicit: ReadonlySet<string>,
): SliceResult {
  const slices: EndpointSliceModel[] = [];
  const hintNotes = new Map<string, string>();
  const zones = new Map(cluster.nodes.map((n) => [n.name, n.zone ?? null]));
  const zoneOf = (node: string | null) => (node === null ? null : (zones.get(node) ?? null));
  const index = podIndex(pods);
  for (const d of drafts) {
    const svc: ServiceModel = d.svc;
    const key = `${svc.namespace}/${svc.name}`;
    if (!svc.selector || explicit.has(key) || svc.type === 'ExternalName') continue;
    const selected = selectedPods(index, svc.namespace, svc.selector);
    if (Object.keys(svc.selector).length && selected.length === 0) {
      d.reader.report(
        ['spec', 'selector'],
        `selector ${selectorText(svc.selector)} matches no pod in namespace ${svc.namespace}; the Service has no endpoints`,
        'warning',
      );
    }
    svc.ports.forEach((sp, i) => {
      if (typeof sp.targetPort !== 'string' || selected.length === 0) return;
      const name = sp.targetPort;
      if (
        !selected.some((p) => p.ports.some((cp) => cp.name === name && cp.protocol === sp.protocol))
      ) {
        // The API server accepts it; the controller leaves such pods out of the port's
        // endpoints, so kube-proxy rejects the traffic. Simulate that, and say why.
        d.reader.report(
          ['spec', 'ports', i, 'targetPort'],
          `'${name}' is not a port name of any container selected by ${selectorText(svc.selector ?? {})}; this port has no endpoints`,
          'warning',
        );
      }
    });
    // Pods whose resolved port numbers differ go to different slices, as the controller does.
    const groups = new Map<string, { ports: EndpointSlicePortModel[]; pods: PodModel[] }>();
    // Pods of one workload share their ports array: it is resolved once.
    let podPorts: PodModel['ports'] | null = null;
    let g: { ports: EndpointSlicePortModel[]; pods: PodModel[] } | undefined;
    for (const pod of selected) {
      if (pod.ports === podPorts && g) {
        g.pods.push(pod);
        continue;
      }
      podPorts = pod.ports;
      // The resolved numbers alone tell the groups apart (names and protocols are the Service's).
      const nums = svc.ports.map((sp) =>
        typeof sp.targetPort === 'number'
          ? sp.targetPort
          : pod.ports.find((cp) => cp.name === sp.targetPort && cp.protocol === sp.protocol)?.port,
      );
      const k = nums.join(',');
      g = groups.get(k);
      if (!g) {
        const ports: EndpointSlicePortModel[] = [];
        svc.ports.forEach((sp, i) => {
          const port = nums[i];
          if (port !== undefined) ports.push({ name: sp.name, port, protocol: sp.protocol });
        });
        groups.set(k, (g = { ports, pods: [] }));
      }
      g.pods.push(pod);
    }
    let hintMap: Map<string, string> | null = null;
    if (svc.topologyMode === 'Auto') {
      const ready = selected.filter((p) => p.ready && !p.terminating);
      const res = allocateHints(
        ready.map((p) => zoneOf(p.node)),
        cluster,
      );
      if ('reason' in res) hintNotes.set(key, res.reason);
      else hintMap = new Map([...res.hints].map(([i, z]) => [(ready[i] as PodModel).name, z]));
    }
    for (const g of groups.values()) {
      const endpoints: EndpointModel[] = g.pods.map((p) => {
        const hint = hintMap?.get(p.name);
        return {
          addresses: [p.ip as string],
          nodeName: p.node,
          zone: zoneOf(p.node),
          ready: p.ready && !p.terminating,
          serving: p.ready,
          terminating: p.terminating,
          hints: hint ? { forZones: [hint] } : null,
          targetRef: `${p.namespace}/${p.name}`,
        };
      });
      slices.push({
        namespace: svc.namespace,
        service: svc.name,
        addressType: 'IPv4',
        endpoints,
        ports: g.ports,
      });
    }
  }
  return { slices, hintNotes };
}
