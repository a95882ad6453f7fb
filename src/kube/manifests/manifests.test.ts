import { describe, expect, it } from 'vitest';
import { readManifests, type ClusterSettings } from './index.ts';
import { allocateHints } from './endpointslices.ts';

const CLUSTER: ClusterSettings = {
  nodes: [
    {
      name: 'cp-1',
      ip: '192.168.50.38',
      zone: 'a',
      labels: { 'kubernetes.io/hostname': 'cp-1' },
      taints: [{ key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' }],
      podCIDR: '10.244.0.0/24',
      cpu: 4,
    },
    {
      name: 'worker-1',
      ip: '192.168.50.39',
      zone: 'a',
      labels: { 'kubernetes.io/hostname': 'worker-1' },
      taints: [],
      podCIDR: '10.244.1.0/24',
      cpu: 4,
    },
    {
      name: 'worker-2',
      ip: '192.168.50.40',
      zone: 'b',
      labels: { 'kubernetes.io/hostname': 'worker-2' },
      taints: [],
      podCIDR: '10.244.2.0/24',
      cpu: 4,
    },
  ],
  serviceCIDR: '10.96.0.0/12',
  loadBalancerPool: ['192.168.50.100'],
};

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nettest
spec:
  replicas: 3
  selector:
    matchLabels: { app: nettest }
  template:
    metadata:
      labels: { app: nettest }
    spec:
      containers:
        - name: web
          ports:
            - { name: http, containerPort: 8080 }
`;

const errors = (m: ReturnType<typeof readManifests>) =>
  m.diagnostics.filter((d) => d.severity === 'error');

describe('readManifests', () => {
  it('applies Service defaults and allocates what the API server allocates', () => {
    const m = readManifests(
      `${DEPLOY}---\napiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: { app: nettest }\n  ports:\n    - port: 80\n      targetPort: http\n`,
      CLUSTER,
    );
    expect(errors(m)).toEqual([]);
    const svc = m.services[0];
    expect(svc).toMatchObject({
      namespace: 'default',
      type: 'LoadBalancer',
      clusterIP: '10.96.0.10',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 30001,
    });
    expect(svc?.ports[0]).toMatchObject({ protocol: 'TCP', targetPort: 'http', nodePort: 30000 });
    expect(svc?.loadBalancerIngress).toEqual([{ ip: '192.168.50.100' }]);
  });

  it('spreads replicas over the nodes that tolerate them, with addresses from each pod CIDR', () => {
    const m = readManifests(DEPLOY, CLUSTER);
    expect(m.pods.map((p) => [p.node, p.ip])).toEqual([
      ['worker-1', '10.244.1.10'],
      ['worker-2', '10.244.2.10'],
      ['worker-1', '10.244.1.11'],
    ]);
    expect(m.pods[0]?.name).toMatch(/^nettest-[a-z0-9]{9}-[a-z0-9]{5}$/);
  });

  it('resolves named target ports per pod into EndpointSlices with zones', () => {
    const m = readManifests(
      `${DEPLOY}---\napiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec:\n  selector: { app: nettest }\n  ports: [{ port: 80, targetPort: http }]\n`,
      CLUSTER,
    );
    expect(m.endpointSlices).toHaveLength(1);
    expect(m.endpointSlices[0]?.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    expect(m.endpointSlices[0]?.endpoints.map((e) => [e.addresses[0], e.nodeName, e.zone])).toEqual(
      [
        ['10.244.1.10', 'worker-1', 'a'],
        ['10.244.2.10', 'worker-2', 'b'],
        ['10.244.1.11', 'worker-1', 'a'],
      ],
    );
  });

  it('says, in words an instructor understands, when a named targetPort matches no container', () => {
    const text = `${DEPLOY}---\napiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec:\n  selector: { app: nettest }\n  ports:\n    - port: 80\n      targetPort: www\n`;
    const m = readManifests(text, CLUSTER);
    expect(errors(m)).toEqual([]);
    const e = m.diagnostics.find((d) => d.field?.endsWith('targetPort'));
    expect(e).toMatchObject({
      severity: 'warning',
      field: 'Service default/web: spec.ports[0].targetPort',
      message:
        "'www' is not a port name of any container selected by app=nettest; this port has no endpoints",
    });
    expect(e).toMatchObject({ line: 25, column: 19 });
  });

  it('reports bad values at their line and column, and YAML syntax errors too', () => {
    const m = readManifests(
      'apiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec:\n  type: Loadbalancer\n  ports: [{ port: 70000 }]\n',
      CLUSTER,
    );
    expect(errors(m).map((d) => [d.line, d.field, d.message])).toEqual([
      [
        5,
        'Service default/web: spec.type',
        "'Loadbalancer' is not one of ClusterIP, NodePort, LoadBalancer, ExternalName",
      ],
      [6, 'Service default/web: spec.ports[0].port', '70000 is out of range 1..65535'],
    ]);
    const broken = readManifests(
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: [web\n',
      CLUSTER,
    );
    expect(errors(broken)[0]?.line).toBeGreaterThanOrEqual(4);
  });

  it('reads the items of a List document, as kubectl get -o yaml prints them', () => {
    const svc = `apiVersion: v1\nkind: Service\nmetadata: { name: web }\nspec:\n  selector: { app: nettest }\n  ports: [{ port: 80, targetPort: http }]\n`;
    // kubectl's layout: items at the left margin, each object indented under its dash.
    const item = (doc: string) =>
      doc
        .trimEnd()
        .split('\n')
        .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
        .join('\n');
    const list = `apiVersion: v1\nitems:\n${item(DEPLOY)}\n${item(svc)}\nkind: List\nmetadata:\n  resourceVersion: ""\n`;
    const fromList = readManifests(list, CLUSTER);
    const fromDocs = readManifests(`${DEPLOY}---\n${svc}`, CLUSTER);
    expect(errors(fromList)).toEqual([]);
    expect(fromList.services).toEqual(fromDocs.services);
    expect(fromList.pods).toEqual(fromDocs.pods);
    expect(fromList.endpointSlices).toEqual(fromDocs.endpointSlices);
    // A problem in an item is placed in the list's text, and named by its object.
    const bad = readManifests(list.replace('port: 80,', 'port: 70000,'), CLUSTER);
    const e = errors(bad)[0];
    expect(e).toMatchObject({
      field: 'Service default/web: spec.ports[0].port',
      message: '70000 is out of range 1..65535',
    });
    const lines = list.split('\n');
    const line = lines.findIndex((l) => l.includes('port: 80,'));
    expect([e?.line, e?.column]).toEqual([line + 1, (lines[line] ?? '').indexOf('80,') + 1]);
  });

  it('names a List item where its object has no name yet, and a List without items', () => {
    const m = readManifests(
      `kind: List\napiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: Service\n    metadata: { name: a }\n    spec: { ports: [{ port: 80 }] }\n  - apiVersion: v1\n    metadata: { name: b }\n---\napiVersion: v1\nkind: Service\nmetadata: { name: a }\nspec: { ports: [{ port: 80 }] }\n`,
      CLUSTER,
    );
    expect(errors(m).map((d) => [d.line, d.field, d.message])).toEqual([
      [8, 'document 1, items[1]: ', 'kind is required (for example kind: Service)'],
      [
        13,
        'Service default/a: metadata.name',
        'Service default/a is defined twice (document 1, items[0] and document 2)',
      ],
    ]);
    const empty = readManifests('apiVersion: v1\nkind: List\nitems: { a: 1 }\n', CLUSTER);
    expect(errors(empty).map((d) => [d.line, d.message])).toEqual([
      [3, 'a List holds its objects in items, a list (items: [...])'],
    ]);
    // A kind that only ends in "List" but lists nothing is an object of that kind.
    const other = readManifests(
      'apiVersion: v1\nkind: AllowList\nmetadata: { name: x }\n',
      CLUSTER,
    );
    expect(other.diagnostics[0]?.message).toMatch(/does not model kind AllowList/);
  });

  it('pods that fit no node stay pending, with the reason', () => {
    const m = readManifests(
      DEPLOY.replace(
        'spec:\n      containers',
        'spec:\n      nodeSelector: { disk: ssd }\n      containers',
      ),
      CLUSTER,
    );
    expect(m.pods[0]?.node).toBeNull();
    expect(
      m.diagnostics.some(
        (d) => d.severity === 'warning' && d.message.includes('no node can run these pods'),
      ),
    ).toBe(true);
  });
});

describe('topology hints (EndpointSlice controller)', () => {
  const zoned = (cpus: Record<string, number>): ClusterSettings => ({
    ...CLUSTER,
    nodes: Object.entries(cpus).map(([zone, cpu], i) => ({
      name: `n${i}`,
      ip: `10.0.0.${i + 1}`,
      zone,
      labels: {},
      taints: [],
      podCIDR: `10.244.${i}.0/24`,
      cpu,
    })),
  });

  it('zones a/b/c at 40/30/30 % CPU with 6 pods: float64 rounding makes zone a need 3, so no hints', () => {
    // desired(a) = 0.4 * 6 = 2.4000000000000004; * (1 / 1.2) = 2.0000000000000004; ceil = 3; 3 + 2 + 2 > 6.
    expect(
      allocateHints(['a', 'a', 'b', 'b', 'c', 'c'], zoned({ a: 4, b: 3, c: 3 })),
    ).toMatchObject({ reason: expect.stringContaining('overloading') });
    const nine = allocateHints(
      ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c'],
      zoned({ a: 4, b: 3, c: 3 }),
    );
    expect('hints' in nine && [...nine.hints.values()].join('')).toBe('abcabcabc');
  });

  it('control-plane nodes do not count towards a zone', () => {
    const c = zoned({ a: 4, b: 4 });
    const withCp = {
      ...c,
      nodes: [
        ...c.nodes,
        {
          name: 'cp',
          ip: '10.0.0.9',
          zone: 'c',
          labels: { 'node-role.kubernetes.io/control-plane': '' },
          taints: [],
          podCIDR: '10.244.9.0/24',
          cpu: 64,
        },
      ],
    };
    expect('hints' in allocateHints(['a', 'b'], withCp)).toBe(true);
  });

  it('falls back (no hints) with one zone, too few endpoints, or an overload beyond 20 %', () => {
    expect(allocateHints(['a', 'a'], zoned({ a: 4 }))).toEqual({
      reason: 'all nodes are in one zone',
    });
    expect(allocateHints(['a', 'b'], zoned({ a: 4, b: 4, c: 4 }))).toMatchObject({
      reason: 'fewer endpoints (2) than zones (3)',
    });
    expect(allocateHints(['a', 'a', 'a', 'b'], zoned({ a: 1, b: 1, c: 8 }))).toMatchObject({
      reason: expect.stringContaining('overloading'),
    });
  });

  it('moves hints from a zone with too many endpoints to one with too few', () => {
    const res = allocateHints(['a', 'a', 'a', 'b'], zoned({ a: 2, b: 2 }));
    expect('hints' in res && [...res.hints.values()].sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('moves endpoints as getGivingAndReceivingZones does: most over to most under, in whole endpoints', () => {
    const c = zoned({ a: 4, b: 3, c: 3 });
    const hints = (zones: string[]) => {
      const r = allocateHints(zones, c);
      return 'hints' in r
        ? zones.map((z, i) => (r.hints.get(i) === z ? z : `${z}>${r.hints.get(i)}`))
        : r;
    };
    // 7 endpoints 2/3/2: desired 2.8/2.1/2.1, but a's minimum ceil(2.8 / 1.2) = 3 raises its share
    // to 3; b is 0.9 over and a 1.0 under: the first b endpoint serves zone a.
    expect(hints(['a', 'a', 'b', 'b', 'b', 'c', 'c'])).toEqual([
      'a',
      'a',
      'b>a',
      'b',
      'b',
      'c',
      'c',
    ]);
    // 8 endpoints 3/3/2: desired 3.2/2.4/2.4; b is 0.6 over, c 0.4 under (less than half): no move.
    expect(hints(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c'])).toEqual([
      'a',
      'a',
      'a',
      'b',
      'b',
      'b',
      'c',
      'c',
    ]);
    // 9 endpoints 3/2/4: desired 3.6/3/3 (b raised to its minimum); c's extra endpoint goes to b,
    // 1.0 under, not to a, 0.6 under (rounding each zone's desired share would pick a).
    expect(hints(['a', 'a', 'a', 'b', 'b', 'c', 'c', 'c', 'c'])).toEqual([
      'a',
      'a',
      'a',
      'b',
      'b',
      'c>b',
      'c',
      'c',
      'c',
    ]);
    // 4/3/0: zone c has no endpoint of its own and borrows one from a and one from b.
    expect(hints(['a', 'a', 'a', 'a', 'b', 'b', 'b'])).toEqual([
      'a>c',
      'a',
      'a',
      'a',
      'b>c',
      'b',
      'b',
    ]);
  });
});
