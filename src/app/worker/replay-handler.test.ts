/** The replay worker's answer for a real trace against the lab's run of the same probe. */
import { describe, expect, it } from 'vitest';
import { TRACE_FIXTURES } from '../../cluster/testing/trace-fixtures.ts';
import { fixtureEvents, fixtureText } from '../../cluster/testing/trace-replay.ts';
import { handleReplay, replayView } from './replay-handler.ts';

const f = TRACE_FIXTURES.find((x) => x.file === 'vip22-lb-service.xtables.txt');
if (!f) throw new Error('fixture missing');
const events = fixtureEvents(f);

describe('replayView', () => {
  it('lists the packets that ran a rule and compares the first by default', () => {
    const v = replayView({ text: fixtureText(f.file), events });
    expect(v.format).toBe('xtables');
    expect(v.packets.map((p) => p.summary)).toEqual([
      'tcp 192.168.50.10:40100 → 192.168.50.100:22 SYN',
      'tcp 10.244.1.10:80 → 192.168.50.38:51057 SYN,ACK',
    ]);
    expect(v.packet).toBe(v.packets[0]?.id);
    expect(v.alignment).toMatchObject({ host: 'cp-1', packetId: 1, first: null });
  });

  it('compares the packet asked for: the answer, on its way back', () => {
    const text = fixtureText(f.file);
    const id = replayView({ text, events }).packets[1]?.id;
    const v = replayView({ text, events, ...(id ? { packet: id } : {}) });
    expect(v.alignment).toMatchObject({ host: 'cp-1', packetId: 2, first: null });
  });

  it('the edited copy disagrees first at its row 9', () => {
    const v = replayView({ text: fixtureText('vip22-lb-service.edited.xtables.txt'), events });
    expect(v.alignment?.first).toBe(8);
  });

  it('text that is no trace: its error, no packet, no alignment', () => {
    const r = handleReplay({ type: 'replay', id: 3, input: { text: 'PACKET: x', events } });
    expect(r).toMatchObject({
      type: 'replayed',
      id: 3,
      view: { packets: [], alignment: null, errors: [{ line: 1, column: 9 }] },
    });
  });
});
