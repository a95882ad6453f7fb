/** What the manifest reader needs to know about the cluster, and what it produces besides Services and EndpointSlices. */
import type { Protocol } from '../model.ts';

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodeInfo {
  readonly name: string;
  readonly ip: string;
  readonly zone: string | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  /** The node's pod CIDR (spec.podCIDR), e.g. 10.244.1.0/24. */
  readonly podCIDR: string;
  /** Allocatable CPU in cores, used by topology hints. */
  readonly cpu: number;
}

export interface ClusterSettings {
  readonly nodes: readonly NodeInfo[];
  /** `--service-cluster-ip-range`, default 10.96.0.0/12. */
  readonly serviceCIDR: string;
  /** Addresses handed to LoadBalancer Services without one (the VIP pool of kube-vip / MetalLB). */
  readonly loadBalancerPool: readonly string[];
}

export interface ContainerPort {
  readonly name: string | null;
  readonly port: number;
  readonly protocol: Protocol;
}

/** A pod after scheduling: where it runs, its address, what it listens on. */
export interface PodModel {
  readonly namespace: string;
  readonly name: string;
  /** Deployment/DaemonSet/StatefulSet name, or the pod's own name. */
  readonly workload: string;
  readonly workloadKind: string;
  readonly node: string | null;
  readonly ip: string | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly ports: readonly ContainerPort[];
  readonly ready: boolean;
  readonly terminating: boolean;
  /** What the pod's server answers (for the probe table). */
  readonly reply: string;
  /** Why the pod has no node, when it has none. */
  readonly pending: string | null;
}
