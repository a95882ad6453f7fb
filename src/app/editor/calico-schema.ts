/**
 * The editor's schema for Calico's HostEndpoint and GlobalNetworkPolicy (projectcalico.org/v3),
 * the fields the lab's reader (src/kube/manifests/calico.ts) understands, with Felix's behaviour
 * in the hovers.
 */
type Schema = Record<string, unknown>;

const str = (description: string): Schema => ({ type: 'string', description });
const bool = (description: string): Schema => ({ type: 'boolean', description });

const port: Schema = {
  anyOf: [
    { type: 'integer', minimum: 0, maximum: 65535 },
    { type: 'string', pattern: '^\\d+:\\d+$' },
  ],
  description: 'A port, or a range written first:last ("30000:32767"; not 30000-32767).',
};

const entity: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    nets: { type: 'array', items: { type: 'string' }, description: 'CIDRs; any one matches.' },
    notNets: {
      type: 'array',
      items: { type: 'string' },
      description: 'CIDRs that must not match.',
    },
    selector: str("Endpoints whose labels match, e.g. app == 'db' (Felix matches their IP set)."),
    notSelector: str('Endpoints that must not match.'),
    ports: { type: 'array', items: port, description: 'Needs protocol TCP, UDP or SCTP.' },
    notPorts: { type: 'array', items: port },
  },
};

const protocol: Schema = {
  anyOf: [
    { enum: ['TCP', 'UDP', 'ICMP', 'ICMPv6', 'SCTP', 'UDPLite'] },
    { type: 'integer', minimum: 1, maximum: 255 },
  ],
  description: 'A protocol name or number (4 is IPIP).',
};

const rule: Schema = {
  type: 'object',
  required: ['action'],
  additionalProperties: false,
  properties: {
    action: {
      enum: ['Allow', 'Deny', 'Log', 'Pass'],
      description:
        'Deny drops (the client times out); Log logs and goes on to the next rule; Pass leaves the tier.',
    },
    protocol,
    notProtocol: protocol,
    source: entity,
    destination: entity,
    ipVersion: { enum: [4, 6] },
  },
};

export const HOST_ENDPOINT_SPEC: Schema = {
  type: 'object',
  required: ['node'],
  additionalProperties: false,
  properties: {
    node: str('The node the interface is on.'),
    interfaceName: str(
      'eth0, or * for every interface. Once it exists, traffic to and from the host through it is denied unless a policy or profile allows it, except the failsafe ports.',
    ),
    expectedIPs: { type: 'array', items: { type: 'string' } },
    profiles: {
      type: 'array',
      items: { type: 'string' },
      description: 'projectcalico-default-allow allows everything not denied by a policy.',
    },
  },
};

export const GLOBAL_NETWORK_POLICY_SPEC: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    order: { type: 'number', description: 'Lower first; policies without order come last.' },
    selector: str("Endpoints it applies to, e.g. node-role == 'core'."),
    types: { type: 'array', items: { enum: ['Ingress', 'Egress'] } },
    ingress: { type: 'array', items: rule },
    egress: { type: 'array', items: rule },
    preDNAT: bool(
      'Apply before kube-proxy’s DNAT (Felix puts it in mangle PREROUTING): it sees the NodePort, not the pod port. Ingress only; needs applyOnForward.',
    ),
    applyOnForward: bool('Also apply to traffic forwarded through the host endpoint.'),
    doNotTrack: bool('Apply in the raw table, before conntrack; allowed packets are NOTRACKed.'),
    tier: { const: 'default' },
  },
};
