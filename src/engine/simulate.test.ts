import { describe, expect, it } from 'vitest';
import {
  buildNetwork,
  enumerateOutcomes,
  newNetworkState,
  simulate,
  type HostSpec,
  type NetworkSpec,
} from './index.ts';
import { CLIENT, NODE, outcomes, table } from './testing/single-host.ts';

/** A node DNATing :80 to three pods (as kube-proxy's statistic chain does) and the pods on a LAN. */
function threeEndpoints(svcRules: string[], extraChains: string[] = []): NetworkSpec {
  const pods: HostSpec[] = [1, 2, 3].map((i) => ({
    name: `pod-${i}`,
    interfaces: [{ name: 'eth0', addresses: [`192.168.1.${100 + i}/24`], segment: 'lan' }],
    listeners: [
      { process: 'web', proto: 'tcp', address: '0.0.0.0', port: 8080, reply: `pod-${i}` },
    ],
  }));
  const rules = table(
    'nat',
    [
      'PREROUTING ACCEPT [0:0]',
      'POSTROUTING ACCEPT [0:0]',
      'SVC',
      'SEP1',
      'SEP2',
      'SEP3',
      ...extraChains,
    ],
    [
      '-A PREROUTING -p tcp --dport 80 -j SVC',
      '-A POSTROUTING -j MASQUERADE',
      ...svcRules,
      '-A SEP1 -p tcp -j DNAT --to-destination 192.168.1.101:8080',
      '-A SEP2 -p tcp -j DNAT --to-destination 192.168.1.102:8080',
      '-A SEP3 -p tcp -j DNAT --to-destination 192.168.1.103:8080',
    ],
  );
  return {
    hosts: [
      {
        name: 'client',
        interfaces: [{ name: 'eth0', addresses: [`${CLIENT}/24`], segment: 'lan' }],
      },
      {
        name: 'node',
        interfaces: [{ name: 'eth0', addresses: [`${NODE}/24`], segment: 'lan' }],
        sysctls: { ipForward: true },
        rules,
      },
      ...pods,
    ],
  };
}

const KUBE_PROXY_STYLE = [
  '-A SVC -m statistic --mode random --probability 0.3333333333 -j SEP1',
  '-A SVC -m statistic --mode random --probability 0.5000000000 -j SEP2',
  '-A SVC -j SEP3',
];

function net(spec: NetworkSpec) {
  const { network, problems } = buildNetwork(spec);
  if (!network) throw new Error(JSON.stringify(problems));
  return network;
}

