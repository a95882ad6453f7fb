/**
 * The cluster as kube-proxy sees it: Services and EndpointSlices after the API server applied its
 * defaults, plus the proxier's own settings. Manifests are turned into this model
 * (src/kube/manifests), the kube-proxy generator (src/kube/proxier) turns it into rules.
 */

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

export interface ServicePortModel {
  /** Port name; '' when the Service has a single unnamed port. */
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** Container port number or name; defaults to `port`. */
  readonly targetPort: number | string;
  /** Allocated for NodePort and LoadBalancer Services (unless allocateLoadBalancerNodePorts is false). */
  readonly nodePort: number | null;
}

export interface LoadBalancerIngress {
  readonly ip: string;
  /** `Proxy` ingress IPs are not programmed by kube-proxy (TestLoadBalancerIngressRouteTypeProxy). */
  readonly ipMode?: 'VIP' | 'Proxy';
}

export interface ServiceModel {
  readonly namespace: string;
  readonly name: string;
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  /** null for headless Services (clusterIP: None): kube-proxy ignores them. */
  readonly clusterIP: string | null;
  readonly ports: readonly ServicePortModel[];
  readonly externalIPs: readonly string[];
  readonly loadBalancerIngress: readonly LoadBalancerIngress[];
  /** As written; kube-proxy trims spaces. */
  readonly loadBalancerSourceRanges: readonly string[];
  readonly externalTrafficPolicy: 'Cluster' | 'Local';
  readonly internalTrafficPolicy: 'Cluster' | 'Local';
  readonly healthCheckNodePort: number | null;
  readonly sessionAffinity:
    { readonly type: 'None' } | { readonly type: 'ClientIP'; readonly timeoutSeconds: number };
  /** `service.kubernetes.io/topology-mode: Auto` (or the older topology-aware-hints annotation). */
  readonly topologyMode: 'Auto' | null;
  /** Selector, kept for display and for generating EndpointSlices. */
  readonly selector: Readonly<Record<string, string>> | null;
}

export interface EndpointModel {
  readonly addresses: readonly string[];
  /** Node hosting the endpoint; null when unknown (never "local"). */
  readonly nodeName: string | null;
  readonly zone: string | null;
  /** Absent in the API means true; the model is explicit. */
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  /**
   * Topology hints set by the EndpointSlice controller. `forNodes` (trafficDistribution
   * PreferSameNode, kube-proxy >= 1.33) is optional; absent means no node hints.
   */
  readonly hints: {
    readonly forZones: readonly string[];
    readonly forNodes?: readonly string[];
  } | null;
  /** Pod this endpoint belongs to, for display. */
  readonly targetRef: string | null;
}

export interface EndpointSlicePortModel {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
}

export interface EndpointSliceModel {
  readonly namespace: string;
  /** Value of the `kubernetes.io/service-name` label. */
  readonly service: string;
  readonly addressType: 'IPv4' | 'IPv6';
  readonly endpoints: readonly EndpointModel[];
  readonly ports: readonly EndpointSlicePortModel[];
}

export interface ProxierConfig {
  readonly nodeName: string;
  /** The node's addresses (all local addresses the NodePort rules may use). */
  readonly nodeIPs: readonly string[];
  readonly ipFamily: 4 | 6;
  /** Local traffic detector `--cluster-cidr`; null = no detector (LocalModeNone). */
  readonly clusterCIDR: string | null;
  readonly masqueradeAll: boolean;
  /** `--iptables-masquerade-bit`, default 14 (mark 0x00004000). */
  readonly masqueradeBit: number;
  /** `--iptables-localhost-nodeports`, default true (IPv4 only). */
  readonly localhostNodePorts: boolean;
  /** `--nodeport-addresses` CIDRs (or `primary`); empty = all local addresses. */
  readonly nodePortAddresses: readonly string[];
  /** The node's `topology.kubernetes.io/zone`, for topology hints. */
  readonly zone: string | null;
  /** Whether the nfacct counters kube-proxy uses exist on the node (they do not in a plain netns). */
  readonly nfacct: boolean;
  /** Whether MASQUERADE supports --random-fully (true on any recent kernel). */
  readonly randomFully: boolean;
  /** `net.netfilter.nf_conntrack_tcp_be_liberal`; when set kube-proxy omits the INVALID drop rule. */
  readonly conntrackTCPLiberal: boolean;
  /**
   * The cluster's Service CIDRs (ServiceCIDR objects, either family). nftables mode drops
   * traffic to addresses inside them that no Service holds; iptables mode does not use them.
   */
  readonly serviceCIDRs?: readonly string[];
}

export interface ProxierInput {
  readonly services: readonly ServiceModel[];
  readonly endpointSlices: readonly EndpointSliceModel[];
  readonly config: ProxierConfig;
}

export const DEFAULT_PROXIER_CONFIG: Omit<ProxierConfig, 'nodeName' | 'nodeIPs'> = {
  ipFamily: 4,
  clusterCIDR: '10.244.0.0/16',
  masqueradeAll: false,
  masqueradeBit: 14,
  localhostNodePorts: true,
  nodePortAddresses: [],
  zone: null,
  nfacct: false,
  randomFully: true,
  conntrackTCPLiberal: false,
};
