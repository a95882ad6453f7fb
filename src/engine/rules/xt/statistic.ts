/** `-m statistic`: random and every-nth matches (net/netfilter/xt_statistic.c, libxt_statistic.c). */
import { fail, o, option, sharedMatch, type MatchExtension, type Matcher } from '../extension.ts';
import type { Rule } from '../types.ts';

/**
 * `--mode random` matches, one per chance and negation: a dump's 20,000 such matches use a few
 * (kube-proxy writes 1/n for n endpoints left), instead of a closure, its scope and a boxed
 * number each. The rule the chance belongs to is the one being evaluated (MatchCtx.rule).
 */
const randomMatches = new Map<number, Matcher>();
const negatedRandomMatches = new Map<number, Matcher>();
/** Chances kept per negation: a lab page reads many rulesets, not all of kube-proxy's making. */
const KEPT_CHANCES = 4096;

function randomMatch(p: number, neg: boolean): Matcher {
  const made = neg ? negatedRandomMatches : randomMatches;
  let m = made.get(p);
  if (m === undefined) {
    m = neg ? (c) => !c.choose(p, c.rule as Rule) : (c) => c.choose(p, c.rule as Rule);
    if (made.size < KEPT_CHANCES) made.set(p, sharedMatch(m));
  }
  return m;
}

export const statistic: MatchExtension = {
  name: 'statistic',
  supported: true,
  stateful: true,
  options: { '--mode': o(1), '--probability': o(1, true), '--every': o(1, true), '--packet': o(1) },
  compile(mod, cx) {
    const mode = option(mod, '--mode')?.args[0];
    const rule = cx.rule;
    if (mode === 'random') {
      const opt = option(mod, '--probability');
      const raw = opt?.args[0] ?? '';
      // iptables reads it with strtod and refuses an empty or partial number; Number('') is 0.
      const p = raw.trim() === '' ? NaN : Number(raw);
      if (!opt || Number.isNaN(p) || p < 0 || p > 1)
        fail(
          opt?.column ?? mod.column,
          `statistic --mode random needs --probability between 0 and 1${opt ? `, not '${raw}'` : ''}`,
        );
      const neg = opt?.negated ?? false;
      // The kernel draws get_random_u32() < probability * 2^31 (xt_statistic.c); the lab lets
      // the chooser decide, so every branch can be enumerated with its probability.
      cx.setProbability(neg ? 1 - p : p);
      cx.add(randomMatch(p, neg));
      return;
    }
    if (mode === 'nth') {
      const every = Number(option(mod, '--every')?.args[0]);
      const packet = Number(option(mod, '--packet')?.args[0] ?? 0);
      if (!Number.isInteger(every) || every < 1 || !Number.isInteger(packet) || packet >= every) {
        fail(mod.column, 'statistic --mode nth needs --every N (>= 1) and --packet P (< N)');
      }
      const neg = option(mod, '--every')?.negated ?? false;
      // One counter per rule; a rule is one line of its dump.
      const key = `${rule.table}/${rule.chain}/${rule.line}`;
      // A counter has no fixed chance: the rule shows none, as when nth follows a random match.
      cx.setProbability(null);
      cx.add((c) => {
        // xt_statistic starts its counter at every-1-packet and matches when it wraps to 0, so
        // the k-th packet reaching the rule (0-based) matches when k % every == packet.
        const k = c.state.nth.get(key) ?? 0;
        c.state.nth.set(key, k + 1);
        return (k % every === packet) !== neg;
      });
      return;
    }
    fail(mod.column, `statistic --mode must be random or nth, not '${mode ?? ''}'`);
  },
};
