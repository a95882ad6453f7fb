/** A host built from real dumps traces like the scenario node they were captured from. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runOwnHost } from './run.ts';
import type { OwnDump, OwnExtras, OwnPacket } from './types.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const dump = (name: string): OwnDump => ({ id: name, name, text: fixture(name), kind: 'auto' });

const EXTRAS: OwnExtras = {
  addresses: '',
  gateway: '',
  listeners: 'sshd tcp 0.0.0.0:22 SSH-2.0-OpenSSH_10.3',
  ipForward: true,
  routeLocalnet: false,
};
const SSH = (dst: string): OwnPacket => ({
  from: 'wire',
  iface: 'eth0',
  proto: 'tcp',
  src: '192.168.50.10',
  sport: '40000',
  dst,
  dport: '22',
});

describe('runOwnHost', () => {
  const cp1 = [dump('iptables-save.txt'), dump('ip-addr.json'), dump('ip-route.json')];

  it('sends VIP:22 to the Service pod and the node IP:22 to sshd, as on cp-1 (vip22 lb-service)', () => {
    const vip = runOwnHost({ dumps: cp1, extras: EXTRAS, packet: SSH('192.168.50.100') });
    expect(vip.problems).toEqual([]);
    const out = vip.lab?.runs[0]?.outcome;
    expect(out?.kind).toBe('forwarded');
    const node = runOwnHost({ dumps: cp1, extras: EXTRAS, packet: SSH('192.168.50.38') });
    expect(node.lab?.runs[0]?.outcome).toMatchObject({ kind: 'delivered', process: 'sshd' });
    // The rule events point into the pasted iptables-save.
    const dnat = vip.lab?.runs[0]?.events.find((e) => e.type === 'rule' && e.target === 'DNAT');
    expect(
      dnat && 'line' in dnat ? fixture('iptables-save.txt').split('\n')[(dnat.line ?? 0) - 1] : '',
    ).toContain('DNAT');
  });

  it('does the same with the nftables-mode ruleset', () => {
    const r = runOwnHost({
      dumps: [dump('nft-ruleset.txt'), dump('ip-addr.json'), dump('ip-route.json')],
      extras: EXTRAS,
      packet: SSH('192.168.50.100'),
    });
    expect(r.problems).toEqual([]);
    expect(r.lab?.runs[0]?.outcome.kind).toBe('forwarded');
    expect(Object.keys(r.lab?.nftables ?? {})).toEqual(['your-host']);
  });

  it('reports what each dump holds', () => {
    const r = runOwnHost({ dumps: cp1, extras: EXTRAS, packet: null });
    expect(r.dumps.map((d) => d.kind)).toEqual(['iptables', 'ip-addr', 'ip-route']);
    expect(r.dumps[1]?.counts).toMatchObject({ interfaces: 3 });
    expect(r.dumps[2]?.counts).toEqual({ routes: 2 });
    expect(r.missing).toEqual({ addresses: false, routes: false });
    expect(r.interfaces).toEqual(['lo', 'wire0', 'eth0']);
  });

  it('asks for the addresses and the gateway when no dump gives them', () => {
    const none = runOwnHost({
      dumps: [dump('iptables-save.txt')],
      extras: EXTRAS,
      packet: SSH('192.168.50.38'),
    });
    expect(none.missing).toEqual({ addresses: true, routes: true });
    expect(none.problems).toEqual([expect.objectContaining({ field: 'addresses' })]);
    expect(none.lab).toBeNull();
    const given = runOwnHost({
      dumps: [dump('iptables-save.txt')],
      extras: {
        ...EXTRAS,
        addresses: '192.168.50.38/24, 192.168.50.100/32',
        gateway: '192.168.50.1',
      },
      packet: SSH('192.168.50.38'),
    });
    expect(given.problems).toEqual([]);
    expect(given.lab?.runs[0]?.outcome).toMatchObject({ kind: 'delivered', process: 'sshd' });
  });

  it('loads the IPVS node: its iptables rules match the pasted ipsets', () => {
    const r = runOwnHost({
      dumps: [
        dump('iptables-save-ipvs.txt'),
        dump('ipset-save.txt'),
        dump('ip-addr-ipvs.json'),
        dump('ip-route-ipvs.json'),
      ],
      extras: EXTRAS,
      packet: { ...SSH('10.34.251.73'), src: '10.34.251.50' },
    });
    expect(r.problems).toEqual([]);
    expect(r.dumps.flatMap((d) => d.diagnostics)).toEqual([]);
    expect(r.lab?.runs[0]?.outcome).toMatchObject({ kind: 'delivered', process: 'sshd' });
  });

  it('traces a packet sent by a local process', () => {
    const r = runOwnHost({
      dumps: cp1,
      extras: EXTRAS,
      packet: {
        from: 'local',
        iface: '',
        proto: 'tcp',
        src: '',
        sport: '',
        dst: '10.244.1.10',
        dport: '80',
      },
    });
    expect(r.problems).toEqual([]);
    expect(r.lab?.runs.length).toBeGreaterThan(0);
  });

  it('places a bad rule of the dump at its line, and names a bad packet field', () => {
    const r = runOwnHost({
      dumps: [
        {
          id: 'x',
          name: 'x',
          kind: 'iptables',
          text: '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 99999 -j ACCEPT\nCOMMIT\n',
        },
        dump('ip-addr.json'),
      ],
      extras: EXTRAS,
      packet: SSH('192.168.50.38'),
    });
    expect(r.dumps[0]?.diagnostics[0]).toMatchObject({ severity: 'error', line: 3 });
    expect(r.lab).toBeNull();
    const bad = runOwnHost({
      dumps: cp1,
      extras: EXTRAS,
      packet: { ...SSH('192.168.50.38'), dport: 'x' },
    });
    expect(bad.problems).toEqual([expect.objectContaining({ field: 'packet.dport' })]);
  });
});

describe('iptables-nft twice', () => {
  it('warns when nft list ruleset repeats the tables of the iptables-save dump', () => {
    const r = runOwnHost({
      dumps: [dump('iptables-save.txt'), dump('nft-of-iptables-nft.txt'), dump('ip-addr.json')],
      extras: EXTRAS,
      packet: null,
    });
    const warnings = r.dumps[1]?.diagnostics.filter((d) => d.severity === 'warning') ?? [];
    expect(warnings.map((w) => w.line)).toEqual([1, expect.any(Number)]);
    expect(warnings[0]?.message).toContain('table ip filter');
    expect(fixture('nft-of-iptables-nft.txt').split('\n')[(warnings[1]?.line ?? 0) - 1]).toBe(
      'table ip nat {',
    );
  });
});

describe('a pasted kube-proxy IPVS node', () => {
  const node = (ipvsadm: OwnDump) => [
    dump('iptables-save-ipvs.txt'),
    dump('ipset-save.txt'),
    dump('ip-addr-kube-ipvs0.json'),
    dump('ip-route-kube-ipvs0.json'),
    ipvsadm,
  ];
  const toClusterIp: OwnPacket = {
    ...SSH('10.96.0.80'),
    src: '10.34.251.50',
    dport: '80',
  };
  const ipvsStep = (r: ReturnType<typeof runOwnHost>) =>
    r.lab?.runs[0]?.events.find((e) => e.type === 'ipvs');

  it.each(['ipvsadm-Ln-ipvs.txt', 'ipvsadm-S-ipvs.txt'])(
    'with %s, sends ClusterIP:80 through IPVS to the real server on cni0',
    (file) => {
      const r = runOwnHost({ dumps: node(dump(file)), extras: EXTRAS, packet: toClusterIp });
      expect(r.problems).toEqual([]);
      expect(r.dumps.flatMap((d) => d.diagnostics)).toEqual([]);
      expect(r.dumps.map((d) => d.kind)).toEqual([
        'iptables',
        'ipset',
        'ip-addr',
        'ip-route',
        'ipvsadm',
      ]);
      expect(r.lab?.runs).toHaveLength(1);
      expect(r.lab?.runs[0]?.outcome).toMatchObject({
        kind: 'forwarded',
        iface: 'cni0',
        nextHop: '10.244.1.10',
        packet: { dst: '10.244.1.10', dport: 80 },
      });
      expect(ipvsStep(r)).toMatchObject({
        hook: 'INPUT',
        action: 'schedule',
        service: 'TCP 10.96.0.80:80 rr',
        realServer: '10.244.1.10:80',
      });
      const view = r.lab?.ipvs?.['your-host'];
      expect(view?.modelled).toBe(
        'modelled from kernel and kube-proxy sources, not checked on a kernel',
      );
      expect(view?.dummyAddresses).toEqual(['10.34.251.210', '10.96.0.80']);
      expect(view?.ipvsadm).toBe(fixture('ipvsadm-Ln-ipvs.txt'));
    },
  );

  it('without the ipvsadm dump, the ClusterIP is only a local address: no IPVS step', () => {
    const r = runOwnHost({
      dumps: node(dump('ip-route-ipvs.json')).slice(0, 4),
      extras: EXTRAS,
      packet: toClusterIp,
    });
    expect(ipvsStep(r)).toBeUndefined();
    expect(r.lab?.ipvs).toBeUndefined();
    expect(r.lab?.runs[0]?.outcome.kind).not.toBe('forwarded');
  });

  const edited = (from: string, to: string): OwnDump => ({
    ...dump('ipvsadm-Ln-ipvs.txt'),
    text: fixture('ipvsadm-Ln-ipvs.txt').replace(from, to),
  });

  it('refuses the connection when the only real server is quiesced (weight 0)', () => {
    const text = fixture('ipvsadm-Ln-ipvs.txt').split('\n');
    text[8] = (text[8] as string).replace('Masq    1 ', 'Masq    0 ');
    const r = runOwnHost({
      dumps: node({ ...dump('ipvsadm-Ln-ipvs.txt'), text: text.join('\n') }),
      extras: EXTRAS,
      packet: toClusterIp,
    });
    expect(r.lab?.runs[0]?.outcome).toMatchObject({ kind: 'refused' });
    expect(ipvsStep(r)).toMatchObject({ action: 'no-dest' });
  });

  it('stops at a Route server, said in the dump and in the trace', () => {
    const text = fixture('ipvsadm-Ln-ipvs.txt').split('\n');
    text[8] = (text[8] as string).replace('Masq ', 'Route');
    const r = runOwnHost({
      dumps: node({ ...dump('ipvsadm-Ln-ipvs.txt'), text: text.join('\n') }),
      extras: EXTRAS,
      packet: toClusterIp,
    });
    expect(r.dumps[4]?.unsupported).toEqual([expect.objectContaining({ line: 9 })]);
    expect(r.lab?.runs[0]?.outcome).toMatchObject({ kind: 'unsupported' });
  });

  it('places a scheduler the lab does not model at its line and column, and traces nothing', () => {
    const r = runOwnHost({
      dumps: node(edited('10.96.0.80:80 rr', '10.96.0.80:80 lc')),
      extras: EXTRAS,
      packet: toClusterIp,
    });
    expect(r.dumps[4]?.diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', line: 8, column: 20 }),
    ]);
    expect(r.lab).toBeNull();
  });
});
