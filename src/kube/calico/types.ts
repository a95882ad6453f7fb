/**
 * Calico resources (projectcalico.org/v3) the lab reads from the manifests, after validation:
 * HostEndpoint and GlobalNetworkPolicy, with the fields Felix's iptables dataplane uses
 * (api/pkg/apis/projectcalico/v3 hostendpoint.go, globalpolicy.go, policy_common.go).
 */
import type { Selector } from './selector.ts';

export interface HostEndpointModel {
  readonly name: string;
  readonly node: string;
  /** A named interface, or `*` (every interface of the node; Felix's "all-interfaces" HEP). */
  readonly interfaceName: string;
  readonly expectedIPs: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly profiles: readonly string[];
}

export interface PortRange {
  readonly first: number;
  readonly last: number;
}

/** `protocol` as Calico writes it: a name (TCP, UDP, ICMP, SCTP, UDPLite, ICMPv6) or a number. */
export type CalicoProtocol = { readonly name: string } | { readonly number: number };

export interface EntityRule {
  readonly nets: readonly string[];
  readonly notNets: readonly string[];
  readonly selector: Selector | null;
  readonly notSelector: Selector | null;
  readonly ports: readonly PortRange[];
  readonly notPorts: readonly PortRange[];
}

export type RuleAction = 'Allow' | 'Deny' | 'Log' | 'Pass';

export interface CalicoRule {
  readonly action: RuleAction;
  readonly protocol: CalicoProtocol | null;
  readonly notProtocol: CalicoProtocol | null;
  readonly source: EntityRule;
  readonly destination: EntityRule;
}

export interface GlobalNetworkPolicyModel {
  readonly name: string;
  /** null: no order, sorted after every ordered policy (Calico's "infinity"). */
  readonly order: number | null;
  readonly selector: Selector;
  readonly types: readonly ('Ingress' | 'Egress')[];
  readonly ingress: readonly CalicoRule[];
  readonly egress: readonly CalicoRule[];
  readonly preDNAT: boolean;
  readonly applyOnForward: boolean;
  readonly doNotTrack: boolean;
}

export interface CalicoModel {
  readonly hostEndpoints: readonly HostEndpointModel[];
  readonly policies: readonly GlobalNetworkPolicyModel[];
}
