/**
 * What the rules panel shows of a node's nftables-mode kube-proxy table: the `nft -f` text the
 * generator wrote (src/kube/nftables), one statement a line, as kube-proxy's nftables proxier
 * writes its transaction (pkg/proxy/nftables/proxier.go). A rule event of that table carries the
 * line of its `add rule` statement (`e.line`, beside `e.nft.handle`), so the panel highlights by
 * line. Like rules-view.ts the digest is made in the worker: a 5,000-Service table is tens of
 * thousands of lines and the panel shows those the packet can reach and their neighbours.
 */

export interface NftLine {
  /** 1-based line of the `nft -f` text (what rule events carry as `line`). */
  readonly line: number;
  readonly text: string;
}

export interface NftView {
  /** Lines of the whole text. */
  readonly total: number;
  /** The lines kept, in order; a jump in `line` is a gap the panel says. */
  readonly lines: readonly NftLine[];
}

/** A text this short is kept whole. */
export const NFT_ALL_MAX = 400;
/** Of a longer one: its first lines (the table, the base chains and kube-proxy's fixed rules)... */
const FIRST = 60;
/** ...and this many lines either side of a line the packet can match. */
const AROUND = 3;

export function digestNft(text: string, reachable: ReadonlySet<number>): NftView {
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  const keep = (i: number) => {
    if (all.length <= NFT_ALL_MAX || i < FIRST) return true;
    for (let d = -AROUND; d <= AROUND; d++) if (reachable.has(i + 1 + d)) return true;
    return false;
  };
  const lines: NftLine[] = [];
  all.forEach((t, i) => {
    if (keep(i)) lines.push({ line: i + 1, text: t });
  });
  return { total: all.length, lines };
}

/** The kept lines with the gaps between them counted, as the panel draws them. */
export function nftRows(v: NftView): (NftLine | { readonly gap: number })[] {
  const out: (NftLine | { gap: number })[] = [];
  let next = 1;
  for (const l of v.lines) {
    if (l.line > next) out.push({ gap: l.line - next });
    out.push(l);
    next = l.line + 1;
  }
  if (v.total >= next) out.push({ gap: v.total - next + 1 });
  return out;
}
