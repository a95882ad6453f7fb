/**
 * inet_select_addr as the engine models it (net/ipv4/devinet.c): secondaries and narrow scopes are
 * never picked, an address-less device borrows the host's first global address (lo first), and
 * MASQUERADE out lo is never 127.0.0.1. src/kernel/source-address.kernel.test.ts checks the same
 * on a kernel.
 */
import { describe, expect, it } from 'vitest';
import { buildHostConfig, selectSourceAddr, sourceAddressFor, type HostSpec } from './host.ts';

const node = (extra: Partial<HostSpec> = {}): HostSpec => ({
  name: 'node',
  interfaces: [
    { name: 'eth0', addresses: ['10.0.0.5/24 scope link', '192.168.10.11/24', '192.168.10.99/24'] },
    { name: 'cali1', addresses: [], kind: 'veth' },
  ],
  routes: [
    { to: '10.244.0.5/32', dev: 'cali1' },
    { to: '10.30.0.0/16', via: '10.0.0.1' },
    { to: '10.40.0.0/16', via: '192.168.10.1', src: '192.168.10.99' },
    { to: 'default', via: '192.168.10.1' },
  ],
  ...extra,
});

describe('source address selection', () => {
  const { config: h, problems } = buildHostConfig(node());

  it('reads scopes and marks a later address of the same subnet secondary', () => {
    expect(problems).toEqual([]);
    const eth0 = h.ifaces
      .get('eth0')
      ?.addrs.map((a) => `${a.ip} ${a.scope}${a.secondary ? ' secondary' : ''}`);
    expect(eth0).toEqual([
      '10.0.0.5 link',
      '192.168.10.11 global',
      '192.168.10.99 global secondary',
    ]);
    expect(h.ifaces.get('lo')?.addrs[0]).toMatchObject({ ip: '127.0.0.1', scope: 'host' });
  });

  it('MASQUERADE out lo takes eth0’s primary, not 127.0.0.1, with or without route_localnet', () => {
    expect(selectSourceAddr(h, 'lo', '192.168.10.11', 'global')).toBe('192.168.10.11');
    const rl = buildHostConfig(node({ sysctls: { routeLocalnet: true } })).config;
    expect(selectSourceAddr(rl, 'lo', '192.168.10.11', 'global')).toBe('192.168.10.11');
  });

  it('the secondary in the gateway’s subnet is never chosen; a link-scope address only in link scope', () => {
    expect(selectSourceAddr(h, 'eth0', '192.168.10.1', 'global')).toBe('192.168.10.11');
    expect(selectSourceAddr(h, 'eth0', '10.0.0.1', 'global')).toBe('192.168.10.11');
    expect(selectSourceAddr(h, 'eth0', '10.0.0.1', 'link')).toBe('10.0.0.5');
  });

  it('a new connection: the route’s src, else the gateway’s side in the route’s scope', () => {
    expect(sourceAddressFor(h, '10.30.0.7')).toBe('192.168.10.11');
    expect(sourceAddressFor(h, '10.40.0.7')).toBe('192.168.10.99');
    expect(sourceAddressFor(h, '127.0.0.9')).toBe('127.0.0.1');
    expect(sourceAddressFor(h, '192.168.10.99')).toBe('192.168.10.99');
  });

  it('an address-less veth borrows the first global address of the host, lo’s first', () => {
    expect(sourceAddressFor(h, '10.244.0.5')).toBe('192.168.10.11');
    const withLo = buildHostConfig(
      node({ interfaces: [...node().interfaces, { name: 'lo', addresses: ['10.10.10.10/32'] }] }),
    ).config;
    expect(sourceAddressFor(withLo, '10.244.0.5')).toBe('10.10.10.10');
  });

  it('refuses a scope it does not know, at its place', () => {
    const bad = buildHostConfig(
      node({ interfaces: [{ name: 'eth0', addresses: ['10.0.0.5/24 scope site'] }], routes: [] }),
    );
    expect(bad.problems.map((p) => p.field)).toEqual(['interfaces[0].addresses[0]']);
  });
});
