import { describe, expect, it } from 'vitest';
import type { ServiceModel } from '../model.ts';
import { chainRules, endpoint, input, service, slice } from './fixtures/build.ts';
import { generateProxierRules } from './index.ts';

const gen = (...a: Parameters<typeof input>) => generateProxierRules(input(...a));
const TAIL =
  /^-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" (.*) -j KUBE-NODEPORTS$/;

function np(over: Partial<ServiceModel> = {}): ServiceModel {
  return service({
    name: 'np',
    type: 'NodePort',
    ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30080 }],
    ...over,
  });
}

/** The matches of the nat KUBE-SERVICES tail rules into KUBE-NODEPORTS. */
function tails(text: string): string[] {
  return chainRules(text, 'KUBE-SERVICES', 'nat')
    .map((l) => TAIL.exec(l)?.[1])
    .filter((m) => m !== undefined);
}

describe('NodePorts', () => {
  const svc = np();
  const eps = [slice(svc, [endpoint('10.1.0.1')])];

  it('reaches KUBE-NODEPORTS from every local address, localhost included by default', () => {
    const r = gen([svc], eps, { nfacct: true });
    expect(tails(r.restoreInput)).toEqual(['-m addrtype --dst-type LOCAL']);
    const ext = r.servicePorts[0]?.externalChain;
    expect(chainRules(r.restoreInput, 'KUBE-NODEPORTS', 'nat')).toEqual([
      `-A KUBE-NODEPORTS -m comment --comment ns/np:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 30080 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ${ext}`,
      `-A KUBE-NODEPORTS -m comment --comment ns/np:p80 -m tcp -p tcp --dport 30080 -j ${ext}`,
    ]);
    expect(chainRules(r.restoreInput, 'KUBE-FIREWALL')).toHaveLength(1);
  });

  it('excludes 127.0.0.0/8 and drops KUBE-FIREWALL when localhost NodePorts are off', () => {
    const r = gen([svc], eps, { localhostNodePorts: false, nfacct: true });
    expect(tails(r.restoreInput)).toEqual(['-m addrtype --dst-type LOCAL ! -d 127.0.0.0/8']);
    expect(r.restoreInput).not.toContain('KUBE-FIREWALL');
    expect(r.restoreInput).not.toContain('localhost_nps_accepted_pkts');
  });

  it('lists the matching node IPs for nodePortAddresses, loopback only when allowed', () => {
    const cfg = {
      nodeIPs: ['192.168.1.2', '192.168.0.2', '10.9.0.1', '2001:db8::2'],
      nodePortAddresses: ['192.168.0.0/16', '127.0.0.1/32', '2001:db8::/64'],
    };
    expect(tails(gen([svc], eps, cfg).restoreInput)).toEqual([
      '-d 127.0.0.1',
      '-d 192.168.0.2',
      '-d 192.168.1.2',
    ]);
    // localhostNodePorts off: the loopback match is skipped (and CIDRs without loopback imply off).
    expect(tails(gen([svc], eps, { ...cfg, localhostNodePorts: false }).restoreInput)).toEqual([
      '-d 192.168.0.2',
      '-d 192.168.1.2',
    ]);
    const noLo = gen([svc], eps, { ...cfg, nodePortAddresses: ['192.168.0.0/24'] });
    expect(noLo.settings.localhostNodePorts).toBe(false);
    expect(tails(noLo.restoreInput)).toEqual(['-d 192.168.0.2']);
  });

  it('reads `primary` as the first node IP of the family', () => {
    const r = gen([svc], eps, {
      nodeIPs: ['192.168.1.2', '192.168.0.2'],
      nodePortAddresses: ['primary'],
    });
    expect(tails(r.restoreInput)).toEqual(['-d 192.168.1.2']);
  });

  it('never allows localhost NodePorts on IPv6', () => {
    const v6 = np({ clusterIP: 'fd00:30::1' });
    const r = gen([v6], [slice(v6, [endpoint('fd00:10::1')])], { ipFamily: 6, nfacct: true });
    expect(tails(r.restoreInput)).toEqual(['-m addrtype --dst-type LOCAL ! -d ::1/128']);
    expect(r.restoreInput).not.toContain('127.0.0.0/8');
    expect(r.restoreInput).toContain('-j DNAT --to-destination [fd00:10::1]:80');
    expect(r.restoreInput).toContain(
      '"ns/np:p80 cluster IP" -m tcp -p tcp -d fd00:30::1 --dport 80 ! -s fd00:10::/64 -j KUBE-MARK-MASQ',
    );
  });

  it('rejects NodePort traffic of a Service without endpoints in KUBE-EXTERNAL-SERVICES', () => {
    const r = gen([svc], []);
    expect(chainRules(r.restoreInput, 'KUBE-EXTERNAL-SERVICES')).toEqual([
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns/np:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT',
    ]);
  });
});

