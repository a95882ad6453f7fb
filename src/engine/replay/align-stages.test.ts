/** The coarser, stage-level alignment (pwru, Retis's kernel probes), on hand-made stages. */
import { describe, expect, it } from 'vitest';
import { alignStages, type SimStage } from './align-stages.ts';
import { addFunc, probedStages } from './stages.ts';
import type { RealStage, Stage } from './types.ts';

function real(...funcs: string[]): RealStage[] {
  const out: RealStage[] = [];
  funcs.forEach((f, i) => {
    const [name = '', reason = null] = f.split('=');
    addFunc(out, i + 1, name, reason);
  });
  return out;
}
const sim = (...stages: Stage[]): SimStage[] =>
  stages.map((stage, seq) => ({ seq, stage, reason: stage === 'drop' ? 'policy DROP' : null }));

describe('alignStages', () => {
  it('a forwarded packet: every hook alike', () => {
    const r = real(
      '__netif_receive_skb_core',
      'ip_rcv',
      'nf_hook_slow',
      'ip_forward',
      'ip_output',
      'ip_finish_output2',
      '__dev_queue_xmit',
    );
    const rows = alignStages(
      r,
      sim('receive', 'PREROUTING', 'FORWARD', 'POSTROUTING', 'xmit'),
      probedStages([r]),
    );
    expect(rows.map((x) => x.status)).toEqual(['same', 'same', 'same', 'same', 'same']);
  });

  it('the kernel dropped it in FORWARD where the lab sent it on: the drop is the first row apart', () => {
    const r = real(
      'ip_rcv',
      'ip_forward',
      'nft_do_chain',
      'kfree_skb_reason=SKB_DROP_REASON_NETFILTER_DROP',
    );
    const rows = alignStages(
      r,
      sim('PREROUTING', 'FORWARD', 'POSTROUTING', 'xmit'),
      probedStages([r]),
    );
    expect(rows.map((x) => `${x.status}:${x.real?.stage ?? x.sim?.stage}`)).toEqual([
      'same:PREROUTING',
      'same:FORWARD',
      'extra:drop',
      'missing:POSTROUTING',
      'unseen:xmit',
    ]);
    expect(rows[1]?.real?.tables).toBe(true);
    expect(rows[2]?.real?.reason).toBe('NETFILTER_DROP');
  });

  it('a trace with no hook function (Retis default probes) leaves the lab hooks unseen, not missing', () => {
    const r = real('net:netif_receive_skb', 'net:net_dev_start_xmit');
    const rows = alignStages(
      r,
      sim('receive', 'PREROUTING', 'FORWARD', 'POSTROUTING', 'xmit'),
      probedStages([r]),
    );
    expect(rows.map((x) => x.status)).toEqual(['same', 'unseen', 'unseen', 'unseen', 'same']);
  });

  it('a hook the kernel passed and the lab did not is extra', () => {
    const r = real('ip_rcv', 'ip_local_deliver', 'tcp_v4_rcv');
    const rows = alignStages(r, sim('PREROUTING', 'FORWARD'), probedStages([r]));
    expect(rows.map((x) => `${x.status}:${x.real?.stage ?? x.sim?.stage}`)).toEqual([
      'same:PREROUTING',
      'extra:INPUT',
      'extra:socket',
      'missing:FORWARD',
    ]);
  });
});
