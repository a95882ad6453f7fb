/**
 * The probe matrix against the seeds' verification matrix (DOMAIN.md §4, seeds/003 §3.5) and the
 * VIP:22 question (§1): each cell as the engine computes it, the scenario's expectation beside it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINI_SCENARIO, miniWith } from './testing/mini-scenario.ts';
import { computeMatrix, openMatrix, type MatrixCell, type MatrixResult } from './matrix.ts';

const scenario = (id: string) =>
  readFileSync(join(import.meta.dirname, '../../scenarios', `${id}.yaml`), 'utf8');
const NODEPORT = scenario('nodeport-close-on-core-nodes');
const VIP22 = scenario('vip22-sshd-or-service');

function cellOf(m: MatrixResult, from: string, to: string): MatrixCell {
  const c = m.cells.find((x) => x.from === from && x.to === to);
  if (!c)
    throw new Error(
      `no cell ${from} -> ${to} in ${m.cells.map((x) => `${x.from}>${x.to}`).join(' ')}`,
    );
  return c;
}

/** The seeds' rows: external → core and edge NodePort, core kubelet; pod A → pod B, ClusterIP; nodes → 127.0.0.1. */
const SEED_ROWS: readonly [string, string][] = [
  ['client/external', 'nodeport/web@core-1'],
  ['client/external', 'nodeport/web@edge-1'],
  ['client/external', 'node/core-1:10250'],
  ['pod/pod-a', 'pod/pod-b:8080'],
  ['pod/pod-a', 'svc/web:8080'],
  ['node/core-1', 'localhost-nodeport/web@core-1'],
  ['node/edge-1', 'localhost-nodeport/web@edge-1'],
];

const seedOutcomes = (m: MatrixResult) =>
  SEED_ROWS.map(([f, t]) => {
    const c = cellOf(m, f, t);
    return `${f} -> ${t}: ${c.outcome}${c.matches === null ? '' : c.matches ? ' (as expected)' : ' (NOT as expected)'}`;
  });

