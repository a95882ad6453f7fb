/** The scenario suite's helpers that need no kernel. */
import { describe, expect, it } from 'vitest';
import { flowProbe } from '../conformance/flows.ts';
import { nftConformanceHost } from '../conformance/nft-flows.ts';
import { setupToProxierInput, type Setup } from '../conformance/setup.ts';
import { buildNetwork, enumerateOutcomes, type Choice, type NetworkSpec } from '../engine/index.ts';
import reference from '../kube/nftables/fixtures/reference-dump.json' with { type: 'json' };
import { generateNftProxierRules } from '../kube/nftables/index.ts';
import {
  answeringListener,
  ecmpKey,
  nftRandomisedSourcePort,
  randomisedSourcePort,
} from './scenario-lab.ts';

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

describe('nftRandomisedSourcePort', () => {
  // kube-proxy's nftables table on a node; an outside client to a NodePort is masqueraded.
  const nft = generateNftProxierRules(
    setupToProxierInput(reference.setup as unknown as Setup, ['192.168.0.2'], 'IPv4', 'nftables'),
  ).transaction;
  const flow = {
    name: 'external to NodePort',
    sourceIP: '203.0.113.2',
    destIP: '192.168.0.2',
    destPort: 3003,
    output: '',
    masq: true,
  };
  const runOf = (ruleset: string) => {
    const host = nftConformanceHost(ruleset, ['192.168.0.2'], 4);
    const { network } = buildNetwork({ hosts: [host] });
    if (!network) throw new Error('no network');
    const run = enumerateOutcomes(network, flowProbe(flow, ['192.168.0.2'])).runs[0];
    if (!run) throw new Error('no run');
    return { spec: { hosts: [host] }, events: run.events };
  };

  it('sees kube-proxy’s masquerade fully-random on the path', () => {
    const r = runOf(nft);
    expect(r.events.some((e) => e.type === 'rule' && e.target === 'MASQUERADE')).toBe(true);
    expect(nftRandomisedSourcePort(r.spec, r.events)).toBe(true);
  });

  it('not for a masquerade that keeps ports, nor on a host the spec does not hold', () => {
    const plain = runOf(nft.replace('masquerade fully-random', 'masquerade'));
    expect(plain.events.some((e) => e.type === 'rule' && e.target === 'MASQUERADE')).toBe(true);
    expect(nftRandomisedSourcePort(plain.spec, plain.events)).toBe(false);
    expect(nftRandomisedSourcePort(SPEC, runOf(nft).events)).toBe(false);
  });
});
