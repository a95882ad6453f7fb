/** The scenario suite's helpers that need no kernel. */
import { describe, expect, it } from 'vitest';
import type { Choice, NetworkSpec } from '../engine/index.ts';
import { answeringListener, ecmpKey, randomisedSourcePort } from './scenario-lab.ts';

const RULES = `*filter
:KUBE-POSTROUTING - [0:0]
-A KUBE-POSTROUTING -j ACCEPT
COMMIT
*nat
:KUBE-POSTROUTING - [0:0]
-A KUBE-POSTROUTING -j RETURN
-A KUBE-POSTROUTING -j MASQUERADE --random-fully
COMMIT
`;

const SPEC: NetworkSpec = {
  hosts: [
    {
      name: 'n',
      interfaces: [{ name: 'eth0', addresses: ['10.0.0.1/24'] }],
      rules: RULES,
      listeners: [{ process: 'sshd', proto: 'tcp', address: '0.0.0.0', port: 22 }],
    },
    {
      name: 'p',
      interfaces: [{ name: 'eth0', addresses: ['10.0.0.2/32'] }],
      listeners: [{ process: 'web', proto: 'tcp', address: '0.0.0.0', port: 22, reply: 'hi' }],
    },
  ],
};

describe('randomisedSourcePort', () => {
  const first = (kernel: string[]) => [{ host: 'n', packet: 'first', kernel }];

  it('is the nat table rule the event names, with --random-fully', () => {
    expect(randomisedSourcePort(SPEC, first(['nat:KUBE-POSTROUTING:rule:2:ACCEPT']))).toBe(true);
    expect(randomisedSourcePort(SPEC, first(['nat:KUBE-POSTROUTING:rule:1:ACCEPT']))).toBe(false);
  });

  it('never the filter chain of the same name, never the reply', () => {
    expect(randomisedSourcePort(SPEC, first(['filter:KUBE-POSTROUTING:rule:1:ACCEPT']))).toBe(
      false,
    );
    const reply = [{ host: 'n', packet: 'reply', kernel: ['nat:KUBE-POSTROUTING:rule:2:ACCEPT'] }];
    expect(randomisedSourcePort(SPEC, reply)).toBe(false);
  });
});

describe('ecmpKey', () => {
  const choice = (label: string, index: number): Choice => ({
    label,
    index,
    probability: 0.5,
    options: 2,
    rule: null,
  });

  it('keeps next-hop decisions and ignores statistic ones', () => {
    const a = [choice('ecmp 10.9.0.0/24', 1), choice('statistic KUBE-SVC-X#1', 0)];
    const b = [choice('ecmp 10.9.0.0/24', 1), choice('statistic KUBE-SVC-X#1', 1)];
    expect(ecmpKey(a)).toBe(ecmpKey(b));
    expect(ecmpKey([choice('ecmp 10.9.0.0/24', 0)])).not.toBe(ecmpKey(a));
  });
});

describe('answeringListener', () => {
  const probe = { kind: 'connect', from: 'n', proto: 'tcp', dst: '10.0.0.2', dport: 22 } as const;
  const answer = (reply: string, dst: string) =>
    ({
      kind: 'answered',
      reply,
      srcSeen: '10.0.0.1',
      srcPortSeen: 40100,
      dstSeen: dst,
      dstPortSeen: 22,
      local: '10.0.0.1:40100',
      ms: 1,
    }) as const;

  it('is the host owning the address the socket saw, with that reply', () => {
    expect(answeringListener(SPEC, probe, answer('hi', '10.0.0.2'))).toEqual({
      host: 'p',
      process: 'web',
    });
    expect(answeringListener(SPEC, probe, answer('sshd@n', '127.0.0.1'))).toEqual({
      host: 'n',
      process: 'sshd',
    });
  });

  it('refuses to guess', () => {
    expect(() => answeringListener(SPEC, probe, answer('sshd@n', '10.0.0.2'))).toThrow(
      /cannot tell/,
    );
  });
});
