import { describe, expect, it } from 'vitest';
import { checkProbe } from './expect.ts';
import { buildCluster } from './topology.ts';

const MANIFESTS = `apiVersion: v1
kind: Pod
metadata: { name: web, labels: { app: web } }
spec:
  nodeName: worker-1
  containers: [{ name: web, image: nginx, ports: [{ containerPort: 8080 }] }]
---
apiVersion: v1
kind: Service
metadata: { name: web }
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: { app: web }
  ports: [{ port: 80, targetPort: 8080 }]
`;

const spec = (nodePortAddresses: string[] | undefined) => ({
  lan: '192.168.50.0/24',
  nodes: [
    {
      name: 'worker-1',
      ip: '192.168.50.11',
      roles: ['worker' as const],
      ...(nodePortAddresses ? { kubeProxy: { nodePortAddresses } } : {}),
    },
  ],
  clients: [{ name: 'laptop', ip: '192.168.50.10' }],
  vips: [{ ip: '192.168.50.100', mode: 'metallb-l2' as const, holder: 'worker-1' }],
});

const node = (c: ReturnType<typeof buildCluster>) =>
  c.network.hosts.find((h) => h.name === 'worker-1');
const healthListeners = (c: ReturnType<typeof buildCluster>) =>
  (node(c)?.listeners ?? [])
    .filter((l) => l.port === c.model.services[0]?.healthCheckNodePort)
    .map((l) => l.address);

describe('kube-proxy settings that reach the node', () => {
  it('health check servers listen on every address, or on the nodePortAddresses only', () => {
    expect(healthListeners(buildCluster(spec(undefined), MANIFESTS))).toEqual(['0.0.0.0']);
    const narrow = buildCluster(spec(['127.0.0.0/8']), MANIFESTS);
    expect(healthListeners(narrow)).toEqual(['127.0.0.1']);
    const port = narrow.model.services[0]?.healthCheckNodePort ?? 0;
    expect(
      checkProbe(narrow, {
        from: 'client/laptop',
        to: 'healthcheck/web@worker-1',
        expect: { outcome: 'refused' },
      }).diff,
    ).toEqual([]);
    expect(
      checkProbe(narrow, {
        from: 'node/worker-1',
        to: `127.0.0.1:${port}`,
        expect: { answeredBy: 'node/worker-1/kube-proxy', reply: 'HTTP/1.1 200 OK' },
      }).diff,
    ).toEqual([]);
  });

  it('route_localnet=1 only when localhost NodePorts are in effect', () => {
    expect(node(buildCluster(spec(undefined), MANIFESTS))?.sysctls?.routeLocalnet).toBe(true);
    expect(node(buildCluster(spec(['127.0.0.0/8']), MANIFESTS))?.sysctls?.routeLocalnet).toBe(true);
    expect(node(buildCluster(spec(['192.168.50.0/24']), MANIFESTS))?.sysctls?.routeLocalnet).toBe(
      false,
    );
  });
});
