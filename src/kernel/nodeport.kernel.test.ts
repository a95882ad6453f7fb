/**
 * A NodePort Service with three endpoints on one node (kube-proxy iptables rules): statistic
 * load balancing, and localhost NodePorts that need route_localnet (DOMAIN §4, Kernel facts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_IP, NODE_IP } from '../engine/testing/vip22.ts';
import { crossCheck } from './compare.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { NODEPORT, nodePortRules, nodeWithPods, pod } from './fixtures.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

const PODS = [
  pod('pod-a', '10.244.0.11'),
  pod('pod-b', '10.244.0.12'),
  pod('pod-c', '10.244.0.13'),
];
const ENDPOINTS = ['10.244.0.11', '10.244.0.12', '10.244.0.13'];
/** P(some endpoint never drawn in 30 tries at 1/3 each) = 3 * (2/3)^30 < 2e-5. */
const TRIES = 30;

function spec(routeLocalnet: boolean) {
  return nodeWithPods({ pods: PODS, rules: nodePortRules(ENDPOINTS), routeLocalnet });
}

describeKernel(
  'NodePort with three endpoints (route_localnet=1 as kube-proxy sets it, then 0)',
  () => {
    let lab: KernelLab | null = null;
    beforeAll(async () => {
      lab = await KernelLab.start(spec(true));
    });
    afterAll(() => lab?.close());
    const l = () => lab as KernelLab;

    it(`statistic: ${TRIES} real connections reach only endpoints the engine enumerates, and all three`, async () => {
      const reached = new Map<string, number>();
      for (let i = 0; i < TRIES; i++) {
        const c = await crossCheck(l(), {
          kind: 'connect',
          from: 'client',
          proto: 'tcp',
          dst: NODE_IP,
          dport: NODEPORT,
        });
        expect(c.possible.map((p) => p.verdict)).toEqual(
          PODS.map((p) => `answered "${p.name}" src=${NODE_IP}`),
        );
        expect(c.possible.map((p) => p.probability.toFixed(4))).toEqual([
          '0.3333',
          '0.3333',
          '0.3333',
        ]);
        expectAgreement(c);
        if (c.kernel.kind === 'answered')
          reached.set(c.kernel.reply, (reached.get(c.kernel.reply) ?? 0) + 1);
      }
      expect([...reached.keys()].sort()).toEqual(['pod-a', 'pod-b', 'pod-c']);
    });

    it('the node itself to 127.0.0.1:NodePort: nat OUTPUT DNATs, MASQUERADE gives the node IP', async () => {
      const c = await crossCheck(l(), {
        kind: 'connect',
        from: 'node-1',
        proto: 'tcp',
        dst: '127.0.0.1',
        dport: NODEPORT,
      });
      expectAgreement(c);
      expect(c.kernel).toMatchObject({ kind: 'answered', srcSeen: NODE_IP });
      expect(traceOf(c, 'node-1')[0]).toBe('nat:OUTPUT:rule:1:JUMP:KUBE-SERVICES');
      expect(traceOf(c, 'node-1')).toContain('nat:KUBE-POSTROUTING:rule:3:ACCEPT');
    });

    it('the ClusterIP from the node: KUBE-SVC masquerades a source outside the pod CIDR', async () => {
      const c = await crossCheck(l(), {
        kind: 'connect',
        from: 'node-1',
        proto: 'tcp',
        dst: '10.96.0.10',
        dport: 80,
      });
      expectAgreement(c);
      expect(c.kernel).toMatchObject({ kind: 'answered', srcSeen: NODE_IP });
    });

    it('other ports of the node IP pass KUBE-NODEPORTS untouched: sshd answers', async () => {
      const c = await crossCheck(l(), {
        kind: 'connect',
        from: 'client',
        proto: 'tcp',
        dst: NODE_IP,
        dport: 22,
      });
      expectAgreement(c, `answered "SSH-2.0-OpenSSH_10.3" src=${CLIENT_IP}`);
    });
    it('route_localnet=0: DNAT happens, but a 127.0.0.1 source cannot leave lo: timeout', async () => {
      l().setSysctls('node-1', { ipForward: true, routeLocalnet: false });
      const c = await crossCheck(l(), {
        kind: 'connect',
        from: 'node-1',
        proto: 'tcp',
        dst: '127.0.0.1',
        dport: NODEPORT,
      });
      expectAgreement(c, 'timeout');
    });

    it('route_localnet=0: the node IP:NodePort from the client still works', async () => {
      const c = await crossCheck(l(), {
        kind: 'connect',
        from: 'client',
        proto: 'tcp',
        dst: NODE_IP,
        dport: NODEPORT,
      });
      expectAgreement(c);
      expect(c.kernel).toMatchObject({ kind: 'answered', srcSeen: NODE_IP });
    });
  },
);
