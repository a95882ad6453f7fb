/**
 * What the IPVS generator shows beside kube-proxy's tests: IPv6 set names, `ipset save` text,
 * the sysctls NewProxier sets (strictARP), the kube-ipvs0 binding rule for addresses already on
 * the node, and the dump loading into the engine with the sets it needs.
 */
import { describe, expect, it } from 'vitest';
import { buildNetwork, simulate } from '../../engine/index.ts';
import { endpoint, input, service, slice } from '../proxier/fixtures/build.ts';
import { generateIpvsRules, ipsetName, ipsetSpecs } from './index.ts';

const web = service({
  name: 'web',
  type: 'LoadBalancer',
  clusterIP: '10.96.0.20',
  ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }],
  loadBalancerIngress: [{ ip: '192.168.0.2' }, { ip: '192.168.0.200' }],
});
const webSlice = slice(web, [endpoint('10.244.1.5', { nodeName: 'node-a' })], 8080);

describe('IPVS generator views', () => {
  it("IPv6 sets are KUBE-6-..., cut to ipset's 31 characters", () => {
    expect(ipsetName('KUBE-CLUSTER-IP', 6)).toBe('KUBE-6-CLUSTER-IP');
    expect(ipsetName('KUBE-NODE-PORT-LOCAL-SCTP-HASH', 6)).toBe('KUBE-6-NODE-PORT-LOCAL-SCTP-HAS');
    expect(ipsetName('KUBE-CLUSTER-IP', 4)).toBe('KUBE-CLUSTER-IP');
    const v6 = generateIpvsRules(
      input([service({ name: 'v6', clusterIP: 'fd00:96::20' })], [], { ipFamily: 6 }),
    );
    expect(v6.restoreInput).toContain('--match-set KUBE-6-CLUSTER-IP dst,dst');
    expect(v6.ipsetSave).toContain('create KUBE-6-CLUSTER-IP hash:ip,port family inet6');
    expect(v6.restoreInput.split('\n')).toContain('-A KUBE-SERVICES -s ::1/128 -j RETURN');
  });

  it('an LB IP that is already a node address is not bound to kube-ipvs0 (shouldBind)', () => {
    const r = generateIpvsRules(input([web], [webSlice]));
    expect(r.dummyAddresses).toEqual(['10.96.0.20', '192.168.0.200']);
    expect(r.sets.find((s) => s.base === 'KUBE-IPVS-IPS')?.entries).toEqual([
      '10.96.0.20',
      '192.168.0.200',
    ]);
    // Both still get a virtual server, and so does the NodePort on every node address.
    expect(r.virtualServers.map((v) => `${v.kind} ${v.address}:${v.port}`)).toEqual([
      'cluster-ip 10.96.0.20:80',
      'load-balancer 192.168.0.2:80',
      'load-balancer 192.168.0.200:80',
      'node-port 192.168.0.2:30080',
    ]);
  });

  it("ipset save text: create lines with kube-proxy's parameters, then add lines", () => {
    const r = generateIpvsRules(input([web], [webSlice]));
    const lines = r.ipsetSave.split('\n');
    expect(lines).toContain('create KUBE-NODE-PORT-TCP bitmap:port range 0-65535');
    expect(lines).toContain('add KUBE-NODE-PORT-TCP 30080');
    expect(lines).toContain(
      'create KUBE-LOOP-BACK hash:ip,port,ip family inet hashsize 1024 maxelem 65536',
    );
    expect(lines).toContain('add KUBE-LOOP-BACK 10.244.1.5,tcp:8080,10.244.1.5');
  });

  it('sets the sysctls NewProxier sets; strictARP adds arp_ignore=1 and arp_announce=2', () => {
    const plain = generateIpvsRules(input([], []));
    expect(plain.sysctls['net/ipv4/vs/conntrack']).toBe(1);
    expect(plain.sysctls['net/ipv4/conf/all/arp_ignore']).toBeUndefined();
    const strict = generateIpvsRules(input([], []), { strictARP: true });
    expect(strict.sysctls).toMatchObject({
      'net/ipv4/conf/all/arp_ignore': 1,
      'net/ipv4/conf/all/arp_announce': 2,
    });
  });

  it('its dump, sets and virtual servers load into the engine and serve the ClusterIP', () => {
    const r = generateIpvsRules(input([web], [webSlice], { clusterCIDR: '10.244.0.0/16' }));
    const { network, problems } = buildNetwork({
      hosts: [
        {
          name: 'node-a',
          interfaces: [
            { name: 'eth0', addresses: ['192.168.0.2/24'], segment: 'lan' },
            {
              name: 'kube-ipvs0',
              kind: 'dummy',
              addresses: r.dummyAddresses.map((a) => `${a}/32`),
            },
            { name: 'cali1', addresses: [], kind: 'veth', segment: 'p', proxyArp: true },
          ],
          // Proxy ARP answers the pod's gateway only when the node routes it (a default route).
          routes: [
            { to: '10.244.1.5/32', dev: 'cali1' },
            { to: 'default', via: '192.168.0.1' },
          ],
          sysctls: { ipForward: true },
          rules: r.dump,
          ipsets: ipsetSpecs(r.sets),
          ipvs: r.ipvs,
        },
        {
          name: 'pod',
          interfaces: [{ name: 'eth0', addresses: ['10.244.1.5/32'], kind: 'veth', segment: 'p' }],
          routes: [
            { to: '169.254.1.1/32', dev: 'eth0' },
            { to: 'default', via: '169.254.1.1', dev: 'eth0' },
          ],
          listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 8080 }],
        },
      ],
    });
    expect(problems).toEqual([]);
    if (!network) throw new Error('no network');
    const sim = simulate(network, {
      kind: 'connect',
      from: 'node-a',
      proto: 'tcp',
      dst: '10.96.0.20',
      dport: 80,
    });
    // The node's own connection has the ClusterIP as source: KUBE-CLUSTER-IP marks it (! -s pod
    // CIDR) and KUBE-POSTROUTING masquerades it out of the veth.
    expect(sim.outcome).toMatchObject({ kind: 'answered', host: 'pod', srcSeen: '192.168.0.2' });
  });

  describe('loadBalancerSourceRanges (KUBE-PROXY-FIREWALL, KUBE-IPVS-OUT-FILTER with -m ipvs)', () => {
    const ranged = (range: string) =>
      generateIpvsRules(
        input(
          [
            service({
              name: 'lb',
              type: 'LoadBalancer',
              clusterIP: '10.96.0.30',
              ports: [
                { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: null },
              ],
              loadBalancerIngress: [{ ip: '192.168.0.210' }],
              loadBalancerSourceRanges: [range],
            }),
          ],
          [
            {
              ...webSlice,
              service: 'lb',
            },
          ],
          { clusterCIDR: '10.244.0.0/16' },
        ),
      );
    const net = (r: ReturnType<typeof generateIpvsRules>) => {
      const { network, problems } = buildNetwork({
        hosts: [
          {
            name: 'node-a',
            interfaces: [
              { name: 'eth0', addresses: ['192.168.0.2/24'], segment: 'lan' },
              {
                name: 'kube-ipvs0',
                kind: 'dummy',
                addresses: r.dummyAddresses.map((a) => `${a}/32`),
              },
              { name: 'cali1', addresses: [], kind: 'veth', segment: 'p', proxyArp: true },
            ],
            routes: [
              { to: '10.244.1.5/32', dev: 'cali1' },
              { to: 'default', via: '192.168.0.1' },
            ],
            sysctls: { ipForward: true, arpIgnore: 0 },
            rules: r.dump,
            ipsets: ipsetSpecs(r.sets),
            ipvs: r.ipvs,
          },
          {
            name: 'pod',
            interfaces: [
              { name: 'eth0', addresses: ['10.244.1.5/32'], kind: 'veth', segment: 'p' },
            ],
            routes: [
              { to: '169.254.1.1/32', dev: 'eth0' },
              { to: 'default', via: '169.254.1.1', dev: 'eth0' },
            ],
            listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 8080 }],
          },
          {
            name: 'client',
            interfaces: [{ name: 'eth0', addresses: ['192.168.0.50/24'], segment: 'lan' }],
          },
        ],
      });
      expect(problems).toEqual([]);
      return network as NonNullable<typeof network>;
    };
    const fromNode = {
      kind: 'connect',
      from: 'node-a',
      proto: 'tcp',
      dst: '192.168.0.210',
      dport: 80,
    } as const;
    const fromClient = { ...fromNode, from: 'client' } as const;

    it('the node is outside the ranges: its own connection is dropped in filter OUTPUT', () => {
      const r = ranged('10.0.0.0/8');
      expect(r.restoreInput).toContain(
        '-A KUBE-IPVS-OUT-FILTER -s 192.168.0.210 -m ipvs --vaddr 192.168.0.210 --vproto tcp --vport 80 -j DROP',
      );
      const sim = simulate(net(r), fromNode);
      expect(sim.outcome.kind).toBe('timeout');
      const drop = sim.events.find((e) => e.type === 'rule' && e.verdict === 'DROP');
      expect(drop).toMatchObject({
        table: 'filter',
        chain: 'KUBE-IPVS-OUT-FILTER',
        hook: 'OUTPUT',
      });
      // An outside client outside the ranges meets KUBE-SOURCE-RANGES-FIREWALL in filter INPUT.
      const c = simulate(net(r), fromClient);
      expect(c.outcome.kind).toBe('timeout');
      expect(c.events.find((e) => e.type === 'rule' && e.verdict === 'DROP')).toMatchObject({
        chain: 'KUBE-SOURCE-RANGES-FIREWALL',
        hook: 'INPUT',
      });
    });

    it('the node is inside the ranges: KUBE-LOAD-BALANCER-SOURCE-IP lets the LB IP as source pass', () => {
      const r = ranged('192.168.0.0/16');
      expect(r.sets.find((x) => x.base === 'KUBE-LOAD-BALANCER-SOURCE-IP')?.entries).toEqual([
        '192.168.0.210,tcp:80,192.168.0.210',
      ]);
      expect(r.restoreInput).not.toContain('KUBE-IPVS-OUT-FILTER -s');
      expect(simulate(net(r), fromNode).outcome).toMatchObject({ kind: 'answered', host: 'pod' });
      expect(simulate(net(r), fromClient).outcome).toMatchObject({
        kind: 'answered',
        host: 'pod',
        // externalTrafficPolicy Cluster: KUBE-LOAD-BALANCER marks it, the pod sees the node.
        srcSeen: '192.168.0.2',
      });
    });
  });
});
