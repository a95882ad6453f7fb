/** The importers on real outputs (fixtures/README.md says how they were captured). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectDump } from './detect.ts';
import { importAddr, importRoute } from './ip-json.ts';
import { importIpset } from './ipset-save.ts';
import { readNft, readXtables } from './rules-dump.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('detectDump on real outputs', () => {
  it.each([
    ['iptables-save.txt', 'iptables'],
    ['iptables-save-ipvs.txt', 'iptables'],
    ['ip6tables-save.txt', 'ip6tables'],
    ['nft-ruleset.txt', 'nft'],
    ['nft-of-iptables-nft.txt', 'nft'],
    ['ip-addr.json', 'ip-addr'],
    ['ip-6-addr.json', 'ip-addr'],
    ['ip-route.json', 'ip-route'],
    ['ip-6-route.json', 'ip-route'],
    ['ip-route-all.json', 'ip-route'],
    ['ipset-save.txt', 'ipset'],
    ['ipvsadm-Ln-ipvs.txt', 'ipvsadm'],
    ['ipvsadm-S-ipvs.txt', 'ipvsadm'],
    ['ipvsadm-Ln-kube-proxy-readme.txt', 'ipvsadm'],
    ['ip-addr-kube-ipvs0.json', 'ip-addr'],
    ['ip-route-kube-ipvs0.json', 'ip-route'],
  ])('%s is %s', (file, kind) => {
    expect(detectDump(fixture(file))).toBe(kind);
  });

  it('tells an ip6tables dump without its header by its addresses', () => {
    expect(
      detectDump('*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s fd00::/64 -j ACCEPT\nCOMMIT\n'),
    ).toBe('ip6tables');
    expect(
      detectDump('*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 10.0.0.0/8 -j ACCEPT\nCOMMIT\n'),
    ).toBe('iptables');
    expect(detectDump('hello')).toBeNull();
    // iptables-save's -A takes a chain; ipvsadm -S's a service option.
    expect(detectDump('-A INPUT -t 1 -j ACCEPT\n')).toBe('iptables');
    expect(detectDump('-A -t 10.96.0.1:443 -s rr\n')).toBe('ipvsadm');
  });
});

describe('ip -j addr', () => {
  it('reads every interface and address of ip -j addr', () => {
    const r = importAddr(fixture('ip-addr.json'));
    expect(r.diagnostics).toEqual([]);
    const eth0 = r.items.find((i) => i.name === 'eth0');
    expect(eth0?.addresses).toEqual(
      expect.arrayContaining(['192.168.50.38/24', '192.168.50.100/32', 'fd00::38/64']),
    );
    expect(eth0?.addresses.some((a) => a.startsWith('fe80::') && a.endsWith('scope link'))).toBe(
      true,
    );
    expect(r.items.map((i) => i.name)).toEqual(['lo', 'wire0', 'eth0']);
  });

  it('reads ip -j -6 addr (IPv6 only)', () => {
    const r = importAddr(fixture('ip-6-addr.json'));
    expect(r.diagnostics).toEqual([]);
    expect(r.items.find((i) => i.name === 'eth0')?.addresses).toContain('fd00::38/64');
  });

  it('says where a broken address is, by JSON path and line', () => {
    const r = importAddr(
      '[\n{"ifname":"eth0","addr_info":[{"local":"300.1.1.1","prefixlen":24}]}\n]',
    );
    expect(r.diagnostics[0]).toMatchObject({ line: 2, field: '[0].addr_info[0].local' });
  });

  it('gives each problem its key and parameters beside the English sentence', () => {
    const r = importAddr(
      '[{"addr_info":[]},\n {"ifname":"eth0","addr_info":[{"local":"10.0.0.1","prefixlen":40}]}]',
    );
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        line: 1,
        field: '[0].ifname',
        code: 'addr.ifname',
        params: {},
        message: 'an interface needs its name (ifname), e.g. "eth0"',
      }),
      expect.objectContaining({
        line: 2,
        field: '[1].addr_info[0].prefixlen',
        code: 'addr.prefixlen',
        params: { max: 32 },
        message: 'a prefix length is a whole number 0..32',
      }),
    ]);
    const routes = importRoute('[{"dst":"10.0.0.0/8","table":"100"}]');
    expect(routes.ignored[0]).toMatchObject({
      code: 'route.table',
      params: { table: '100' },
      why: 'table 100: policy routing (ip rule) is not modelled; the lab uses the main table',
    });
  });

  it('places a JSON syntax error at its line and column', () => {
    const r = importAddr('[\n  {"ifname": "eth0",,}\n]');
    expect(r.diagnostics[0]).toMatchObject({ severity: 'error', line: 2 });
    expect(r.diagnostics[0]?.column).toBeGreaterThan(1);
  });
});

describe('ip -j route', () => {
  it('keeps the main table routes and leaves out the connected ones', () => {
    const r = importRoute(fixture('ip-route.json'));
    expect(r.diagnostics).toEqual([]);
    expect(r.items).toEqual([
      { to: 'default', via: '192.168.50.1', dev: 'eth0' },
      { to: '10.244.1.0/24', via: '192.168.50.39', dev: 'eth0' },
    ]);
    expect(r.ignored.map((n) => n.text)).toEqual(['192.168.50.0/24 dev eth0 proto kernel']);
  });

  it('reads ip -j -6 route and ip -j route show table all', () => {
    expect(importRoute(fixture('ip-6-route.json')).items).toEqual([
      { to: 'default', via: 'fd00::1', dev: 'eth0', metric: 1024 },
    ]);
    const all = importRoute(fixture('ip-route-all.json'));
    expect(all.diagnostics).toEqual([]);
    expect(all.items.map((r) => `${r.to} via ${r.via ?? ''}`)).toEqual([
      'default via 192.168.50.1',
      '10.244.1.0/24 via 192.168.50.39',
      'default via fd00::1',
    ]);
    // The local table is the addresses' (the lab builds it), said line by line.
    expect(
      all.ignored.some((n) => /local table/.test(n.why) && n.text.includes('192.168.50.100')),
    ).toBe(true);
  });

  it('says which route has a bad destination', () => {
    const r = importRoute('[{"dst":"default"},\n {"dst":"10.0.0.0/99","dev":"eth0"}]');
    expect(r.diagnostics).toEqual([
      expect.objectContaining({ line: 2, column: 2, field: '[1].dst' }),
    ]);
  });
});

describe('ipset save', () => {
  it("reads kube-proxy's sets with their entries", () => {
    const r = importIpset(fixture('ipset-save.txt'));
    expect(r.diagnostics).toEqual([]);
    expect(r.counts.sets).toBe(
      fixture('ipset-save.txt')
        .split('\n')
        .filter((l) => l.startsWith('create ')).length,
    );
    expect(r.sets.find((s) => s.name === 'KUBE-CLUSTER-IP')).toEqual({
      name: 'KUBE-CLUSTER-IP',
      type: 'hash:ip,port',
      entries: ['10.96.0.80,tcp:80'],
    });
    expect(r.sets.find((s) => s.name === 'KUBE-NODE-PORT-TCP')?.entries).toEqual(['30080']);
  });

  it('says where an add comes before its create', () => {
    const r = importIpset('create A hash:ip\nadd B 10.0.0.1\n');
    expect(r.diagnostics).toEqual([expect.objectContaining({ line: 2, column: 5 })]);
  });

  it('lists a set type the lab does not match as unsupported', () => {
    const r = importIpset('create M hash:mac\nadd M 00:11:22:33:44:55\n');
    expect(r.unsupported).toEqual([expect.objectContaining({ line: 1 })]);
  });
});

describe('netfilter dumps', () => {
  it('counts the tables, chains and rules of iptables-save', () => {
    const r = readXtables(fixture('iptables-save.txt'), 4);
    expect(r.diagnostics).toEqual([]);
    expect(r.counts.tables).toBe(2);
    expect(r.counts.rules).toBe(
      fixture('iptables-save.txt')
        .split('\n')
        .filter((l) => l.startsWith('-A ')).length,
    );
  });

  it('lists the rules it does not evaluate with their line', () => {
    const text =
      '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp -m osf --genre Linux -j DROP\n-A INPUT -j ACCEPT\nCOMMIT\n';
    const r = readXtables(text, 4);
    expect(r.unsupported).toEqual([expect.objectContaining({ line: 3 })]);
  });

  it("reads kube-proxy's nft table and iptables-nft's tables as nft prints them", () => {
    const kp = readNft(fixture('nft-ruleset.txt'));
    expect(kp.diagnostics).toEqual([]);
    expect(kp.counts.tables).toBe(1);
    const xt = readNft(fixture('nft-of-iptables-nft.txt'));
    expect(xt.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(xt.counts.rules).toBeGreaterThan(10);
  });

  it('reads ip6tables-save', () => {
    const r = readXtables(fixture('ip6tables-save.txt'), 6);
    expect(r.diagnostics).toEqual([]);
    expect(r.counts.rules).toBe(4);
  });
});
