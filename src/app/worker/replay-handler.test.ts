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

  it('shows first the packet that fits the run, not a stray one pasted above it', () => {
    const nft = TRACE_FIXTURES.find((x) => x.file === 'vip22-lb-service.nft.txt');
    if (!nft) throw new Error('fixture missing');
    // A bridge's IGMPv3 report, traced on cp-1 beside the probe (captured in CI): it ran nat
    // PREROUTING, matched no Service and took the policy.
    const igmp = [
      'trace id 04a4d420 ip hptrace pre packet: iif "eth0" ether saddr 02:e7:9c:ad:7a:94 ether daddr 01:00:5e:00:00:16 ip saddr 0.0.0.0 ip daddr 224.0.0.22 ip dscp cs6 ip ecn not-ect ip ttl 1 ip id 0 ip length 40 @nh,160,32 0x94040000 igmp type membership-report-v3 igmp mrt 0 @th,16,112 0xf9930000000104000000e000006a ',
      'trace id 04a4d420 ip hptrace pre rule meta l4proto != tcp meta nftrace set 1 # handle 3 (verdict continue)',
      'trace id 04a4d420 ip hptrace pre policy accept ',
      'trace id 04a4d420 ip nat PREROUTING packet: iif "eth0" ether saddr 02:e7:9c:ad:7a:94 ether daddr 01:00:5e:00:00:16 ip saddr 0.0.0.0 ip daddr 224.0.0.22 ip dscp cs6 ip ecn not-ect ip ttl 1 ip id 0 ip length 40 @nh,160,32 0x94040000 igmp type membership-report-v3 igmp mrt 0 @th,16,112 0xf9930000000104000000e000006a ',
      'trace id 04a4d420 ip nat PREROUTING rule  counter packets 0 bytes 0 jump KUBE-SERVICES # handle 15 (verdict jump KUBE-SERVICES)',
      'trace id 04a4d420 ip nat PREROUTING policy accept ',
    ];
    const nftEvents = fixtureEvents(nft);
    const clean = replayView({ text: fixtureText(nft.file), events: nftEvents });
    const v = replayView({
      text: `${igmp.join('\n')}\n${fixtureText(nft.file)}`,
      events: nftEvents,
    });
    // The stray packet is listed where it was pasted, but the SYN is the one compared.
    expect(v.packets[0]?.id).toBe('04a4d420');
    expect(v.packets.slice(1).map((p) => p.summary)).toEqual(clean.packets.map((p) => p.summary));
    expect(v.packet).toBe(clean.packet);
    expect(v.alignment).toMatchObject({ host: 'cp-1', packetId: 1, first: null });
    // Asked for, the stray packet is compared and disagrees.
    const stray = replayView({ text: `${igmp.join('\n')}\n`, events: nftEvents });
    expect(stray.packet).toBe('04a4d420');
    expect(stray.alignment?.first).not.toBeNull();
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
