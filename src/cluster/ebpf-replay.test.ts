/**
 * Retis and pwru traces (src/cluster/testing/ebpf-fixtures: transcribed upstream outputs and
 * ones constructed for the lab's vip22 probe, see its README) through the replay worker's
 * logic, against the engine's run of that probe.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayView } from '../app/worker/replay-handler.ts';
import { simStages } from '../engine/index.ts';
import { TRACE_FIXTURES } from './testing/trace-fixtures.ts';
import { fixtureEvents } from './testing/trace-replay.ts';

const DIR = join(import.meta.dirname, 'testing/ebpf-fixtures');
const text = (f: string) => readFileSync(join(DIR, f), 'utf8');
const vip22 = TRACE_FIXTURES.find((f) => f.file === 'vip22-lb-service.xtables.txt');
if (!vip22) throw new Error('vip22 fixture missing');
const events = fixtureEvents(vip22);

describe('Retis against the engine', () => {
  it('the vip22 trace agrees rule by rule on cp-1, packet 1', () => {
    const v = replayView({ text: text('vip22-lb-service.retis.json'), events });
    expect(v.format).toBe('retis');
    expect(v.errors).toEqual([]);
    expect(v.packets.map((p) => p.summary)).toEqual([
      'tcp 192.168.50.10:40100 → 192.168.50.100:22 SYN',
    ]);
    expect(v.alignment).toMatchObject({ host: 'cp-1', packetId: 1, first: null });
    expect(v.alignment?.same).toBe(13);
    expect(v.stages).toBeNull();
  });

  it('the edited copy disagrees first at the KUBE-SVC rule, row 7', () => {
    const a = replayView({ text: text('vip22-lb-service.edited.retis.json'), events }).alignment;
    expect(a?.first).toBe(6);
    const row = a?.rows[6];
    expect(row?.status).toBe('verdict');
    expect(row?.real?.verdict).toBe('jump KUBE-SEP-OTHERPOD0000000');
    expect(row?.sim?.verdict).toBe('jump KUBE-SEP-J4NUN26B4NBMR2RL');
  });

  it('collected with the default --nft-verdicts drop,accept: the lab’s jumps are not compared', () => {
    const lines = text('vip22-lb-service.retis.json')
      .split('\n')
      .filter((l) => !l.includes('"nft"') || /"verdict":"(accept|drop)"/.test(l));
    const v = replayView({ text: lines.join('\n'), events });
    expect(v.onlyVerdicts).toEqual(['accept', 'drop']);
    expect(v.alignment).toMatchObject({ host: 'cp-1', packetId: 1, first: null, same: 3 });
    expect(v.alignment?.rows.filter((r) => r.status === 'optional').length).toBeGreaterThan(5);
  });

  it('Retis’s own test events: kernel probes only, read as stages with their drop', () => {
    const v = replayView({ text: text('retis-upstream-test_events.json'), events });
    expect(v.alignment).toBeNull();
    expect(v.packets.map((p) => p.drop?.reason ?? null)).toEqual([null, 'NO_SOCKET']);
    expect(v.stages?.rows.length).toBeGreaterThan(0);
  });

  it('Retis’s README text output: four packets, kernel probes only', () => {
    const v = replayView({ text: text('retis-upstream-readme.txt'), events });
    expect(v.format).toBe('retis');
    expect(v.packets).toHaveLength(4);
  });
});

describe('pwru against the engine', () => {
  it('the lab passes the same hooks on the same node for the vip22 SYN', () => {
    const v = replayView({ text: text('vip22-lb-service.pwru.txt'), events });
    expect(v.format).toBe('pwru');
    expect(v.alignment).toBeNull();
    expect(v.stages).toMatchObject({ host: 'cp-1', packetId: 1, first: null, same: 5 });
    expect(v.stages?.rows.map((r) => r.real?.stage)).toEqual([
      'receive',
      'PREROUTING',
      'FORWARD',
      'POSTROUTING',
      'xmit',
    ]);
  });

  it('dropped in FORWARD: the first disagreement is the kernel’s drop, with its reason', () => {
    const s = replayView({ text: text('vip22-lb-service.dropped.pwru.txt'), events }).stages;
    expect(s?.host).toBe('cp-1');
    expect(s?.first).toBe(3);
    expect(s?.rows[3]).toMatchObject({
      status: 'extra',
      real: { stage: 'drop', reason: 'NETFILTER_DROP' },
    });
    expect(s?.rows[4]).toMatchObject({ status: 'missing', sim: { stage: 'POSTROUTING' } });
  });

  it('the upstream example (cilium/pwru#148) reads as a netfilter drop', () => {
    const v = replayView({ text: text('pwru-upstream.txt'), events });
    expect(v.packets).toMatchObject([
      { summary: 'tcp 172.20.10.2:33918 → 1.1.1.1:4240', drop: { reason: 'NETFILTER_DROP' } },
    ]);
  });
});

describe('simStages', () => {
  it('a pod without tables still passes PREROUTING and INPUT (NF_HOOK runs regardless)', () => {
    const stages = simStages(events);
    const pod = [...stages.keys()].find((k) => k.startsWith('nettest') && k.endsWith(' 1'));
    expect(stages.get(pod ?? '')?.map((s) => s.stage)).toEqual([
      'receive',
      'PREROUTING',
      'INPUT',
      'socket',
    ]);
    expect(stages.get('laptop 1')?.map((s) => s.stage)).toEqual(['OUTPUT', 'POSTROUTING', 'xmit']);
  });
});
