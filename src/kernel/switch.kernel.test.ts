/**
 * The test topology's switch (a bridge in its own namespace for a segment of three hosts or
 * more) must stay silent: a snooping bridge joins 224.0.0.106 as it comes up and sends IGMPv3
 * reports from 0.0.0.0 to every host of the segment, packets the engine's segments never send.
 * One such report, traced on a node beside the first probe, failed a trace fixture in CI.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkSpec } from '../engine/index.ts';
import { nsRun } from './netns.ts';
import { describeKernel } from './support.ts';
import { buildTopology, type Topology } from './topology.ts';

const spec: NetworkSpec = {
  hosts: ['a', 'b', 'c'].map((name, k) => ({
    name,
    interfaces: [{ name: 'eth0', addresses: [`10.0.9.${k + 1}/24`], segment: 'lan' }],
  })),
};

describeKernel("the topology's switch", () => {
  let topo: Topology | null = null;
  beforeAll(() => {
    topo = buildTopology(spec);
  });
  afterAll(() => topo?.teardown());

  it('joins no multicast group of its own, so it sends no IGMP or MLD report', () => {
    const sw = topo?.switches.get('lan');
    expect(sw).toBeDefined();
    const groups = nsRun(sw as string, 'ip', ['maddr', 'show', 'dev', 'br0']);
    // A snooping bridge lists 224.0.0.106 (all-snoopers) and ff02::6a here.
    expect(groups).toContain('224.0.0.1');
    expect(groups).not.toContain('224.0.0.106');
    expect(groups).not.toContain('ff02::6a');
  });

  it('still forwards between its ports', () => {
    const ns = topo?.ns.get('a') as string;
    const out = nsRun(ns, 'ping', ['-c', '1', '-W', '2', '10.0.9.3']);
    expect(out).toMatch(/1 received/);
  });
});
