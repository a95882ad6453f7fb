/**
 * Kubernetes manifests (a multi-document YAML string) to the cluster model: Services with the API
 * server's defaults and allocations, pods placed on nodes, EndpointSlices as the controller would
 * write them (explicit EndpointSlices in the manifests win). Every problem carries a position.
 */
import { canonicalIp, diagnosticAt, type Diagnostic } from '../../engine/index.ts';
import type { EndpointModel, EndpointSliceModel, Protocol, ServiceModel } from '../model.ts';
import type { CalicoModel, GlobalNetworkPolicyModel, HostEndpointModel } from '../calico/index.ts';
import { CALICO_KINDS, readGlobalNetworkPolicy, readHostEndpoint } from './calico.ts';
import { endpointSlicesFor } from './endpointslices.ts';
import { isWorkloadKind, readWorkload, schedule, type Workload } from './pods.ts';
import { nameProblem } from './names.ts';
import { Reader } from './reader.ts';
import { allocate, readService, type ServiceDraft } from './services.ts';
import type { ClusterSettings, PodModel } from './types.ts';
import { isRecord, parseStream, type SourceDoc } from './yaml-source.ts';

export type { ClusterSettings, NodeInfo, PodModel, Taint } from './types.ts';
export { sha256Text } from './sha256.ts';

export interface ManifestModel {
  readonly services: ServiceModel[];
  readonly endpointSlices: EndpointSliceModel[];
  readonly pods: PodModel[];
  /** Calico resources (HostEndpoint, GlobalNetworkPolicy); Felix's rules are rendered from them. */
  readonly calico?: CalicoModel;
  readonly diagnostics: Diagnostic[];
  /** Why topology hints were not set, per `namespace/name`. */
  readonly hintNotes: Map<string, string>;
}

const IGNORED_KINDS = new Set([
  'Namespace',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Ingress',
  'NetworkPolicy',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
]);

// eslint-disable-next-line max-lines-per-function -- reads the documents by kind, then the checks across objects, in order
export function readManifests(text: string, cluster: ClusterSettings): ManifestModel {
  const diagnostics: Diagnostic[] = [];
  const stream = parseStream(text);
  for (const p of stream.problems)
    diagnostics.push(diagnosticAt(p.span, p.message, { field: 'YAML' }));
  const drafts: ServiceDraft[] = [];
  const workloads: Workload[] = [];
  const explicitSlices: EndpointSliceModel[] = [];
  const hostEndpoints: HostEndpointModel[] = [];
  const policies: GlobalNetworkPolicyModel[] = [];
  const seen = new Map<string, string>();
  for (const { doc, where } of objectDocs(stream.docs, diagnostics)) {
    const r = new Reader(doc, where, diagnostics);
    if (!isRecord(doc.value)) {
      r.report(
        [],
        'each document must be a Kubernetes object (a map with apiVersion, kind, metadata)',
      );
      continue;
    }
    const kind = r.str(['kind'], { required: true, what: 'for example kind: Service' });
    if (!kind) continue;
    r.str(['apiVersion'], {
      required: true,
      what:
        kind === 'Deployment' || kind === 'DaemonSet'
          ? 'apps/v1'
          : kind === 'EndpointSlice'
            ? 'discovery.k8s.io/v1'
            : (CALICO_KINDS as readonly string[]).includes(kind)
              ? 'projectcalico.org/v3'
              : 'v1',
    });
    const name = r.str(['metadata', 'name'], { required: true });
    const namespace =
      r.str(['metadata', 'namespace'], {
        name: { rule: 'dns1123-label', what: 'a namespace name' },
      }) ?? 'default';
    if (!name) continue;
    // Calico's kinds are cluster-wide: named without a namespace.
    const calicoKind = (CALICO_KINDS as readonly string[]).includes(kind);
    r.label = calicoKind ? `${kind} ${name}` : `${kind} ${namespace}/${name}`;
    const id = `${kind}/${namespace}/${name}`;
    const before = seen.get(id);
    if (before !== undefined)
      r.report(
        ['metadata', 'name'],
        `${kind} ${namespace}/${name} is defined twice (${before} and ${where})`,
      );
    seen.set(id, where);
    if (kind === 'Service') {
      drafts.push(readService(r, namespace, name, cluster));
    } else if (isWorkloadKind(kind)) {
      const bad = nameProblem(name, 'dns1123-subdomain', `a ${kind} name`);
      if (bad) r.report(['metadata', 'name'], bad);
      workloads.push(readWorkload(r, kind, namespace, name));
    } else if (kind === 'EndpointSlice') {
      const slice = readEndpointSlice(r, namespace);
      if (slice) explicitSlices.push(slice);
    } else if (kind === 'HostEndpoint') {
      const hep = readHostEndpoint(r, name, cluster);
      if (hep) hostEndpoints.push(hep);
    } else if (kind === 'GlobalNetworkPolicy') {
      const gnp = readGlobalNetworkPolicy(r, name);
      if (gnp) policies.push(gnp);
    } else if (IGNORED_KINDS.has(kind)) {
      r.report(
        ['kind'],
        `${kind} does not change where packets go in this lab; it is ignored`,
        'warning',
      );
    } else {
      r.report(
        ['kind'],
        `the lab does not model kind ${kind}; supported kinds are Service, Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, EndpointSlice, HostEndpoint, GlobalNetworkPolicy, and a List of them`,
        'warning',
      );
    }
  }
  allocate(drafts, cluster);
  const pods = schedule(workloads, cluster);
  const explicitFor = new Set(explicitSlices.map((s) => `${s.namespace}/${s.service}`));
  const generated = endpointSlicesFor(drafts, pods, cluster, explicitFor);
  return {
    services: drafts.map((d) => d.svc),
    endpointSlices: [...explicitSlices, ...generated.slices],
    pods,
    calico: { hostEndpoints, policies },
    diagnostics,
    hintNotes: generated.hintNotes,
  };
}

