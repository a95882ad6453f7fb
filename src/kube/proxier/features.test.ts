import { describe, expect, it } from 'vitest';
import type { ServiceModel } from '../model.ts';
import { chainRules, endpoint, input, service, slice } from './fixtures/build.ts';
import { generateProxierRules } from './index.ts';

const LOCAL = { nodeName: 'node-a' };
const gen = (...a: Parameters<typeof input>) => generateProxierRules(input(...a));

function lb(over: Partial<ServiceModel> = {}): ServiceModel {
  return service({
    name: 'lb',
    type: 'LoadBalancer',
    ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30080 }],
    loadBalancerIngress: [{ ip: '1.2.3.4' }],
    ...over,
  });
}

describe('services without usable endpoints', () => {
  it('rejects ClusterIP traffic in filter KUBE-SERVICES and writes no nat rules', () => {
    const r = gen([service({ name: 'web' })], []);
    expect(chainRules(r.restoreInput, 'KUBE-SERVICES', 'filter')).toEqual([
      '-A KUBE-SERVICES -m comment --comment "ns/web:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.10 --dport 80 -j REJECT',
    ]);
    expect(r.restoreInput).not.toMatch(/KUBE-SVC-/);
  });

  it('drops iTP Local ClusterIP traffic when no endpoint is local', () => {
    const svc = service({ name: 'web', internalTrafficPolicy: 'Local' });
    const r = gen([svc], [slice(svc, [endpoint('10.1.0.1', { nodeName: 'node-b' })])]);
    expect(chainRules(r.restoreInput, 'KUBE-SERVICES', 'filter')[0]).toContain(
      '"ns/web:p80 has no local endpoints" -m tcp -p tcp -d 172.30.0.10 --dport 80 -j DROP',
    );
  });

  it('sends iTP Local traffic to KUBE-SVL with the local endpoints only', () => {
    const svc = service({ name: 'web', internalTrafficPolicy: 'Local' });
    const eps = [endpoint('10.1.0.1', LOCAL), endpoint('10.1.0.2', { nodeName: 'node-b' })];
    const r = gen([svc], [slice(svc, eps)]);
    const svl = r.servicePorts[0]?.localChain ?? '';
    expect(svl).toMatch(/^KUBE-SVL-/);
    expect(r.servicePorts[0]?.clusterChain).toBeNull();
    expect(chainRules(r.restoreInput, 'KUBE-SERVICES')[0]).toContain(`-j ${svl}`);
    const rules = chainRules(r.restoreInput, svl);
    expect(rules[0]).toContain('! -s 10.0.0.0/8 -j KUBE-MARK-MASQ');
    expect(rules.slice(1)).toEqual([
      `-A ${svl} -m comment --comment "ns/web:p80 -> 10.1.0.1:80" -j ${r.servicePorts[0]?.endpoints[0]?.chain}`,
    ]);
  });
});

