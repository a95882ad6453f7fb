/**
 * A compact JSON Schema for the kinds the lab reads (Service, Deployment, Pod, DaemonSet,
 * EndpointSlice, Calico's HostEndpoint and GlobalNetworkPolicy, and a List of them): enough for
 * completion, hovers and early typos in monaco-yaml. The lab's own reader (src/kube/manifests)
 * stays the judge; its diagnostics are the markers that count.
 */
import { GLOBAL_NETWORK_POLICY_SPEC, HOST_ENDPOINT_SPEC } from './calico-schema.ts';

type Schema = Record<string, unknown>;

const str = (description: string): Schema => ({ type: 'string', description });
const int = (description: string, minimum?: number, maximum?: number): Schema => ({
  type: 'integer',
  description,
  ...(minimum !== undefined ? { minimum } : {}),
  ...(maximum !== undefined ? { maximum } : {}),
});
const labels: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const protocol: Schema = { enum: ['TCP', 'UDP', 'SCTP'], description: 'Defaults to TCP.' };
const portOrName: Schema = {
  anyOf: [{ type: 'integer', minimum: 1, maximum: 65535 }, { type: 'string' }],
};

const metadata: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str('Object name, unique in its namespace.'),
    namespace: str('Defaults to "default".'),
    labels,
    annotations: {
      ...labels,
      properties: {
        'service.kubernetes.io/topology-mode': {
          enum: ['Auto'],
          description: 'Topology Aware Routing (1.27+): keep traffic in the client’s zone.',
        },
      },
    },
  },
};

const container: Schema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str('Container name.'),
    image: str('Image; the lab does not run it, only its ports matter.'),
    ports: {
      type: 'array',
      items: {
        type: 'object',
        required: ['containerPort'],
        properties: {
          name: str('Port name a Service targetPort can refer to.'),
          containerPort: int('Port the process listens on.', 1, 65535),
          protocol,
        },
      },
    },
  },
};

const podSpec: Schema = {
  type: 'object',
  properties: {
    nodeName: str('Pins the pod to a node.'),
    nodeSelector: {
      ...labels,
      description: 'Only nodes with these labels (e.g. kubernetes.io/hostname).',
    },
    hostNetwork: { type: 'boolean', description: 'The pod uses the node’s network namespace.' },
    tolerations: { type: 'array', items: { type: 'object' } },
    containers: { type: 'array', items: container, minItems: 1 },
  },
};

const template: Schema = {
  type: 'object',
  properties: { metadata: { type: 'object', properties: { labels } }, spec: podSpec },
};

const selector: Schema = { type: 'object', properties: { matchLabels: labels } };

const service: Schema = {
  type: 'object',
  properties: {
    type: {
      enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'],
      description: 'How the Service is exposed. Defaults to ClusterIP.',
    },
    selector: { ...labels, description: 'Pods with these labels become endpoints.' },
    clusterIP: str('Virtual IP inside the cluster; "None" for a headless Service.'),
    loadBalancerIP: str(
      'Requested LoadBalancer address (deprecated field, still read by kube-vip and MetalLB).',
    ),
    externalIPs: { type: 'array', items: { type: 'string' } },
    externalTrafficPolicy: {
      enum: ['Cluster', 'Local'],
      description:
        'Cluster: any endpoint, source NATed. Local: only endpoints on the receiving node, client IP kept.',
    },
    internalTrafficPolicy: {
      enum: ['Cluster', 'Local'],
      description: 'Local: ClusterIP traffic only to endpoints on the client’s node.',
    },
    healthCheckNodePort: int(
      'Allocated for LoadBalancer Services with externalTrafficPolicy: Local.',
      30000,
      32767,
    ),
    sessionAffinity: { enum: ['None', 'ClientIP'] },
    loadBalancerSourceRanges: { type: 'array', items: { type: 'string' } },
    allocateLoadBalancerNodePorts: { type: 'boolean' },
    ports: {
      type: 'array',
      items: {
        type: 'object',
        required: ['port'],
        properties: {
          name: str('Required when the Service has several ports.'),
          port: int('Port of the Service’s IPs.', 1, 65535),
          targetPort: {
            ...portOrName,
            description: 'Container port (number or name). Defaults to port.',
          },
          nodePort: int('Port opened on every node (30000-32767).', 30000, 32767),
          protocol,
        },
      },
    },
  },
};

