/** HostEndpoint and GlobalNetworkPolicy in the manifests: read, and refused where Calico refuses. */
import { describe, expect, it } from 'vitest';
import { readManifests, type ClusterSettings } from './index.ts';

const CLUSTER: ClusterSettings = {
  nodes: [
    {
      name: 'core-1',
      ip: '192.168.10.11',
      zone: null,
      labels: { 'kubernetes.io/hostname': 'core-1' },
      taints: [],
      podCIDR: '10.244.0.0/24',
      cpu: 4,
    },
  ],
  serviceCIDR: '10.96.0.0/12',
  loadBalancerPool: [],
};

const HEP = `apiVersion: projectcalico.org/v3
kind: HostEndpoint
metadata:
  name: core-1-eth0
  labels:
    node-role: core
spec:
  node: core-1
  interfaceName: eth0
  expectedIPs: [192.168.10.11]
`;

const GNP = (spec: string) => `apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata:
  name: nodeport-deny-on-core
spec:
${spec}`;

const problems = (text: string) =>
  readManifests(text, CLUSTER).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.field}: ${d.message}`,
  );

describe('Calico resources in the manifests', () => {
  it('reads a host endpoint and a preDNAT policy', () => {
    const m = readManifests(
      `${HEP}---\n${GNP(`  order: 10
  preDNAT: true
  applyOnForward: true
  selector: node-role == 'core'
  ingress:
    - action: Deny
      protocol: TCP
      destination:
        ports: ["30000:32767", 8080]
`)}`,
      CLUSTER,
    );
    expect(m.diagnostics).toEqual([]);
    expect(m.calico?.hostEndpoints).toMatchObject([
      {
        name: 'core-1-eth0',
        node: 'core-1',
        interfaceName: 'eth0',
        labels: { 'node-role': 'core' },
      },
    ]);
    expect(m.calico?.policies[0]).toMatchObject({
      order: 10,
      preDNAT: true,
      types: ['Ingress'],
      ingress: [
        {
          action: 'Deny',
          destination: {
            ports: [
              { first: 30000, last: 32767 },
              { first: 8080, last: 8080 },
            ],
          },
        },
      ],
    });
  });

  it("the article's 30000-32767 is refused at its place, with the colon form to write", () => {
    const p = problems(
      GNP(`  preDNAT: true
  applyOnForward: true
  ingress:
    - action: Deny
      protocol: TCP
      destination:
        ports: [30000-32767]
`),
    );
    expect(p).toEqual([
      "12:17 GlobalNetworkPolicy nodeport-deny-on-core: spec.ingress[0].destination.ports[0]: '30000-32767' is not a port: Calico writes a range with a colon, '30000:32767' (with a dash it would be read as a named port, which may not be all digits)",
    ]);
  });

  it('preDNAT needs applyOnForward and no egress; ports need a protocol', () => {
    const p = problems(
      GNP(`  preDNAT: true
  egress:
    - action: Allow
      destination:
        ports: [53]
`),
    );
    expect(p).toEqual([
      '10:16 GlobalNetworkPolicy nodeport-deny-on-core: spec.egress[0].destination.ports: rules with ports must set protocol to TCP, UDP, SCTP or UDPLite (Calico refuses ports otherwise)',
      '6:12 GlobalNetworkPolicy nodeport-deny-on-core: spec.preDNAT: preDNAT policy needs applyOnForward: true (Calico refuses it otherwise)',
      '8:5 GlobalNetworkPolicy nodeport-deny-on-core: spec.egress: a preDNAT policy applies to ingress only: remove its egress rules and type',
    ]);
  });

  it('a selector without operators, an unquoted boolean label, an unknown node', () => {
    const p = problems(`apiVersion: projectcalico.org/v3
kind: HostEndpoint
metadata:
  name: x
  labels:
    host-endpoint: true
spec:
  node: core-9
  interfaceName: eth0
---
${GNP('  selector: host-endpoint true node-role core\n')}`);
    expect(p).toEqual([
      '6:20 HostEndpoint x: metadata.labels.host-endpoint: label values are strings: write "true" in quotes',
      '8:9 HostEndpoint x: spec.node: no node named core-9; the nodes are core-1',
      "16:13 GlobalNetworkPolicy nodeport-deny-on-core: spec.selector: selector: expected ==, !=, in, not in, contains, starts with or ends with after 'host-endpoint' (at character 15 of 'host-endpoint true node-role core')",
    ]);
  });

  it('a field Calico has but the lab does not read is named, with the ones it reads', () => {
    const p = problems(GNP('  serviceAccountSelector: all()\n'));
    expect(p[0]).toContain(
      "spec.serviceAccountSelector: 'serviceAccountSelector' is not a field of a GlobalNetworkPolicy spec the lab reads",
    );
  });
});
