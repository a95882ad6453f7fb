import { describe, expect, it } from 'vitest';
import { normaliseMark, setupToProxierInput, type Setup } from '../../conformance/setup.ts';
import { parseRuleset } from '../../engine/index.ts';
import reference from './fixtures/reference-dump.json' with { type: 'json' };
import { chainRules, endpoint, input, service, slice } from './fixtures/build.ts';
import {
  chainOwners,
  computeProbability,
  formatMark,
  generateProxierRules,
  jumpRules,
  sortIptablesRules,
} from './index.ts';

describe('the reference setup (TestOverallIPTablesRules)', () => {
  const ours = generateProxierRules(
    setupToProxierInput(reference.setup as Setup, ['192.168.0.2'], 'IPv4'),
  );

  it('writes exactly kube-proxy restore input, line by line', () => {
    // Normalisation as in the Go test: its mark string is 0x4000, and it sorts with sortIPTablesRules.
    const got = sortIptablesRules(normaliseMark(ours.restoreInput)).split('\n');
    expect(got).toEqual(reference.dump.replace(/^\n/, '').split('\n'));
  });

  it('produces a self-contained dump the engine accepts without a diagnostic', () => {
    const parsed = parseRuleset(ours.dump);
    expect(parsed.diagnostics).toEqual([]);
    expect(
      ours.dump.startsWith('# kube-proxy iptables-mode rules (iptables) for node test-node'),
    ).toBe(true);
    expect(ours.dump).toContain(':INPUT ACCEPT [0:0]');
    expect(ours.dump).toContain(':POSTROUTING ACCEPT [0:0]');
  });

  it('maps each per-service chain to its service port', () => {
    const owners = chainOwners(ours);
    expect(owners.get('KUBE-FW-NUKIZ6OKUXPJNT4C')).toEqual({
      servicePort: 'ns5/svc5:p80',
      kind: 'firewall',
    });
    expect(owners.get('KUBE-SEP-C6EBXVWJJZMIWKLZ')).toEqual({
      servicePort: 'ns4/svc4:p80',
      kind: 'endpoint',
      endpoint: '10.180.0.5:80',
    });
    const svc6 = ours.servicePorts.find((s) => s.info.name === 'ns6/svc6:p80');
    expect(svc6?.hasEndpoints).toBe(false);
    expect(svc6?.clusterChain).toBeNull();
  });
});

describe('probabilities (fmt %0.10f of 1/n)', () => {
  it('formats 1/n with ten decimals', () => {
    expect(computeProbability(2)).toBe('0.5000000000');
    expect(computeProbability(3)).toBe('0.3333333333');
    expect(computeProbability(4)).toBe('0.2500000000');
    expect(computeProbability(6)).toBe('0.1666666667');
    expect(computeProbability(7)).toBe('0.1428571429');
    expect(computeProbability(1000)).toBe('0.0010000000');
  });

  it('rounds exact ties to even like Go, not up like toFixed', () => {
    // 1/2048 = 0.00048828125 exactly.
    expect(computeProbability(2048)).toBe('0.0004882812');
    expect(computeProbability(10240)).toBe('0.0000976562');
  });

  it('writes 1/(n-i) for endpoint i and no statistic match on the last one', () => {
    const svc = service({ name: 'web' });
    const eps = ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4'].map((ip) => endpoint(ip));
    const r = generateProxierRules(input([svc], [slice(svc, eps)]));
    const rules = chainRules(r.restoreInput, r.servicePorts[0]?.clusterChain ?? '');
    expect(rules[0]).toContain('-j KUBE-MARK-MASQ');
    expect(rules.slice(1).map((l) => /--probability (\S+)/.exec(l)?.[1] ?? null)).toEqual([
      '0.2500000000',
      '0.3333333333',
      '0.5000000000',
      null,
    ]);
  });
});

