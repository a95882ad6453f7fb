import { describe, expect, it } from 'vitest';
import { hostFromArgs, parseListener, parseRoute, probeFromArgs } from './host-args.ts';
import { UsageError } from './input-error.ts';

describe('hookpath trace options', () => {
  it('reads a packet written like tcpdump prints it', () => {
    expect(
      probeFromArgs('h', { packet: 'tcp 192.168.50.10:40000 > 192.168.50.100:22' }),
    ).toMatchObject({
      kind: 'inject',
      iface: 'eth0',
      packet: {
        proto: 'tcp',
        src: '192.168.50.10',
        sport: 40000,
        dst: '192.168.50.100',
        dport: 22,
      },
    });
  });

  it('a locally generated packet needs no source', () => {
    expect(probeFromArgs('h', { packet: 'udp 10.96.0.10:53', localOut: true })).toMatchObject({
      kind: 'connect',
      from: 'h',
      dst: '10.96.0.10',
      dport: 53,
    });
  });

  it('explains what is missing', () => {
    expect(() => probeFromArgs('h', { dst: '10.0.0.1', dport: '80' })).toThrow(/needs a source/);
    expect(() => probeFromArgs('h', { packet: 'tcp nonsense' })).toThrow(UsageError);
    expect(() => parseRoute('default via')).toThrow(/'via' needs a value/);
    expect(() => parseListener('sshd 22')).toThrow(/PROCESS PROTO ADDRESS:PORT/);
    expect(() => hostFromArgs('h', '', {})).toThrow(/--local/);
  });

  it('builds the host: addresses on eth0, routes, listeners, sysctls', () => {
    const h = hostFromArgs('h', '', {
      local: '192.168.50.38,192.168.50.100/32',
      route: ['default via 192.168.50.1'],
      listen: ['sshd tcp 0.0.0.0:22 SSH-2.0'],
      forward: true,
    });
    expect(h.interfaces[0]?.addresses).toEqual(['192.168.50.38/24', '192.168.50.100/32']);
    expect(h.routes).toEqual([{ to: 'default', via: '192.168.50.1' }]);
    expect(h.listeners).toEqual([
      { process: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22, reply: 'SSH-2.0' },
    ]);
    expect(h.sysctls).toEqual({ ipForward: true, routeLocalnet: false });
  });
});