describe('the probe matrix of nodeport-close-on-core-nodes', () => {
  it('lays out every sender against every exposed address; 127.0.0.1 only from the node itself', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'open' });
    const layout = m.layout;
    if (!layout) throw new Error('no layout');
    expect(layout.senders.map((s) => s.id)).toEqual([
      'client/external',
      'pod/pod-a',
      'pod/pod-b',
      'pod/web',
      'node/core-1',
      'node/core-2',
      'node/edge-1',
    ]);
    expect(layout.columns.map((c) => `${c.id} ${c.address}:${c.port}`)).toEqual([
      'svc/web:8080 10.96.0.10:8080',
      'nodeport/web@core-1 192.168.10.11:30080',
      'nodeport/web@core-2 192.168.10.12:30080',
      'nodeport/web@edge-1 192.168.10.21:30080',
      'localhost-nodeport/web 127.0.0.1:30080',
      // Destinations only the scenario's probes name.
      'pod/pod-b:8080 10.244.1.10:8080',
      'node/core-1:10250 192.168.10.11:10250',
    ]);
    const localhost = m.cells.filter((c) => c.to.startsWith('localhost-nodeport/'));
    expect(localhost.map((c) => `${c.from} ${c.to}`)).toEqual([
      'node/core-1 localhost-nodeport/web@core-1',
      'node/core-2 localhost-nodeport/web@core-2',
      'node/edge-1 localhost-nodeport/web@edge-1',
    ]);
    expect(m.cells).toHaveLength(7 * 6 + 3);
    expect(layout.limited).toBeNull();
  });

  it('before: every node answers, the core NodePort masquerades', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'open' });
    expect(seedOutcomes(m)).toEqual([
      'client/external -> nodeport/web@core-1: answered (as expected)',
      'client/external -> nodeport/web@edge-1: answered (as expected)',
      'client/external -> node/core-1:10250: answered (as expected)',
      'pod/pod-a -> pod/pod-b:8080: answered (as expected)',
      'pod/pod-a -> svc/web:8080: answered (as expected)',
      'node/core-1 -> localhost-nodeport/web@core-1: answered (as expected)',
      'node/edge-1 -> localhost-nodeport/web@edge-1: answered (as expected)',
    ]);
    const core = cellOf(m, 'client/external', 'nodeport/web@core-1');
    expect(core.answeredBy).toBe('pod/web (2 pods)');
    expect(core.srcSeenAs).toBe('node/core-1');
    expect(core.expected).toBe('answered by pod/web, src seen node/core-1');
    expect(core.branches.map((b) => b.share)).toEqual([0.5, 0.5]);
  });

  it('A, externalTrafficPolicy Local: the core port gives no answer, the edge keeps the client address', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'a-etp-local' });
    expect(seedOutcomes(m)).toEqual([
      'client/external -> nodeport/web@core-1: timeout (as expected)',
      'client/external -> nodeport/web@edge-1: answered (as expected)',
      'client/external -> node/core-1:10250: answered (as expected)',
      'pod/pod-a -> pod/pod-b:8080: answered (as expected)',
      'pod/pod-a -> svc/web:8080: answered (as expected)',
      'node/core-1 -> localhost-nodeport/web@core-1: answered (as expected)',
      'node/edge-1 -> localhost-nodeport/web@edge-1: answered (as expected)',
    ]);
    expect(cellOf(m, 'client/external', 'nodeport/web@edge-1').srcSeenAs).toBe('client/external');
    // Not a probe of the scenario: the other core node's port is closed the same way.
    const core2 = cellOf(m, 'client/external', 'nodeport/web@core-2');
    expect([core2.outcome, core2.expected, core2.matches]).toEqual(['timeout', null, null]);
    // kubernetes issue 74383: pod A through core-2's NodePort, the endpoint on a third node.
    expect(cellOf(m, 'pod/pod-a', 'nodeport/web@core-2').outcome).toBe('timeout');
  });

  it('B, nodePortAddresses: the core port does not exist (refused), for pods too', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'b-nodeport-addresses' });
    expect(cellOf(m, 'client/external', 'nodeport/web@core-1').outcome).toBe('refused');
    expect(cellOf(m, 'pod/pod-a', 'nodeport/web@core-2').outcome).toBe('refused');
    expect(cellOf(m, 'node/core-1', 'localhost-nodeport/web@core-1').outcome).toBe('answered');
    expect(m.cells.filter((c) => c.matches === false)).toEqual([]);
  });

  it('C, raw guard: the core node itself still reaches 127.0.0.1:30080 (the article says timeout)', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'c-raw-guard' });
    expect(cellOf(m, 'client/external', 'nodeport/web@core-1').outcome).toBe('timeout');
    const self = cellOf(m, 'node/core-1', 'localhost-nodeport/web@core-1');
    expect([self.outcome, self.matches]).toEqual(['answered', true]);
    const without = computeMatrix({ scenario: NODEPORT, variant: 'c-raw-guard-without-return' });
    expect(cellOf(without, 'pod/pod-a', 'nodeport/web@core-2').outcome).toBe('timeout');
    expect(cellOf(m, 'pod/pod-a', 'nodeport/web@core-2').outcome).toBe('answered');
  });
});

describe('the probe matrix of vip22-sshd-or-service', () => {
  it('no Service on 22: the VIP reaches sshd from everywhere', () => {
    const m = computeMatrix({ scenario: VIP22, variant: 'no-service' });
    const vip22 = m.cells.filter((c) => c.to === 'vip:22');
    expect(vip22.map((c) => `${c.from}: ${c.answeredBy}`)).toEqual([
      'client/laptop: node/cp-1/sshd',
      'pod/nettest: node/cp-1/sshd',
      'pod/kong: node/cp-1/sshd',
      'node/cp-1: node/cp-1/sshd',
      'node/worker-1: node/cp-1/sshd',
    ]);
    expect(cellOf(m, 'client/laptop', 'vip:22').matches).toBe(true);
  });

  it('the LoadBalancer Service on 22: the VIP goes to the pod, the node IP still to sshd', () => {
    const m = computeMatrix({ scenario: VIP22, variant: 'lb-service' });
    const vip = cellOf(m, 'client/laptop', 'vip:22');
    expect([vip.answeredBy, vip.srcSeenAs, vip.matches]).toEqual([
      'pod/nettest',
      'node/cp-1',
      true,
    ]);
    const node = cellOf(m, 'client/laptop', 'node/cp-1:22');
    expect([node.answeredBy, node.srcSeenAs, node.matches]).toEqual([
      'node/cp-1/sshd',
      'client/laptop',
      true,
    ]);
    // The VIP is a local address of cp-1: the Services' NodePorts answer on it too.
    expect(m.layout?.columns.map((c) => c.id)).toContain('vip:30001');
    expect(cellOf(m, 'client/laptop', 'vip:30001').answeredBy).toBe('pod/nettest');
  });

  it('eTP Local without a local endpoint: the VIP times out from outside, answers from inside', () => {
    const m = computeMatrix({ scenario: VIP22, variant: 'etp-local' });
    expect(m.cells.filter((c) => c.to === 'vip:22').map((c) => `${c.from}: ${c.outcome}`)).toEqual([
      'client/laptop: timeout',
      'pod/nettest: answered',
      'node/cp-1: answered',
      'node/worker-1: answered',
    ]);
  });
});

