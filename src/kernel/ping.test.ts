/** ping's output (iputils-ping 20221126, Debian 12) read as a probe result: captured verbatim. */
import { describe, expect, it } from 'vitest';
import { parsePing } from './ping.ts';

const req = { dst: '127.0.0.2', id: 41000, timeoutMs: 1500 };
const stats = (s: string) => `\n--- ${req.dst} ping statistics ---\n1 packets transmitted, ${s}\n`;

describe('parsePing', () => {
  it('an echo reply: answered, from the address that sent it, same identifier', () => {
    const out = `PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.\n64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.135 ms\n${stats('1 received, 0% packet loss, time 0ms')}`;
    expect(parsePing(out, req, 3)).toMatchObject({
      kind: 'answered',
      dstSeen: '127.0.0.1',
      srcPortSeen: 41000,
    });
  });

  it('port unreachable (a REJECT): refused, ECONNREFUSED, from whom', () => {
    const out = `PING 127.0.0.2 (127.0.0.2) 56(84) bytes of data.\nFrom 127.0.0.2 icmp_seq=1 Destination Port Unreachable\n${stats('0 received, +1 errors, 100% packet loss, time 0ms')}`;
    expect(parsePing(out, req, 3)).toMatchObject({
      kind: 'error',
      code: 'ECONNREFUSED',
      from: '127.0.0.2',
    });
  });

  it('admin prohibited ("Packet filtered") and host unreachable: EHOSTUNREACH', () => {
    for (const what of ['Packet filtered', 'Destination Host Unreachable'])
      expect(parsePing(`From 10.0.0.1 icmp_seq=1 ${what}\n`, req, 3)).toMatchObject({
        kind: 'error',
        code: 'EHOSTUNREACH',
      });
  });

  it('no route on the sender: the local error', () => {
    expect(parsePing('ping: connect: Network is unreachable\n', req, 0)).toMatchObject({
      kind: 'error',
      code: 'ENETUNREACH',
    });
  });

  it('nothing back: timeout; anything unreadable: garbled, never a pass', () => {
    const silent = `PING 10.96.0.80 (10.96.0.80) 56(84) bytes of data.\n${stats('0 received, 100% packet loss, time 0ms')}`;
    expect(parsePing(silent, req, 2000)).toMatchObject({ kind: 'timeout', connected: false });
    expect(parsePing('ping: unknown option -- e\n', req, 0).kind).toBe('garbled');
  });
});