describe('masquerading and the local traffic detector', () => {
  const svc = np({ externalTrafficPolicy: 'Local' });
  const eps = [slice(svc, [endpoint('10.1.0.1', { nodeName: 'node-a' })])];
  const svcRule = (text: string, chain: string) => chainRules(text, chain)[0] ?? '';

  it('masquerades off-cluster sources by default', () => {
    const r = gen([svc], eps);
    expect(svcRule(r.restoreInput, r.servicePorts[0]?.clusterChain ?? '')).toMatch(
      /--dport 80 ! -s 10\.0\.0\.0\/8 -j KUBE-MARK-MASQ$/,
    );
  });

  it('masquerades everything with masqueradeAll', () => {
    const r = gen([svc], eps, { masqueradeAll: true });
    expect(svcRule(r.restoreInput, r.servicePorts[0]?.clusterChain ?? '')).toMatch(
      /--dport 80 -j KUBE-MARK-MASQ$/,
    );
  });

  it('writes neither the masquerade rule nor the pod short-circuit without a detector', () => {
    const r = gen([svc], eps, { clusterCIDR: null });
    const sp = r.servicePorts[0];
    expect(chainRules(r.restoreInput, sp?.clusterChain ?? '')).toHaveLength(1);
    const ext = chainRules(r.restoreInput, sp?.externalChain ?? '');
    expect(ext.map((l) => l.includes('--src-type LOCAL'))).toEqual([true, true, false]);
  });
});

describe('which Services are programmed', () => {
  it('skips headless, ExternalName and other-family Services', () => {
    const r = gen(
      [
        service({ name: 'headless', clusterIP: null }),
        service({ name: 'ext', type: 'ExternalName', clusterIP: null }),
        service({ name: 'v6', clusterIP: 'fd00::1' }),
        service({ name: 'bad', clusterIP: 'not-an-ip' }),
        service({ name: 'ok' }),
      ],
      [],
    );
    expect(r.servicePorts.map((s) => s.info.name)).toEqual(['ns/ok:p80']);
  });

  it('gives each protocol of a port its own chains; unnamed ports are `ns/name`', () => {
    const svc = service({
      name: 'dns',
      ports: [
        { name: '', port: 53, protocol: 'UDP', targetPort: 53, nodePort: null },
        { name: 'tcp', port: 53, protocol: 'TCP', targetPort: 53, nodePort: null },
      ],
    });
    const ep = endpoint('10.1.0.1');
    const slices = [
      { ...slice(svc, [ep]), ports: [{ name: '', port: 53, protocol: 'UDP' as const }] },
      { ...slice(svc, [ep]), ports: [{ name: 'tcp', port: 5353, protocol: 'TCP' as const }] },
    ];
    const r = gen([svc], slices);
    expect(r.servicePorts.map((s) => s.info.name)).toEqual(['ns/dns', 'ns/dns:tcp']);
    const [udp, tcp] = r.servicePorts;
    expect(udp?.clusterChain).not.toBe(tcp?.clusterChain);
    expect(r.restoreInput).toContain('-m udp -p udp -j DNAT --to-destination 10.1.0.1:53');
    expect(r.restoreInput).toContain('-m tcp -p tcp -j DNAT --to-destination 10.1.0.1:5353');
  });
});