describe('statistic branches', () => {
  it('enumerates every endpoint with its probability (1/3 each), summing to 1', () => {
    const m = outcomes(net(threeEndpoints(KUBE_PROXY_STYLE)), NODE, 80);
    expect([...m.keys()].sort()).toEqual(['pod-1:pod-1', 'pod-2:pod-2', 'pod-3:pod-3']);
    for (const p of m.values()) expect(p).toBeCloseTo(1 / 3, 6);
  });

  it('records which rule took each branch', () => {
    const en = enumerateOutcomes(net(threeEndpoints(KUBE_PROXY_STYLE)), {
      kind: 'connect',
      from: 'client',
      proto: 'tcp',
      dst: NODE,
      dport: 80,
    });
    expect(en.truncated).toBe(false);
    const last = en.runs.find((r) => r.outcome.kind === 'answered' && r.outcome.reply === 'pod-3');
    expect(last?.choices.map((c) => [c.rule?.chain, c.rule?.index, c.index])).toEqual([
      ['SVC', 1, 1],
      ['SVC', 2, 1],
    ]);
  });

  it('names the rule of each branch when rules in several chains share one chance', () => {
    const en = enumerateOutcomes(
      net(
        threeEndpoints(
          [
            '-A SVC -m statistic --mode random --probability 0.5 -j HALF',
            '-A SVC -j SEP3',
            '-A HALF -m statistic --mode random --probability 0.5 -j SEP1',
            '-A HALF -m statistic --mode random ! --probability 0.5 -j SEP2',
          ],
          ['HALF'],
        ),
      ),
      { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 80 },
    );
    const runs = en.runs.map((r) => [
      r.outcome.kind === 'answered' ? r.outcome.reply : r.outcome.kind,
      r.probability,
      r.choices.map((c) => `${c.rule?.chain}#${c.rule?.index}:${c.index}`).join(' '),
    ]);
    // Each rule draws on its own (xt_statistic); a negated chance matches on the draw's other side.
    expect(runs).toEqual([
      ['pod-1', 0.25, 'SVC#1:0 HALF#1:0'],
      ['pod-3', 0.5, 'SVC#1:1'],
      ['pod-3', 0.125, 'SVC#1:0 HALF#1:1 HALF#2:0'],
      ['pod-2', 0.125, 'SVC#1:0 HALF#1:1 HALF#2:1'],
    ]);
  });

  it('a seed gives a reproducible choice, and seeds cover all endpoints', () => {
    const n = net(threeEndpoints(KUBE_PROXY_STYLE));
    const probe = { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 80 } as const;
    const reply = (seed: number) => {
      const o = simulate(n, probe, { seed }).outcome;
      return o.kind === 'answered' ? o.reply : o.kind;
    };
    expect(reply(7)).toBe(reply(7));
    const seen = new Set(Array.from({ length: 40 }, (_, i) => reply(i + 1)));
    expect([...seen].sort()).toEqual(['pod-1', 'pod-2', 'pod-3']);
  });

  it('nth mode round-robins deterministically across probes', () => {
    const n = net(
      threeEndpoints([
        '-A SVC -m statistic --mode nth --every 3 --packet 0 -j SEP1',
        '-A SVC -m statistic --mode nth --every 2 --packet 0 -j SEP2',
        '-A SVC -j SEP3',
      ]),
    );
    const state = newNetworkState();
    const seq = Array.from({ length: 4 }, () => {
      const o = simulate(
        n,
        { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 80 },
        { state },
      ).outcome;
      return o.kind === 'answered' ? o.reply : o.kind;
    });
    expect(seq).toEqual(['pod-1', 'pod-2', 'pod-3', 'pod-1']);
  });
});

describe('session affinity (recent), as kube-proxy uses it', () => {
  it('after the first choice, the same client keeps its endpoint', () => {
    const spec = threeEndpoints([
      '-A SVC -m recent --name SEP1 --rcheck --seconds 10800 --reap -j SEP1',
      '-A SVC -m recent --name SEP2 --rcheck --seconds 10800 --reap -j SEP2',
      '-A SVC -m recent --name SEP3 --rcheck --seconds 10800 --reap -j SEP3',
      ...KUBE_PROXY_STYLE,
    ]);
    const n = net({
      hosts: spec.hosts.map((h) =>
        h.name === 'node' && h.rules
          ? {
              ...h,
              rules: h.rules.replace(/(-A SEP(\d) -p tcp)/g, '$1 -m recent --name SEP$2 --set'),
            }
          : h,
      ),
    });
    const state = newNetworkState();
    const probe = { kind: 'connect', from: 'client', proto: 'tcp', dst: NODE, dport: 80 } as const;
    const first = simulate(n, probe, { state, seed: 5 }).outcome;
    const replies = new Set(
      [1, 2, 3, 4, 5].map((seed) => {
        const o = simulate(n, probe, { state, seed }).outcome;
        return o.kind === 'answered' ? o.reply : o.kind;
      }),
    );
    expect(first.kind).toBe('answered');
    expect([...replies]).toEqual([first.kind === 'answered' ? first.reply : '']);
  });
});

// Kept in its own describe so the helper above stays readable.
describe('spec shape helper', () => {
  it('threeEndpoints builds a valid network', () => {
    expect(buildNetwork(threeEndpoints(KUBE_PROXY_STYLE)).problems).toEqual([]);
  });
});
