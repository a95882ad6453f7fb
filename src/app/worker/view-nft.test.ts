/** An nftables-mode node's rules as the page gets them (view.ts), from a real scenario's run. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runLab } from '../../cluster/lab.ts';
import { labView } from './view.ts';

const text = readFileSync('scenarios/vip22-sshd-or-service.yaml', 'utf8');

describe('the rules of an nftables-mode node', () => {
  const r = runLab({ scenario: text, variant: 'lb-service', mode: 'nftables' });
  const v = labView(r);

  it("is kube-proxy's nft text, and each nft rule event's line is its add rule line", () => {
    const events = r.runs.flatMap((run) => run.events);
    const nft = events.flatMap((e) => (e.type === 'rule' && e.nft ? [e] : []));
    expect(nft.length).toBeGreaterThan(0);
    for (const e of nft) {
      const line = v.nftables[e.host]?.lines.find((l) => l.line === e.line);
      expect(line?.text, `${e.host} line ${e.line}`).toBe(
        `add rule ${e.nft?.family} ${e.nft?.table} ${e.nft?.chain} ${e.text}`,
      );
    }
  });

  it('in iptables mode there is no nft text', () => {
    const ipt = labView(runLab({ scenario: text, variant: 'lb-service', mode: 'iptables' }));
    expect(ipt.nftables).toEqual({});
    expect(Object.keys(ipt.rules)).toContain('cp-1');
  });
});
