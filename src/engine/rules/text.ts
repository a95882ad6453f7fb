import { quoteWord } from './tokenize.ts';
import type { OptionSpec, RuleItem, TargetSpec } from './types.ts';

function optionText(opt: OptionSpec): string {
  const words = [opt.name, ...opt.args.map(quoteWord)].join(' ');
  return opt.negated ? `! ${words}` : words;
}

/** The canonical `-A CHAIN ...` text of a rule, as iptables-save prints it. */
export function ruleText(
  chain: string,
  items: readonly RuleItem[],
  target: TargetSpec | null,
): string {
  const parts: string[] = ['-A', chain];
  for (const item of items) {
    if (item.kind === 'core') {
      if (item.negated) parts.push('!');
      parts.push(item.opt);
      if (item.opt !== '-f') parts.push(quoteWord(item.value));
    } else {
      if (!item.implicit) parts.push('-m', item.name);
      for (const opt of item.options) parts.push(optionText(opt));
    }
  }
  if (target) {
    parts.push(target.via, target.name);
    for (const opt of target.options) parts.push(optionText(opt));
  }
  return parts.join(' ');
}
