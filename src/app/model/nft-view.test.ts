import { describe, expect, it } from 'vitest';
import { NFT_ALL_MAX, digestNft, nftRows } from './nft-view.ts';

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => `add rule ip kube-proxy services # ${i + 1}`).join('\n');

describe('the nft text as the rules panel draws it', () => {
  it('keeps a short table whole, numbered as rule events number it', () => {
    const v = digestNft(`${lines(5)}\n`, new Set());
    expect(v.total).toBe(5);
    expect(nftRows(v).map((r) => ('gap' in r ? r.gap : r.line))).toEqual([1, 2, 3, 4, 5]);
    expect(v.lines[2]?.text).toBe('add rule ip kube-proxy services # 3');
  });

  it('of a long one, keeps its head and the lines around what the packet can match', () => {
    const n = NFT_ALL_MAX * 3;
    const v = digestNft(lines(n), new Set([500]));
    const rows = nftRows(v);
    const shown = rows.flatMap((r) => ('gap' in r ? [] : [r.line]));
    expect(shown).toContain(1);
    expect(shown).toContain(500);
    expect(shown).toContain(497);
    expect(shown).not.toContain(505);
    expect(shown.length).toBeLessThan(100);
    // Every line is either shown or counted in a gap.
    const counted = rows.reduce((a, r) => a + ('gap' in r ? r.gap : 1), 0);
    expect(counted).toBe(n);
    expect(rows.at(-1)).toEqual({ gap: n - 503 });
  });
});
