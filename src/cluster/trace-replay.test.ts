/**
 * Real traces captured on the kernel (src/cluster/testing/trace-fixtures) replayed against the
 * engine's run of the same scenario probe: they must agree rule by rule; hand-edited copies must
 * disagree first at the rule that was edited.
 */
import { describe, expect, it } from 'vitest';
import { TRACE_FIXTURES } from './testing/trace-fixtures.ts';
import { fixtureEvents, fixtureText, replayFixture } from './testing/trace-replay.ts';
import { parseRealTrace, replayPacket } from '../engine/index.ts';

describe('real traces against the engine', () => {
  for (const f of TRACE_FIXTURES) {
    it(`${f.file} (${f.monitor} on ${f.host}) agrees rule by rule`, () => {
      const r = replayFixture(f, fixtureText(f.file));
      expect(r.report, r.text).toEqual({ agrees: true, errors: 0 });
      // The probe's first packet and its answer, each on the traced node.
      expect(r.alignments.map((a) => [a.host, a.packetId])).toEqual([
        [f.host, 1],
        [f.host, 2],
      ]);
      expect(r.alignments[0]?.same).toBeGreaterThanOrEqual(8);
    });
  }
});

function fixture(file: string) {
  const f = TRACE_FIXTURES.find((x) => x.file === file);
  if (!f) throw new Error(file);
  return f;
}

describe('a trace that disagrees', () => {
  it('finds a different jump at the KUBE-SVC rule the edit changed', () => {
    const f = fixture('vip22-lb-service.xtables.txt');
    const parsed = parseRealTrace(fixtureText('vip22-lb-service.edited.xtables.txt'));
    const syn = parsed.packets[0];
    if (!syn) throw new Error('no packet');
    const a = replayPacket(syn, fixtureEvents(f), { host: 'cp-1' });
    const row = a.rows[a.first ?? -1];
    expect(row?.status).toBe('verdict');
    expect(row?.real?.line).toBe(10);
    expect(row?.real?.verdict).toBe('jump KUBE-SEP-OTHERPOD0000000');
    expect(row?.sim?.chain).toBe('KUBE-SVC-LLAB3WV3ANBXYNCK');
    expect(row?.sim?.verdict).toBe('jump KUBE-SEP-J4NUN26B4NBMR2RL');
    expect(a.disagreements).toBe(1);
  });

  it('finds the masquerading rule the kernel did not report', () => {
    const f = fixture('itp-local-app-1.nft.txt');
    const parsed = parseRealTrace(fixtureText('itp-local-app-1.edited.nft.txt'));
    const syn = parsed.packets[0];
    if (!syn) throw new Error('no packet');
    const a = replayPacket(syn, fixtureEvents(f), { host: 'worker-1' });
    const row = a.rows[a.first ?? -1];
    expect(row?.status).toBe('missing');
    expect(row?.real).toBe(null);
    expect(row?.sim).toMatchObject({ table: 'kube-proxy', chain: 'masquerading', handle: 28 });
    expect(a.disagreements).toBe(1);
  });

  it('a trace of another node agrees with nothing there', () => {
    const f = fixture('vip22-lb-service.xtables.txt');
    const itp = parseRealTrace(fixtureText('itp-local-app-1.xtables.txt'));
    const syn = itp.packets[0];
    if (!syn) throw new Error('no packet');
    const a = replayPacket(syn, fixtureEvents(f), { host: 'cp-1' });
    expect(a.first).not.toBe(null);
  });
});