describe('proxier settings', () => {
  const svc = service({ name: 'web' });
  const one = [slice(svc, [endpoint('10.1.0.1')])];

  it('formats the masquerade mark with %#08x', () => {
    expect(formatMark(14)).toBe('0x00004000');
    expect(formatMark(0)).toBe('0x00000001');
    expect(formatMark(31)).toBe('0x80000000');
    const r = generateProxierRules(input([svc], one, { masqueradeBit: 5 }));
    expect(r.restoreInput).toContain('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00000020');
    expect(r.restoreInput).toContain('-m mark ! --mark 0x00000020/0x00000020 -j RETURN');
  });

  it('adds --random-fully and nfacct matches only when asked', () => {
    const plain = generateProxierRules(input([svc], one, { randomFully: false })).restoreInput;
    expect(plain).toContain('-j MASQUERADE\n');
    expect(plain).not.toContain('nfacct');
    const full = generateProxierRules(input([svc], one, { nfacct: true })).restoreInput;
    expect(full).toContain('-j MASQUERADE --random-fully\n');
    expect(full).toContain(
      '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP',
    );
  });

  it('omits the INVALID drop when nf_conntrack_tcp_be_liberal is set', () => {
    const r = generateProxierRules(input([svc], one, { conntrackTCPLiberal: true }));
    expect(chainRules(r.restoreInput, 'KUBE-FORWARD')).toHaveLength(2);
    expect(r.restoreInput).not.toContain('INVALID');
  });

  it('switches to large-cluster mode above 1000 endpoints: no endpoint comments', () => {
    const eps = Array.from({ length: 1001 }, (_, i) =>
      endpoint(`10.2.${Math.floor(i / 250)}.${(i % 250) + 1}`),
    );
    const r = generateProxierRules(input([svc], [slice(svc, eps)]));
    expect(r.largeClusterMode).toBe(true);
    const sep = r.servicePorts[0]?.endpoints[0]?.chain ?? '';
    // Go string order: 10.2.0.100:80 sorts before 10.2.0.1:80.
    expect(chainRules(r.restoreInput, sep)[0]).toBe(`-A ${sep} -s 10.2.0.100 -j KUBE-MARK-MASQ`);
    expect(chainRules(r.restoreInput, r.servicePorts[0]?.clusterChain ?? '')[1]).toMatch(
      /^-A KUBE-SVC-\S+ -m statistic/,
    );
  });
});

describe('jumps from the built-in chains (iptablesJumpChains)', () => {
  it('stand in reverse list order, as each was prepended on a fresh node', () => {
    const j = jumpRules();
    expect(j.filter.filter((l) => l.startsWith('-A INPUT'))).toEqual([
      '-A INPUT -j KUBE-FIREWALL',
      '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL',
      '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
      '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES',
    ]);
    expect(
      j.filter.filter((l) => l.startsWith('-A FORWARD')).map((l) => l.split(' -j ')[1]),
    ).toEqual(['KUBE-PROXY-FIREWALL', 'KUBE-FORWARD', 'KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES']);
    expect(j.nat).toEqual([
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    ]);
  });

  it('declare KUBE-FIREWALL even when kube-proxy leaves it empty (IPv6)', () => {
    const svc = service({ name: 'web', clusterIP: 'fd00:30::10' });
    const r = generateProxierRules(
      input([svc], [slice(svc, [endpoint('fd00:10::5')])], { ipFamily: 6 }),
    );
    expect(r.restoreInput).not.toContain('KUBE-FIREWALL');
    expect(r.dump).toContain(':KUBE-FIREWALL - [0:0]');
    expect(r.dump.split('\n')[0]).toContain('(ip6tables)');
    expect(parseRuleset(r.dump, { family: 6 }).diagnostics).toEqual([]);
  });
});

describe('topology hints', () => {
  it('balances over the endpoints hinted for the node zone only', () => {
    const svc = service({ name: 'web' });
    const hinted = (ip: string, zone: string) => endpoint(ip, { hints: { forZones: [zone] } });
    const eps = [hinted('10.1.0.1', 'z1'), hinted('10.1.0.2', 'z2'), hinted('10.1.0.3', 'z1')];
    const inZone = generateProxierRules(input([svc], [slice(svc, eps)], { zone: 'z1' }));
    const sp = inZone.servicePorts[0];
    expect(sp?.endpoints.map((e) => e.endpoint.text)).toEqual(['10.1.0.1:80', '10.1.0.3:80']);
    expect(chainRules(inZone.restoreInput, sp?.clusterChain ?? '')).toHaveLength(3);
    // A node without a zone label ignores the hints.
    const noZone = generateProxierRules(input([svc], [slice(svc, eps)]));
    expect(noZone.servicePorts[0]?.endpoints).toHaveLength(3);
  });
});
