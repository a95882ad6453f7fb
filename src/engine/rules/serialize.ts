/** Writes a Ruleset back as iptables-save text. parse(serialize(r)) reproduces r. */
import type { Ruleset } from './types.ts';

export interface SerializeOptions {
  /** Print `[pkts:bytes]` rule counters when the input had them. */
  readonly counters?: boolean;
  /** Keep `#` comment lines from the input. */
  readonly comments?: boolean;
}

export function serializeRuleset(rs: Ruleset, options: SerializeOptions = {}): string {
  const lines: string[] = [];
  const withComments = options.comments ?? true;
  for (const table of rs.tables.values()) {
    if (withComments) lines.push(...(rs.headerComments.get(table.name) ?? []));
    lines.push(`*${table.name}`);
    for (const name of table.chainOrder) {
      const chain = table.chains.get(name);
      if (!chain) continue;
      lines.push(`:${chain.name} ${chain.policyText} ${chain.counters}`);
    }
    for (const rule of table.ruleOrder) {
      lines.push(options.counters && rule.counters ? `${rule.counters} ${rule.text}` : rule.text);
    }
    lines.push('COMMIT');
  }
  if (withComments) lines.push(...rs.trailingComments);
  return lines.length ? `${lines.join('\n')}\n` : '';
}
