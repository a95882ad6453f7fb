/** DOMAIN §1 on the real kernel: VIP:22 lands on sshd or on the LoadBalancer Service's pod. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_IP, LB_RULES, NODE_IP, VIP, vip22Network } from '../engine/testing/vip22.ts';
import { crossCheck } from './compare.ts';
import { verdictText } from './verdict.ts';
import { expectAgreement, traceOf } from './expect.ts';
import { etpLocalNetwork } from './fixtures.ts';
import { KernelLab } from './lab.ts';
import { describeKernel } from './support.ts';

const SSHD = 'SSH-2.0-OpenSSH_10.3';
const POD = 'HTTP/1.0 200 OK';
const toVip = { kind: 'connect', from: 'client', proto: 'tcp', dst: VIP, dport: 22 } as const;
const toNode = { ...toVip, dst: NODE_IP } as const;

function labSuite(
  title: string,
  spec: Parameters<typeof KernelLab.start>[0],
  body: (lab: () => KernelLab) => void,
  trace?: readonly string[],
) {
  describeKernel(title, () => {
    let lab: KernelLab | null = null;
    beforeAll(async () => {
      lab = await KernelLab.start(spec, trace ? { trace } : {});
    });
    afterAll(() => lab?.close());
    body(() => lab as KernelLab);
  });
}

// One node, three states in a row, as in the homelab: no Service, Service created, deleted.
labSuite(
  'VIP:22 as LoadBalancer Service lb-port22-test (eTP Cluster) comes and goes',
  vip22Network(null),
  (lab) => {
    it('no Service: the VIP is a local address, host sshd answers', async () => {
      expectAgreement(await crossCheck(lab(), toVip), `answered "${SSHD}" src=${CLIENT_IP}`);
      expectAgreement(await crossCheck(lab(), toNode), `answered "${SSHD}" src=${CLIENT_IP}`);
    });

    it('Service created: DNAT in nat PREROUTING wins, the pod answers and sees the node IP', async () => {
      lab().setRules('cp-1', LB_RULES);
      const c = await crossCheck(lab(), toVip);
      expectAgreement(c, `answered "${POD}" src=${NODE_IP}`);
      expect(traceOf(c, 'cp-1')).toContain('nat:KUBE-SEP-BBBB:rule:2:ACCEPT');
      expect(traceOf(c, 'cp-1')).toContain('nat:KUBE-POSTROUTING:rule:3:ACCEPT');
      // The reply is translated by conntrack: only filter FORWARD sees it, never a nat chain.
      expect(traceOf(c, 'cp-1', 'reply').some((n) => n.startsWith('nat:'))).toBe(false);
    });

    it("Service present: the node's own IP :22 still reaches sshd", async () => {
      expectAgreement(await crossCheck(lab(), toNode), `answered "${SSHD}" src=${CLIENT_IP}`);
    });

    it('the harness notices a wrong engine: without the DNAT rule it predicts sshd', async () => {
      const c = await crossCheck(lab(), toVip, { spec: vip22Network(null) });
      expect(verdictText(c.kernel)).toBe(`answered "${POD}" src=${NODE_IP}`);
      expect(verdictText(c.engine)).toBe(`answered "${SSHD}" src=${CLIENT_IP}`);
      const first = c.traces.find((t) => t.host === 'cp-1' && t.packet === 'first');
      expect(first?.engine).toEqual([]);
      expect(first?.kernel.length).toBeGreaterThan(0);
    });

    it('Service deleted: sshd again', async () => {
      lab().setRules('cp-1', '');
      expectAgreement(await crossCheck(lab(), toVip), `answered "${SSHD}" src=${CLIENT_IP}`);
    });
  },
  ['cp-1'],
);

labSuite('VIP:22, eTP Local, pod on the worker', etpLocalNetwork(false), (lab) => {
  it('no local endpoint on the VIP holder: filter KUBE-EXTERNAL-SERVICES drops, timeout', async () => {
    const c = await crossCheck(lab(), toVip);
    expectAgreement(c, 'timeout');
    expect(traceOf(c, 'cp-1')).toContain('filter:KUBE-EXTERNAL-SERVICES:rule:1:DROP');
  });
});

labSuite('VIP:22, eTP Local, pod pinned to the VIP holder', etpLocalNetwork(true), (lab) => {
  it('the local pod answers and sees the real client IP', async () => {
    const c = await crossCheck(lab(), toVip);
    expectAgreement(c, `answered "${POD}" src=${CLIENT_IP}`);
    expect(traceOf(c, 'cp-1')).toContain('nat:KUBE-EXT-AAAA:rule:4:JUMP:KUBE-SVL-AAAA');
  });
});

/** kube-vip / MetalLB L2: two nodes hold the VIP, the ARP owner (leader) gets the traffic. */
function twoHolders(owner: string): Parameters<typeof KernelLab.start>[0] {
  return {
    arpOwners: { [VIP]: owner },
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: [`${CLIENT_IP}/24`], segment: 'lan' }],
      },
      ...['cp-1', 'cp-2'].map((name, k) => ({
        name,
        interfaces: [
          { name: 'eth0', addresses: [`192.168.50.${38 + k}/24`, `${VIP}/32`], segment: 'lan' },
        ],
        listeners: [{ process: 'sshd', proto: 'tcp' as const, address: '0.0.0.0', port: 22 }],
      })),
    ],
  };
}

for (const owner of ['cp-1', 'cp-2']) {
  labSuite(`VIP held by two nodes, ARP owner ${owner}`, twoHolders(owner), (lab) => {
    it('the leader answers', async () => {
      expectAgreement(await crossCheck(lab(), toVip), `answered "sshd@${owner}" src=${CLIENT_IP}`);
    });
  });
}
