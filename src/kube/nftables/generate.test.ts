import { describe, expect, it } from 'vitest';
import { endpoint, input, service, slice } from '../proxier/fixtures/build.ts';
import { generateNftProxierRules, generateNftablesRules } from './index.ts';

const lines = (text: string, prefix: string) =>
  text.split('\n').filter((l) => l.startsWith(prefix));

describe('nftables-mode generator', () => {
  const web = service({
    name: 'web',
    type: 'NodePort',
    clusterIP: '10.96.0.10',
    ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }],
  });
  const eps = slice(
    web,
    [endpoint('10.0.1.5', { nodeName: 'node-a' }), endpoint('10.0.2.5')],
    8080,
  );

  it('accepts NodePorts only on the primary node IP by default, never on loopback', () => {
    const r = generateNftProxierRules(input([web], [eps]));
    expect(lines(r.transaction, 'add element ip kube-proxy nodeport-ips')).toEqual([
      'add element ip kube-proxy nodeport-ips { 192.168.0.2 }',
    ]);
    expect(r.transaction).toContain(
      'add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports\n',
    );
    // Even when asked for: kube-proxy logs "localhost NodePorts are not supported".
    const lo = generateNftProxierRules(input([web], [eps], { nodePortAddresses: ['127.0.0.0/8'] }));
    expect(lines(lo.transaction, 'add element ip kube-proxy nodeport-ips')).toEqual([]);
  });

  it('matches every local address but 127.0.0.0/8 when nodePortAddresses cover everything', () => {
    const t = generateNftablesRules(input([web], [eps], { nodePortAddresses: ['0.0.0.0/0'] }));
    expect(t).not.toContain('nodeport-ips');
    expect(t).toContain(
      'services fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports\n',
    );
    expect(t).toContain(
      'nodeport-endpoints-check ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports\n',
    );
  });

  it('spreads over endpoints with one numgen vmap, in endpoint order', () => {
    const t = generateNftablesRules(input([web], [eps]));
    const chain = lines(t, 'add rule ip kube-proxy service-').find((l) => l.includes('numgen'));
    expect(chain).toMatch(
      /numgen random mod 2 vmap \{ 0 : goto endpoint-\S+__10\.0\.1\.5\/8080 , 1 : goto endpoint-\S+__10\.0\.2\.5\/8080 \}$/,
    );
    expect(t).toMatch(/meta l4proto tcp dnat to 10\.0\.2\.5:8080\n/);
  });

  it('drops traffic to unallocated addresses of its own family’s Service CIDRs only', () => {
    const t = generateNftablesRules(
      input([web], [eps], { serviceCIDRs: ['10.96.0.0/12', 'fd00:96::/108', '10.100.0.0/16'] }),
    );
    expect(t).toContain(
      'add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/12,10.100.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"\n',
    );
    expect(generateNftablesRules(input([web], [eps]))).not.toContain('unallocated');
  });

  it('writes the ip6 table with [address]:port targets for IPv6', () => {
    const v6 = service({
      name: 'web6',
      clusterIP: 'fd00:96::10',
      ports: [{ name: '', port: 80, protocol: 'TCP', targetPort: 80, nodePort: null }],
    });
    const r = generateNftProxierRules(
      input([v6], [slice(v6, [endpoint('fd00:10::5')])], { ipFamily: 6 }),
    );
    expect(r.nftFamily).toBe('ip6');
    expect(r.transaction).toContain(
      'add table ip6 kube-proxy { comment "rules for kube-proxy" ; }',
    );
    expect(r.transaction).toContain(
      'ip6 daddr fd00:96::10 ip6 saddr != fd00:10::/64 jump mark-for-masquerade',
    );
    expect(r.transaction).toMatch(/meta l4proto tcp dnat to \[fd00:10::5\]:80\n/);
    expect(r.transaction).toContain('endpoint-');
    expect(r.transaction).toContain('__fd00.10..5/80');
    expect(lines(r.transaction, 'add element ip6 kube-proxy nodeport-ips')).toEqual([
      'add element ip6 kube-proxy nodeport-ips { 2001:db8::2 }',
    ]);
  });

  it('masquerades all ClusterIP traffic with masqueradeAll, none without a local detector', () => {
    const all = generateNftablesRules(input([web], [eps], { masqueradeAll: true }));
    expect(all).toMatch(/service-\S+ ip daddr 10\.96\.0\.10 jump mark-for-masquerade\n/);
    const none = generateNftablesRules(input([web], [eps], { clusterCIDR: null }));
    expect(none).not.toMatch(/ip daddr 10\.96\.0\.10 .*jump mark-for-masquerade/);
    expect(none).not.toContain('short-circuit pod traffic');
  });

  it('rejects a Service without endpoints and drops eTP Local traffic without local ones', () => {
    const lb = service({
      name: 'lb',
      type: 'LoadBalancer',
      clusterIP: '10.96.0.20',
      externalTrafficPolicy: 'Local',
      loadBalancerIngress: [{ ip: '192.168.50.200' }],
      ports: [{ name: '', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30081 }],
    });
    const none = generateNftablesRules(input([lb], []));
    expect(none).toContain(
      'add element ip kube-proxy no-endpoint-services { 10.96.0.20 . tcp . 80 comment "ns/lb" : goto reject-chain }',
    );
    expect(none).toContain(
      'add element ip kube-proxy no-endpoint-nodeports { tcp . 30081 comment "ns/lb" : goto reject-chain }',
    );
    const remote = generateNftablesRules(input([lb], [slice(lb, [endpoint('10.0.2.5')])]));
    expect(remote).toContain(
      'add element ip kube-proxy no-endpoint-services { 192.168.50.200 . tcp . 80 comment "ns/lb" : drop }',
    );
    expect(remote).toContain(
      'add element ip kube-proxy service-ips { 192.168.50.200 . tcp . 80 : goto external-',
    );
    expect(remote).toContain('comment "short-circuit local traffic"');
  });

  it('re-points a map entry two Services claim, as kube-proxy’s element storage does', () => {
    const a = service({ name: 'a', clusterIP: '10.96.0.30', externalIPs: ['192.168.50.9'] });
    const b = service({ name: 'b', clusterIP: '10.96.0.31', externalIPs: ['192.168.50.9'] });
    const t = generateNftablesRules(
      input([a, b], [slice(a, [endpoint('10.0.1.1')]), slice(b, [endpoint('10.0.1.2')])]),
    );
    const ext = t.split('\n').filter((l) => l.includes('192.168.50.9 . tcp . 80'));
    expect(ext).toHaveLength(3);
    expect(ext[1]).toBe('delete element ip kube-proxy service-ips { 192.168.50.9 . tcp . 80 }');
    expect(ext[2]).toContain(': goto external-');
    expect(ext[2]).toContain('-ns/b/tcp/p80');
  });

  it('keeps ClientIP affinity per endpoint in a timed set', () => {
    const s = service({
      name: 'sticky',
      clusterIP: '10.96.0.40',
      sessionAffinity: { type: 'ClientIP', timeoutSeconds: 60 },
    });
    const t = generateNftablesRules(input([s], [slice(s, [endpoint('10.0.1.7')])]));
    expect(t).toMatch(
      /add set ip kube-proxy affinity-\S+ \{ type ipv4_addr ; flags dynamic,timeout ; timeout 60s ; \}/,
    );
    expect(t).toMatch(/ip saddr @affinity-\S+ goto endpoint-\S+\n/);
    expect(t).toMatch(/update @affinity-\S+ \{ ip saddr \}\n/);
  });

  it('names its dump after the node and the kube-proxy version it follows', () => {
    expect(generateNftablesRules(input([], [])).split('\n')[0]).toBe(
      '# kube-proxy nftables-mode rules (ip kube-proxy) for node node-a, generated by Hookpath following kube-proxy v1.34/v1.35',
    );
  });
});