/** A manifest object: a document, or one item of a list document; `where` names it in messages. */
interface ObjectDoc {
  readonly doc: SourceDoc;
  readonly where: string;
}

/** `kind: List` (what `kubectl get -o yaml` prints) or an API list kind such as `ServiceList`. */
function isListKind(kind: unknown): kind is string {
  return typeof kind === 'string' && kind.endsWith('List');
}

/**
 * The objects of the stream: each document, and the items of a list document in its place, so
 * the output of `kubectl get svc,deploy -o yaml` reads as the objects it lists. An item's
 * problems are placed in the document (`items[2].spec.ports[0]`).
 */
function objectDocs(docs: readonly SourceDoc[], diagnostics: Diagnostic[]): ObjectDoc[] {
  const out: ObjectDoc[] = [];
  for (const doc of docs) {
    const where = `document ${doc.index + 1}`;
    const v = doc.value;
    if (!isRecord(v) || !isListKind(v.kind) || (v.kind !== 'List' && !Array.isArray(v.items))) {
      out.push({ doc, where });
      continue;
    }
    if (!Array.isArray(v.items)) {
      new Reader(doc, where, diagnostics).report(
        v.items === undefined ? [] : ['items'],
        'a List holds its objects in items, a list (items: [...])',
      );
      continue;
    }
    v.items.forEach((value: unknown, i) => {
      const item: SourceDoc = {
        index: doc.index,
        value,
        // Composed by `yaml` only when a position is first asked for, as the document's own.
        get doc() {
          return doc.doc;
        },
        span: (path, key) => doc.span(['items', i, ...path], key),
      };
      out.push({ doc: item, where: `${where}, items[${i}]` });
    });
  }
  return out;
}

function readEndpointSlice(r: Reader, namespace: string): EndpointSliceModel | null {
  const labels = r.labels(['metadata', 'labels']);
  const service = labels['kubernetes.io/service-name'];
  if (!service) {
    r.report(
      ['metadata', 'labels'],
      'an EndpointSlice needs the label kubernetes.io/service-name: <service> to belong to a Service',
    );
    return null;
  }
  const addressType = r.str(['addressType'], { required: true, enum: ['IPv4', 'IPv6'] }) as
    'IPv4' | 'IPv6' | undefined;
  const ports = r.list(['ports']).map((_, i) => ({
    name: r.str(['ports', i, 'name']) ?? '',
    port: r.int(['ports', i, 'port'], { min: 1, max: 65535 }) ?? 0,
    protocol: (r.str(['ports', i, 'protocol'], { enum: ['TCP', 'UDP', 'SCTP'] }) ??
      'TCP') as Protocol,
  }));
  const endpoints: EndpointModel[] = r.list(['endpoints']).map((_, i) => {
    const p = ['endpoints', i] as const;
    const addresses = r.list([...p, 'addresses']).flatMap((a, j) => {
      const ip = typeof a === 'string' ? canonicalIp(a) : null;
      if (!ip) r.report([...p, 'addresses', j], `'${String(a)}' is not an IP address`);
      return ip ? [ip] : [];
    });
    const ready = r.bool([...p, 'conditions', 'ready']);
    const serving = r.bool([...p, 'conditions', 'serving']);
    const terminating = r.bool([...p, 'conditions', 'terminating']) ?? false;
    const zones = r
      .list([...p, 'hints', 'forZones'])
      .map((_, j) => r.str([...p, 'hints', 'forZones', j, 'name']) ?? '');
    return {
      addresses,
      nodeName: r.str([...p, 'nodeName']) ?? null,
      zone: r.str([...p, 'zone']) ?? null,
      // The API treats an absent condition as true (ready) / as ready (serving).
      ready: ready ?? true,
      serving: serving ?? ready ?? true,
      terminating,
      hints: zones.length ? { forZones: zones } : null,
      targetRef: null,
    };
  });
  if (!addressType) return null;
  return { namespace, service, addressType, endpoints, ports };
}
