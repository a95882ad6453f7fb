/**
 * Two traces side by side: which step of one stands beside which step of the other, and the first
 * step where they part. A step is compared by what the kernel did (host, hook, table, chain, the
 * rule's text and verdict, the routing decision, the socket), not by the packet's bytes: after a
 * MASQUERADE on one side every later packet differs, yet the rules walked can still be the same.
 */
import type { Step } from '../model/timeline.ts';

/** What a step did, as a comparable string (the packet itself left out, see above). */
export function stepKey(s: Step): string {
  const e = s.event;
  const head = `${s.direction}|${e.host}|${e.type}`;
  switch (e.type) {
    case 'rule':
      return `${head}|${e.hook}|${e.table}|${e.chain}|${e.text}|${e.verdict}|${e.target ?? ''}`;
    case 'miss':
      return `${head}|${e.hook}|${e.table}|${e.chain}|${e.from}-${e.to}`;
    case 'hook':
      return `${head}|${e.hook}|${e.table}`;
    case 'return':
      return `${head}|${e.hook}|${e.table}|${e.chain}`;
    case 'policy':
      return `${head}|${e.hook}|${e.table}|${e.chain}|${e.verdict}`;
    case 'nat-skip':
      return `${head}|${e.hook}|${e.reason}`;
    case 'conntrack':
      return `${head}|${e.hook}|${e.action}|${e.state}`;
    case 'route':
      return `${head}|${e.decision}|${e.dev ?? ''}|${e.via ?? ''}`;
    case 'socket':
      return `${head}|${e.result}|${e.process ?? ''}`;
    case 'send':
      return `${head}|${e.process}|${e.reason}`;
    case 'wire':
      return `${head}|${e.fromIf}|${e.toHost}|${e.toIf}`;
    case 'receive':
      return `${head}|${e.iface}`;
    case 'bridge':
      return `${head}|${e.bridge}|${e.action}|${e.inPort ?? ''}|${e.outPort ?? ''}`;
    case 'log':
      return `${head}|${e.prefix}`;
    case 'ipvs':
      return `${head}|${e.hook}|${e.action}|${e.service ?? ''}|${e.realServer ?? ''}`;
    case 'unsupported':
      return `${head}|${e.what}`;
    case 'drop':
      return `${head}|${e.reason}`;
  }
}

export interface Alignment {
  /** For each step of A (by its position among A's visible steps), the position in B beside it. */
  readonly aToB: readonly number[];
  /**
   * The first position where the two differ: `a` and `b` are the same position, one past the
   * end of the shorter trace when it ended there; null when the traces are the same.
   */
  readonly divergence: { readonly at: number } | null;
}

/** Past this many cells the longest common subsequence is not computed (lockstep instead). */
const LCS_MAX = 1_000_000;

/** Pairs of equal steps (longest common subsequence of the keys), in order. */
function matchedPairs(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n * m > LCS_MAX) {
    const out: [number, number][] = [];
    for (let i = 0; i < Math.min(n, m) && a[i] === b[i]; i++) out.push([i, i]);
    return out;
  }
  // len[i][j]: the LCS of a[i..] and b[j..], one flat array.
  const w = m + 1;
  const len = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      len[i * w + j] =
        a[i] === b[j]
          ? (len[(i + 1) * w + j + 1] as number) + 1
          : Math.max(len[(i + 1) * w + j] as number, len[i * w + j + 1] as number);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) out.push([i++, j++]);
    else if ((len[(i + 1) * w + j] as number) >= (len[i * w + j + 1] as number)) i++;
    else j++;
  }
  return out;
}

/**
 * Aligns two step lists (each the steps the user walks through). Equal steps stand side by side;
 * between two such pairs, each side walks its own steps in lockstep, B waiting at its last one.
 */
export function align(a: readonly Step[], b: readonly Step[]): Alignment {
  const ka = a.map(stepKey);
  const kb = b.map(stepKey);
  let p = 0;
  while (p < ka.length && p < kb.length && ka[p] === kb[p]) p++;
  const same = p === ka.length && p === kb.length;
  const pairs = matchedPairs(ka, kb);
  const aToB: number[] = new Array<number>(ka.length);
  let k = 0;
  for (let i = 0; i < ka.length; i++) {
    while (k < pairs.length && (pairs[k] as [number, number])[0] < i) k++;
    const here = pairs[k];
    if (here && here[0] === i) {
      aToB[i] = here[1];
      continue;
    }
    const prev = pairs[k - 1] ?? [-1, -1];
    const next = here ?? [ka.length, kb.length];
    const j = Math.min(prev[1] + (i - prev[0]), next[1] - 1);
    aToB[i] = Math.max(0, Math.min(kb.length - 1, Math.max(prev[1], j)));
  }
  return { aToB, divergence: same ? null : { at: p } };
}
