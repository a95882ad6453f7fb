/** The "Your host" worker: only the newest waiting request is computed; an exception is an answer. */
import { describe, expect, it } from 'vitest';
import { createOwnHostHandler } from './own-host-handler.ts';
import type { OwnHostInput, OwnHostView, OwnResponse } from './own-host-protocol.ts';
import { runOwnHostView } from './own-host-run.ts';

const input = (dst: string): OwnHostInput => ({
  dumps: [],
  extras: {
    addresses: '10.0.0.1/24',
    gateway: '',
    listeners: 'sshd tcp 0.0.0.0:22',
    ipForward: false,
    routeLocalnet: false,
  },
  packet: {
    from: 'wire',
    iface: 'eth0',
    proto: 'tcp',
    src: '10.0.0.2',
    sport: '',
    dst,
    dport: '22',
  },
});

describe('own-host handler', () => {
  it('computes the newest of the waiting requests only', () => {
    const posted: OwnResponse[] = [];
    const seen: string[] = [];
    const later: (() => void)[] = [];
    const h = createOwnHostHandler(
      (i) => {
        seen.push(i.packet?.dst ?? '');
        return runOwnHostView(i);
      },
      (r) => posted.push(r),
      (fn) => later.push(fn),
    );
    h.receive({ type: 'own', id: 1, input: input('10.0.0.1') });
    h.receive({ type: 'own', id: 2, input: input('10.0.0.9') });
    for (const fn of later) fn();
    expect(seen).toEqual(['10.0.0.9']);
    expect(posted.map((p) => p.id)).toEqual([2]);
    const r = posted[0] as Extract<OwnResponse, { type: 'own' }>;
    // The trace comes digested for the rules panel, as the lab's worker sends it.
    expect(r.result.lab?.runs.length).toBeGreaterThan(0);
  });

  it('answers an exception with an error', () => {
    const posted: OwnResponse[] = [];
    const h = createOwnHostHandler(
      (): OwnHostView => {
        throw new Error('boom');
      },
      (r) => posted.push(r),
      (fn) => fn(),
    );
    h.receive({ type: 'own', id: 7, input: input('10.0.0.1') });
    expect(posted).toEqual([{ type: 'error', id: 7, message: 'boom' }]);
  });
});
