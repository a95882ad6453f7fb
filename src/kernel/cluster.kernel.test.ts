/**
 * Two nodes, three pods, rules from the kube-proxy generator: ClusterIP (hairpin and
 * cross-node), no endpoints, externalTrafficPolicy and internalTrafficPolicy Local, localhost
 * NodePort (DOMAIN §2, §4). Every probe must agree with the engine, rule by rule.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newNetworkState } from '../engine/index.ts';
import { CLIENT_IP } from '../engine/testing/vip22.ts';
import { clusterNetwork, endpoint, service, slice } from './cluster.ts';
import { crossCheck } from './compare.ts';
import { verdictText } from './verdict.ts';
import { expectAgreement } from './expect.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

const N1 = '192.168.50.38';
const N2 = '192.168.50.39';
const A = '10.244.1.11';
const B = '10.244.1.12';
const C = '10.244.2.13';

const spec = clusterNetwork({
  nodes: [
    {
      name: 'node-1',
      ip: N1,
      podCidr: '10.244.1.0/24',
      pods: [
        { name: 'pod-a', ip: A },
        { name: 'pod-b', ip: B },
      ],
    },
    { name: 'node-2', ip: N2, podCidr: '10.244.2.0/24', pods: [{ name: 'pod-c', ip: C }] },
  ],
  services: [
    service('web', '10.96.0.10', { nodePort: 30080 }),
    service('empty', '10.96.0.20'),
    service('local', '10.96.0.30', { nodePort: 30081, externalTrafficPolicy: 'Local' }),
    service('itp', '10.96.0.40', { internalTrafficPolicy: 'Local' }),
    service('sticky', '10.96.0.50', {
      sessionAffinity: { type: 'ClientIP', timeoutSeconds: 10800 },
    }),
  ],
  endpointSlices: [
    slice('web', [endpoint(A, 'node-1'), endpoint(B, 'node-1'), endpoint(C, 'node-2')]),
    slice('local', [endpoint(C, 'node-2')]),
    slice('itp', [endpoint(C, 'node-2')]),
    slice('sticky', [endpoint(A, 'node-1'), endpoint(B, 'node-1'), endpoint(C, 'node-2')]),
  ],
  extraHosts: [
    {
      name: 'client',
      interfaces: [{ name: 'eth0', addresses: [`${CLIENT_IP}/24`], segment: 'lan' }],
    },
  ],
});

describeKernel('two-node cluster, kube-proxy generated rules', () => {
  let lab: KernelLab | null = null;
  beforeAll(async () => {
    lab = await KernelLab.start(spec);
  });
  afterAll(() => lab?.close());
  const probe = (from: string, dst: string, dport = 80) =>
    crossCheck(lab as KernelLab, { kind: 'connect', from, proto: 'tcp', dst, dport });

  // First: hairpin traffic makes node-1 send pod-a ICMP redirects, and the kernel rate-limits
  // ICMP errors per peer with the same clock (inet_peer rate_last), so right after them the
  // port-unreachable is held back until the SYN is retransmitted. The engine has no such clock.
  it('ClusterIP without endpoints: filter KUBE-SERVICES rejects', async () => {
    expectAgreement(await probe('pod-a', '10.96.0.20'), 'refused ECONNREFUSED');
  });

  it('pod -> ClusterIP: every real pick is one the engine enumerates (hairpin masquerades)', async () => {
    for (let i = 0; i < 12; i++) {
      const c = await probe('pod-a', '10.96.0.10');
      expect(c.possible.map((p) => p.verdict).sort()).toEqual([
        `answered "pod-a" src=${N1}`,
        `answered "pod-b" src=${A}`,
        `answered "pod-c" src=${A}`,
      ]);
      expectAgreement(c);
    }
  });

  it('eTP Local NodePort on a node without the endpoint: timeout', async () => {
    expectAgreement(await probe('client', N1, 30081), 'timeout');
  });

  it('eTP Local NodePort on the endpoint node: the pod sees the client', async () => {
    expectAgreement(await probe('client', N2, 30081), `answered "pod-c" src=${CLIENT_IP}`);
  });

  it('eTP Local from a pod: short-circuited to the cluster-wide chain', async () => {
    expectAgreement(await probe('pod-a', N1, 30081), `answered "pod-c" src=${A}`);
  });

  it('iTP Local without a local endpoint: dropped, timeout', async () => {
    expectAgreement(await probe('pod-a', '10.96.0.40'), 'timeout');
  });

  it('iTP Local with the endpoint on the same node', async () => {
    expectAgreement(await probe('pod-c', '10.96.0.40'), `answered "pod-c" src=${N2}`);
  });

  it('localhost NodePort from the node', async () => {
    const c = await probe('node-1', '127.0.0.1', 30080);
    expectAgreement(c);
    expect(c.kernel).toMatchObject({ kind: 'answered', srcSeen: N1 });
  });

  it('sessionAffinity ClientIP: after the first pick, every connection returns to that pod', async () => {
    // The `recent` lists live on in the kernel, so the engine state must live on too.
    const state = newNetworkState();
    const first = await crossCheck(
      lab as KernelLab,
      { kind: 'connect', from: 'pod-c', proto: 'tcp', dst: '10.96.0.50', dport: 80 },
      { state },
    );
    expectAgreement(first);
    expect(first.possible).toHaveLength(3);
    for (let i = 0; i < 4; i++) {
      const c = await crossCheck(
        lab as KernelLab,
        { kind: 'connect', from: 'pod-c', proto: 'tcp', dst: '10.96.0.50', dport: 80 },
        { state },
      );
      expectAgreement(c, verdictText(first.kernel));
      expect(c.possible).toHaveLength(1);
    }
  });
});
