/**
 * The lab's scenario-level API: what a scenario file says, and what a simulation of it returns.
 * Pure data (structured-clone safe): it crosses the Web Worker boundary as is.
 */
import type {
  Outcome,
  TraceEvent,
  Choice,
  Diagnostic,
  EnumerationLimit,
  Hook,
} from '../engine/index.ts';

/** Text in both languages the lab speaks. */
export interface I18nText {
  readonly en: string;
  readonly zh: string;
}

export type HostKind = 'client' | 'node' | 'pod' | 'router';

export interface ProcessView {
  readonly name: string;
  readonly proto: 'tcp' | 'udp' | 'sctp';
  readonly address: string;
  readonly port: number;
}

export interface HostView {
  /** Unique host name; trace events refer to hosts by this name. */
  readonly name: string;
  readonly kind: HostKind;
  readonly ips: readonly string[];
  /** For pods: the node they run on. */
  readonly node: string | null;
  /** For pods: the owning workload (Deployment/DaemonSet name) and namespace. */
  readonly workload: string | null;
  readonly namespace: string | null;
  readonly zone: string | null;
  readonly roles: readonly string[];
  readonly processes: readonly ProcessView[];
  /** A node's Linux bridge (`podNetwork: bridge`), for the diagram; absent without one. */
  readonly bridge?: BridgeView;
}

/** A Linux bridge on a host: its ports (the pods' veths) and br_netfilter's switch. */
export interface BridgeView {
  readonly name: string;
  /** The bridge's own address (the pods' gateway), or null. */
  readonly address: string | null;
  /** net.bridge.bridge-nf-call-iptables: bridged IPv4 frames pass the IPv4 hooks. */
  readonly nfCallIptables: boolean;
  /** Ports in the host's interface order; `hairpin`: a frame may leave by the port it came in on. */
  readonly ports: readonly { readonly iface: string; readonly hairpin: boolean }[];
}

/** Two hosts on one segment; a segment's members are the hosts its links name (a LAN: a star). */
export interface LinkView {
  readonly a: string;
  readonly aIf: string;
  readonly b: string;
  readonly bIf: string;
  readonly segment: string;
}

export interface VipView {
  readonly ip: string;
  readonly mode: 'kube-vip' | 'metallb-l2' | 'metallb-bgp';
  /** The node that holds (kube-vip) or answers ARP for (MetalLB L2) the address; null for BGP. */
  readonly holder: string | null;
}

export interface ClusterView {
  readonly hosts: readonly HostView[];
  readonly links: readonly LinkView[];
  readonly vips: readonly VipView[];
}

/** One sender the path picker offers: `client/laptop`, `pod/nettest-7f9c`, `node/cp-1`. */
export interface SenderChoice {
  readonly id: string;
  readonly kind: HostKind;
  readonly label: string;
  readonly host: string;
}

/** One destination the model offers, e.g. VIP:22, NodeIP:NodePort, ClusterIP:port, 127.0.0.1:NodePort. */
export interface DestinationChoice {
  /** Symbolic target as scenarios write it: `vip:22`, `svc/web:80`, `nodeport/web@worker-1`, ... */
  readonly id: string;
  readonly kind:
    | 'vip'
    | 'loadbalancer'
    | 'clusterip'
    | 'nodeport'
    | 'externalip'
    | 'pod'
    | 'node'
    | 'localhost-nodeport'
    | 'healthcheck';
  readonly label: string;
  readonly address: string;
  readonly port: number;
  readonly proto: 'tcp' | 'udp' | 'sctp';
}

export interface PathChoices {
  readonly senders: readonly SenderChoice[];
  readonly destinations: readonly DestinationChoice[];
}

/** What the user picked: sender, destination (symbolic or `ip:port`), protocol. */
export interface PathSelection {
  readonly from: string;
  readonly to: string;
  /** `icmp`: an echo request (ping) to the target's address. */
  readonly proto?: 'tcp' | 'udp' | 'sctp' | 'icmp';
}

export interface RunView {
  readonly probability: number;
  readonly outcome: Outcome;
  readonly events: readonly TraceEvent[];
  readonly choices: readonly Choice[];
}

export interface LabResult {
  /** False when the scenario or manifests have errors; `diagnostics` say where. */
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly cluster: ClusterView | null;
  readonly choices: PathChoices | null;
  /** The selection actually simulated (resolved address and port). */
  readonly probe: {
    readonly from: string;
    readonly to: string;
    readonly address: string;
    readonly port: number;
    readonly proto: 'tcp' | 'udp' | 'sctp' | 'icmp';
  } | null;
  /** Every outcome of the probe with its probability (statistic branches enumerated). */
  readonly runs: readonly RunView[];
  /**
   * Set when the enumeration stopped at a limit: `runs` are then only some of the outcomes, their
   * probabilities sum to `covered` (< 1), and at least `notComputed` more branches exist.
   */
  readonly partial?: {
    readonly covered: number;
    readonly notComputed: number;
    readonly stoppedBy: EnumerationLimit;
  };
  /** iptables-save text of each node (the rules panel); rule events' `line` points into it. */
  readonly rules: Readonly<Record<string, string>>;
  /** `nft -f` text of each nftables-mode node's kube-proxy table (none in iptables mode). */
  readonly nftables?: Readonly<Record<string, string>>;
  /** IPVS-mode nodes: what kube-proxy's IPVS proxier programmed beside the rules. */
  readonly ipvs?: Readonly<Record<string, IpvsNodeView>>;
  /** Per node, what runs at each hook for IPv4 packets, in the kernel's order (the diagram's rows). */
  readonly hooks?: Readonly<Record<string, HookRowsView>>;
}

/**
 * One row of a node's hook box: an iptables table, a kernel step (conntrack, confirm, the NAT
 * core without chains, the OUTPUT reroute, IPVS), or an nft base chain.
 */
export interface HookRowView {
  /**
   * What the trace's events at this row are matched by: the table's name (`nat`), the step's
   * (`conntrack`, `confirm`, `reroute`, `ipvs`, `nat-core`), or `nft <family> <table> <chain>`.
   */
  readonly key: string;
  readonly kind: 'table' | 'conntrack' | 'confirm' | 'reroute' | 'ipvs' | 'nat-core' | 'nft';
  /** A table the ruleset has, a step that runs (conntrack on a host with tables). */
  readonly present: boolean;
  /** Where it is registered (NF_IP_PRI_*, the base chain's priority); null for reroute. */
  readonly priority: number | null;
  /** nft base chains: the chain as `nft list ruleset` names it. */
  readonly nft?: {
    readonly family: string;
    readonly table: string;
    readonly chain: string;
    readonly type: 'filter' | 'nat' | 'route';
  };
}

/** A node's rows per hook, in priority order. */
export type HookRowsView = Readonly<Record<Hook, readonly HookRowView[]>>;

/** An IPVS-mode node for the rules panel. Modelled from kernel and kube-proxy sources. */
export interface IpvsNodeView {
  /** `ipvsadm -Ln`. */
  readonly ipvsadm: string;
  /** `ipset save`. */
  readonly ipsets: string;
  /** Addresses on kube-ipvs0. */
  readonly dummyAddresses: readonly string[];
  /** "modelled from kernel and kube-proxy sources, not checked on a kernel". */
  readonly modelled: string;
  /** The deprecation notice (KEP-5495). */
  readonly deprecation: string;
}