const endpointSlice: Schema = {
  addressType: { enum: ['IPv4', 'IPv6', 'FQDN'] },
  endpoints: {
    type: 'array',
    items: {
      type: 'object',
      required: ['addresses'],
      properties: {
        addresses: { type: 'array', items: { type: 'string' } },
        nodeName: str('Node hosting the endpoint.'),
        zone: str('Zone of the endpoint.'),
        conditions: {
          type: 'object',
          properties: {
            ready: { type: 'boolean' },
            serving: { type: 'boolean' },
            terminating: { type: 'boolean' },
          },
        },
        hints: {
          type: 'object',
          properties: {
            forZones: {
              type: 'array',
              items: { type: 'object', properties: { name: { type: 'string' } } },
            },
          },
        },
      },
    },
  },
  ports: {
    type: 'array',
    items: {
      type: 'object',
      properties: { name: { type: 'string' }, port: int('Endpoint port.', 1, 65535), protocol },
    },
  },
};

/** The lab's own kind (src/cluster/node-config.ts): host rules and kube-proxy settings per node. */
const nodeConfig: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    nodeSelector: { ...labels, description: 'Node labels; none: every node.' },
    rules: str('Host rules as iptables-save text, loaded beside kube-proxy’s.'),
    kubeProxy: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: {
          enum: ['iptables', 'nftables', 'ipvs'],
          description:
            'kube-proxy’s mode on these nodes: iptables (KUBE-* chains), nftables (its own ip kube-proxy table) or ipvs (kube-ipvs0 and IPVS virtual servers; modelled from kernel sources, not checked on a kernel).',
        },
        nodePortAddresses: {
          type: 'array',
          items: { type: 'string' },
          description:
            'CIDRs (or "primary") where NodePorts answer; none: every local address (iptables mode), the primary address (nftables mode).',
        },
        localhostNodePorts: {
          type: 'boolean',
          description: 'NodePorts on 127.0.0.1 (default true; iptables mode only).',
        },
        masqueradeAll: { type: 'boolean' },
        clusterCIDR: { type: ['string', 'null'] },
      },
    },
    sysctls: {
      type: 'object',
      additionalProperties: false,
      properties: {
        routeLocalnet: { type: 'boolean' },
        rpFilter: { enum: [0, 1, 2] },
        ipForward: { type: 'boolean' },
      },
    },
  },
};

function kind(k: string, apiVersion: string, spec: Schema | null, extra: Schema = {}): Schema {
  return {
    if: { properties: { kind: { const: k } }, required: ['kind'] },
    then: {
      properties: {
        apiVersion: { const: apiVersion },
        metadata,
        ...(spec ? { spec } : {}),
        ...extra,
      },
      required: ['apiVersion', 'metadata'],
    },
  };
}

export const K8S_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Kubernetes objects the lab reads',
  type: 'object',
  required: ['kind'],
  properties: {
    apiVersion: {
      enum: ['v1', 'apps/v1', 'discovery.k8s.io/v1', 'lab.hookpath.io/v1', 'projectcalico.org/v3'],
    },
    kind: {
      enum: [
        'Service',
        'Deployment',
        'Pod',
        'DaemonSet',
        'EndpointSlice',
        'NodeConfig',
        'HostEndpoint',
        'GlobalNetworkPolicy',
        'List',
      ],
      description: 'The lab reads these kinds.',
    },
  },
  allOf: [
    kind('Service', 'v1', service),
    kind('Pod', 'v1', podSpec),
    kind('Deployment', 'apps/v1', {
      type: 'object',
      properties: { replicas: int('Number of pods.', 0, 50), selector, template },
    }),
    kind('DaemonSet', 'apps/v1', { type: 'object', properties: { selector, template } }),
    kind('EndpointSlice', 'discovery.k8s.io/v1', null, endpointSlice),
    kind('NodeConfig', 'lab.hookpath.io/v1', nodeConfig),
    kind('HostEndpoint', 'projectcalico.org/v3', HOST_ENDPOINT_SPEC),
    kind('GlobalNetworkPolicy', 'projectcalico.org/v3', GLOBAL_NETWORK_POLICY_SPEC),
    // What `kubectl get svc,deploy -o yaml` prints: the objects in `items`, each checked as one.
    {
      if: { properties: { kind: { const: 'List' } }, required: ['kind'] },
      then: {
        properties: {
          apiVersion: { const: 'v1' },
          items: { type: 'array', description: 'The objects of the list.', items: { $ref: '#' } },
        },
        required: ['items'],
      },
    },
  ],
};
