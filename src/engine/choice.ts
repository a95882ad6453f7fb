/**
 * Random branches (statistic --mode random, ECMP) are decided by a Chooser: either from a seed
 * (reproducible) or exhaustively, so the engine can list every outcome with its probability.
 */
import type { Rule } from './rules/types.ts';

export interface Choice {
  readonly label: string;
  readonly index: number;
  /** Probability of the option taken at this point. */
  readonly probability: number;
  readonly options: number;
  readonly rule: {
    readonly table: string;
    readonly chain: string;
    readonly index: number;
    readonly line: number;
  } | null;
}

export interface Chooser {
  pick(weights: readonly number[], label: string, rule: Rule | null): number;
  readonly taken: Choice[];
}

/** mulberry32: a small, fast, well-distributed 32-bit PRNG. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ruleRef(rule: Rule | null): Choice['rule'] {
  return rule ? { table: rule.table, chain: rule.chain, index: rule.index, line: rule.line } : null;
}

export function randomChooser(seed: number): Chooser {
  const rnd = seededRandom(seed);
  const taken: Choice[] = [];
  return {
    taken,
    pick(weights, label, rule) {
      const total = weights.reduce((a, b) => a + b, 0);
      let x = rnd() * total;
      let k = 0;
      for (; k < weights.length - 1; k++) {
        x -= weights[k] as number;
        if (x < 0) break;
      }
      taken.push({
        label,
        index: k,
        probability: (weights[k] as number) / total,
        options: weights.length,
        rule: ruleRef(rule),
      });
      return k;
    },
  };
}

/**
 * Replays a fixed prefix of decisions, then takes the first viable option and reports each
 * untaken one as (depth, option): the branch is the first `depth` decisions taken, then `option`.
 */
export function scriptedChooser(
  prefix: readonly number[],
  onBranch: (depth: number, option: number) => void,
): Chooser {
  const taken: Choice[] = [];
  return {
    taken,
    pick(weights, label, rule) {
      const total = weights.reduce((a, b) => a + b, 0);
      const depth = taken.length;
      let k: number;
      if (depth < prefix.length) k = prefix[depth] as number;
      else {
        const viable = weights.map((w, i) => (w > 0 ? i : -1)).filter((i) => i >= 0);
        k = viable[0] ?? 0;
        for (const alt of viable.slice(1)) onBranch(depth, alt);
      }
      taken.push({
        label,
        index: k,
        probability: (weights[k] as number) / total,
        options: weights.length,
        rule: ruleRef(rule),
      });
      return k;
    },
  };
}
