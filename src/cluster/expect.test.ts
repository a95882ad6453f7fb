import { describe, expect, it } from 'vitest';
import { addressOf, checkProbe } from './expect.ts';
import { probeFor } from './lab.ts';
import { buildCluster } from './topology.ts';

const SPEC = {
  lan: '192.168.50.0/24',
  nodes: [
    { name: 'worker-1', ip: '192.168.50.11', roles: ['worker' as const] },
    { name: 'worker-2', ip: '192.168.50.12', roles: ['worker' as const] },
  ],
};

const MANIFESTS = `apiVersion: apps/v1
kind: DaemonSet
metadata: { name: agent }
spec:
  selector: { matchLabels: { app: agent } }
  template:
    metadata: { labels: { app: agent } }
    spec:
      containers: [{ name: a, image: fluent-bit, ports: [{ containerPort: 24224 }] }]
---
apiVersion: v1
kind: Service
metadata: { name: agent }
spec:
  internalTrafficPolicy: Local
  selector: { app: agent }
  ports: [{ port: 24224 }]
---
apiVersion: v1
kind: Pod
metadata: { name: app }
spec:
  nodeName: worker-2
  containers: [{ name: app, image: busybox }]
`;

describe('pod/WORKLOAD@NODE in probes and expectations', () => {
  const c = buildCluster(SPEC, MANIFESTS);

  it('names the pod of a workload on one node, as sender, target and expectation', () => {
    expect(addressOf(c, 'pod/agent@worker-1')).toBe('10.244.0.10');
    expect(addressOf(c, 'pod/agent@worker-2')).toBe('10.244.1.10');
    const p = probeFor(c, { from: 'pod/agent@worker-2', to: 'pod/agent:24224@worker-1' });
    expect('to' in p && [p.to.address, p.to.port]).toEqual(['10.244.0.10', 24224]);
  });

  it('tells the answers of a DaemonSet apart by node', () => {
    const local = checkProbe(c, {
      from: 'pod/app',
      to: 'svc/agent:24224',
      expect: { split: { 'pod/agent@worker-2': 1 }, srcSeen: 'pod/app' },
    });
    expect(local.diff).toEqual([]);
    const wrong = checkProbe(c, {
      from: 'pod/app',
      to: 'svc/agent:24224',
      expect: { answeredBy: 'pod/agent@worker-1' },
    });
    expect(wrong.pass).toBe(false);
  });
});
