/** How one side of an aligned row reads: where it ran, which rule, its verdict. */
import type { AlignedRow } from '../worker/replay-protocol.ts';

type Real = NonNullable<AlignedRow['real']>;
type Sim = NonNullable<AlignedRow['sim']>;

/** `nat KUBE-SERVICES` or `kube-proxy services`: the family only where it is not ip. */
export function whereOf(s: Real | Sim): string {
  return `${s.family === 'ip' ? '' : `${s.family} `}${s.table} ${s.chain}`;
}

/**
 * A real rule by what the monitor printed: xtables-monitor the handle in hex (`rule 0x20`),
 * nft its handle (`handle 45`); a lab rule by handle (nft tables) or position (`rule @3`).
 */
function which(s: Real | Sim): string {
  if (s.kind === 'policy') return 'policy';
  if (s.kind === 'return') return 'end of chain';
  if ('seq' in s) return s.handle !== null ? `handle ${s.handle}` : `rule @${s.rule ?? '?'}`;
  if (s.handle === null) return 'rule';
  return s.text.startsWith('-') ? `rule 0x${s.handle.toString(16)}` : `handle ${s.handle}`;
}

export function realLabel(s: Real): string {
  return `${whereOf(s)} ${which(s)} · ${s.verdict}`;
}

export function simLabel(s: Sim): string {
  return `${whereOf(s)} ${which(s)} · ${s.verdict}`;
}