describe('external destinations', () => {
  const eps = [endpoint('10.1.0.1', LOCAL), endpoint('10.1.0.2', { nodeName: 'node-b' })];

  it('eTP Cluster: external IPs go to KUBE-EXT, which masquerades then uses KUBE-SVC', () => {
    const svc = service({ name: 'web', externalIPs: ['192.168.99.011'] });
    const r = gen([svc], [slice(svc, eps)]);
    const { externalChain: ext, clusterChain: svcChain } = r.servicePorts[0] ?? {};
    expect(chainRules(r.restoreInput, 'KUBE-SERVICES')[1]).toBe(
      `-A KUBE-SERVICES -m comment --comment "ns/web:p80 external IP" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j ${ext}`,
    );
    expect(chainRules(r.restoreInput, ext ?? '')).toEqual([
      `-A ${ext} -m comment --comment "masquerade traffic for ns/web:p80 external destinations" -j KUBE-MARK-MASQ`,
      `-A ${ext} -j ${svcChain}`,
    ]);
  });

  it('eTP Local: pods and the node short-circuit to KUBE-SVC, others go to KUBE-SVL', () => {
    const svc = lb({ externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 });
    const r = gen([svc], [slice(svc, eps)]);
    const sp = r.servicePorts[0];
    const ext = sp?.externalChain ?? '';
    expect(
      chainRules(r.restoreInput, ext).map((l) => l.replace(/ -m comment --comment "[^"]*"/, '')),
    ).toEqual([
      `-A ${ext} -s 10.0.0.0/8 -j ${sp?.clusterChain}`,
      `-A ${ext} -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A ${ext} -m addrtype --src-type LOCAL -j ${sp?.clusterChain}`,
      `-A ${ext} -j ${sp?.localChain}`,
    ]);
    expect(chainRules(r.restoreInput, 'KUBE-NODEPORTS')).toContain(
      '-A KUBE-NODEPORTS -m comment --comment "ns/lb:p80 health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT',
    );
    // Both endpoints need a KUBE-SEP chain: the remote one is reached by short-circuited traffic.
    expect(sp?.endpoints.map((e) => [e.inCluster, e.inLocal])).toEqual([
      [true, true],
      [true, false],
    ]);
  });

  it('eTP Local without local endpoints: DROP in KUBE-EXTERNAL-SERVICES, no jump to KUBE-SVL', () => {
    const svc = lb({ externalTrafficPolicy: 'Local', externalIPs: ['192.168.99.22'] });
    const r = gen([svc], [slice(svc, [endpoint('10.1.0.2', { nodeName: 'node-b' })])]);
    expect(
      chainRules(r.restoreInput, 'KUBE-EXTERNAL-SERVICES').map((l) => l.split('"')[2]),
    ).toEqual([
      ' -m tcp -p tcp -d 192.168.99.22 --dport 80 -j DROP',
      ' -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP',
      ' -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP',
    ]);
    expect(chainRules(r.restoreInput, r.servicePorts[0]?.externalChain ?? '')).toHaveLength(3);
    // healthCheckNodePort only exists with a value.
    expect(chainRules(r.restoreInput, 'KUBE-NODEPORTS').join()).not.toContain('health check');
  });

  it('has no health check rule for eTP Cluster or for a NodePort Service', () => {
    const a = lb({ healthCheckNodePort: 32000 });
    const b = lb({
      name: 'np',
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32001,
    });
    const r = gen([a, b], [slice(a, eps), slice(b, eps)]);
    expect(r.restoreInput).not.toContain('health check node port');
  });

  it('skips load balancer ingress IPs with ipMode Proxy', () => {
    const svc = lb({
      loadBalancerIngress: [{ ip: '1.2.3.4', ipMode: 'Proxy' }, { ip: '5.6.7.8' }],
    });
    const r = gen([svc], [slice(svc, eps)]);
    expect(r.restoreInput).not.toContain('1.2.3.4');
    expect(r.restoreInput).toContain('-d 5.6.7.8 --dport 80');
  });
});

describe('loadBalancerSourceRanges', () => {
  const eps = [endpoint('10.1.0.1')];

  it('sends LB traffic through KUBE-FW and drops the rest in KUBE-PROXY-FIREWALL', () => {
    const svc = lb({ loadBalancerSourceRanges: [' 203.0.113.7/25'] });
    const r = gen([svc], [slice(svc, eps)]);
    const fw = r.servicePorts[0]?.firewallChain ?? '';
    const ext = r.servicePorts[0]?.externalChain ?? '';
    expect(chainRules(r.restoreInput, fw)).toEqual([
      `-A ${fw} -m comment --comment "ns/lb:p80 loadbalancer IP" -s 203.0.113.0/25 -j ${ext}`,
      `-A ${fw} -m comment --comment "other traffic to ns/lb:p80 will be dropped by KUBE-PROXY-FIREWALL"`,
    ]);
    expect(chainRules(r.restoreInput, 'KUBE-PROXY-FIREWALL')).toEqual([
      `-A KUBE-PROXY-FIREWALL -m comment --comment "ns/lb:p80 traffic not accepted by ${fw}" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP`,
    ]);
    // NodePorts are not subject to the source ranges.
    expect(chainRules(r.restoreInput, 'KUBE-NODEPORTS')[0]).toContain(`-j ${ext}`);
  });

  it('lets the node reach its own VIP when a range holds the node IP', () => {
    const svc = lb({ loadBalancerSourceRanges: ['192.168.0.0/24'] });
    const r = gen([svc], [slice(svc, eps)]);
    const fw = r.servicePorts[0]?.firewallChain ?? '';
    expect(chainRules(r.restoreInput, fw)[1]).toContain('-s 1.2.3.4 -j KUBE-EXT-');
  });

  it('treats a zero-length range as no ranges at all', () => {
    const svc = lb({ loadBalancerSourceRanges: ['0.0.0.0/0', '203.0.113.0/25'] });
    const r = gen([svc], [slice(svc, eps)]);
    expect(r.servicePorts[0]?.firewallChain).toBeNull();
    expect(r.restoreInput).not.toContain('KUBE-FW-');
  });
});

describe('session affinity', () => {
  it('checks the recent lists first, then balances; endpoints record the client', () => {
    const svc = service({
      name: 'web',
      sessionAffinity: { type: 'ClientIP', timeoutSeconds: 600 },
    });
    const r = gen([svc], [slice(svc, [endpoint('10.1.0.1'), endpoint('10.1.0.2')])]);
    const [a, b] = r.servicePorts[0]?.endpoints.map((e) => e.chain) ?? [];
    const rules = chainRules(r.restoreInput, r.servicePorts[0]?.clusterChain ?? '').slice(1);
    expect(rules.map((l) => l.replace(/^-A \S+ -m comment --comment "[^"]*" /, ''))).toEqual([
      `-m recent --name ${a} --rcheck --seconds 600 --reap -j ${a}`,
      `-m recent --name ${b} --rcheck --seconds 600 --reap -j ${b}`,
      `-m statistic --mode random --probability 0.5000000000 -j ${a}`,
      `-j ${b}`,
    ]);
    expect(chainRules(r.restoreInput, a ?? '')[1]).toBe(
      `-A ${a} -m comment --comment ns/web:p80 -m recent --name ${a} --set -m tcp -p tcp -j DNAT --to-destination 10.1.0.1:80`,
    );
  });
});