describe('expectations, bounds and limits', () => {
  it('a stated expectation that fails is marked with what differs', () => {
    const wrong = miniWith(
      'to: nodeport/web@cp-1\n    expect: { outcome: answered }',
      'to: nodeport/web@cp-1\n    expect: { outcome: timeout }',
    );
    const m = computeMatrix({ scenario: wrong });
    const c = cellOf(m, 'client/laptop', 'nodeport/web@cp-1');
    expect([c.outcome, c.expected, c.matches]).toEqual(['answered', 'timeout', false]);
    expect(c.diff[0]).toMatch(/^outcome: expected timeout, got answered by pod\/web-/);
  });

  it('a split past the engine bounds is partial and cannot confirm an expectation', () => {
    const flips = Array.from(
      { length: 10 },
      () => '        -A PREROUTING -m statistic --mode random --probability 0.5',
    ).join('\n');
    const many = miniWith('        -A PREROUTING -p tcp --dport 22 -j ACCEPT', flips);
    const m = computeMatrix({ scenario: many });
    const c = cellOf(m, 'client/laptop', 'node/cp-1:22');
    expect(c.partial?.notComputed).toBeGreaterThan(0);
    expect(c.partial?.covered).toBeCloseTo(0.5, 5);
    expect(c.matches).toBe(false);
    expect(c.diff.join('\n')).toContain('not every branch was computed');
  });

  it('outcomes that differ by branch are a split, each share named', () => {
    const half = miniWith(
      '        -A PREROUTING -p tcp --dport 22 -j ACCEPT',
      '        -A PREROUTING -p tcp --dport 22 -m statistic --mode random --probability 0.5 -j DROP',
    );
    const c = cellOf(computeMatrix({ scenario: half }), 'client/laptop', 'node/cp-1:22');
    expect(c.outcome).toBe('split');
    expect(c.branches.map((b) => `${b.outcome} ${b.share}`).sort()).toEqual([
      'answered 0.5',
      'timeout 0.5',
    ]);
  });

  it('a big scenario is cut to the cell bound, the probed rows and columns kept, and says so', () => {
    const m = computeMatrix({ scenario: NODEPORT, variant: 'open', maxCells: 14 });
    const l = m.layout;
    expect(l?.limited).toEqual({
      senders: { shown: 7, total: 7 },
      columns: { shown: 2, total: 7 },
    });
    expect(l?.columns.map((c) => c.id)).toEqual(['svc/web:8080', 'nodeport/web@core-1']);
  });

  it("runs in the lab's kube-proxy mode: nftables rejects a ClusterIP's unknown port itself", () => {
    const text = scenario('internal-traffic-policy-local');
    const detail = (mode: 'iptables' | 'nftables') =>
      cellOf(computeMatrix({ scenario: text, mode }), 'node/worker-1', '10.96.0.10:9999')
        .branches[0]?.detail;
    // iptables mode has no rule for the port: routed out, no ARP answer. nftables mode: the
    // cluster-ips set catches the address and kube-proxy rejects it.
    expect(detail('iptables')).toMatch(/no host answers ARP/);
    expect(detail('nftables')).toMatch(/icmp-port-unreachable/);
    expect(
      openMatrix({ scenario: text, mode: 'ipvs' })
        .diagnostics.map((d) => d.message)
        .join(),
    ).toMatch(/does not run in ipvs mode/);
  });

  it('bad input gives the diagnostics and no cells', () => {
    const m = openMatrix({ scenario: MINI_SCENARIO, variant: 'nope' });
    expect(m.ok).toBe(false);
    expect(m.diagnostics.map((d) => d.message).join()).toContain('nope');
  });
});
