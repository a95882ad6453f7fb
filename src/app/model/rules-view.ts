/** An iptables-save text split into tables and chains for the rules panel (line numbers kept). */

export interface RuleLine {
  readonly line: number;
  readonly text: string;
}

export interface ChainView {
  readonly name: string;
  /** ACCEPT/DROP for built-in chains, '-' for user chains. */
  readonly policy: string;
  readonly line: number;
  readonly rules: RuleLine[];
}

export interface TableView {
  readonly name: string;
  readonly line: number;
  readonly chains: ChainView[];
}

export function parseRulesText(text: string): TableView[] {
  const tables: TableView[] = [];
  let cur: TableView | null = null;
  // Chains by name per table: a big node has thousands of chains, a scan per rule was quadratic.
  let byName = new Map<string, ChainView>();
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const t = text.slice(start, end).trim();
    start = end + 1;
    if (t.startsWith('*')) {
      cur = { name: t.slice(1), line, chains: [] };
      byName = new Map();
      tables.push(cur);
      continue;
    }
    if (!cur) continue;
    if (t.startsWith(':')) {
      const [name = '', policy = '-'] = t.slice(1).split(/\s+/);
      const chain: ChainView = { name, policy, line, rules: [] };
      cur.chains.push(chain);
      byName.set(name, chain);
    } else if (t.startsWith('-A ') || t.startsWith('-I ')) {
      const sp = t.indexOf(' ', 3);
      const name = t.slice(3, sp < 0 ? t.length : sp);
      let chain = byName.get(name);
      if (!chain) {
        chain = { name, policy: '-', line, rules: [] };
        cur.chains.push(chain);
        byName.set(name, chain);
      }
      chain.rules.push({ line, text: t });
    }
  }
  return tables;
}

/** Rows of a long chain worth drawing: the first few and those near a matched line. */
export function visibleRules(
  rules: readonly RuleLine[],
  keep: ReadonlySet<number>,
  max = 200,
  around = 25,
): (RuleLine | { gap: number })[] {
  if (rules.length <= max) return [...rules];
  const show = new Array<boolean>(rules.length).fill(false);
  for (let i = 0; i < Math.min(20, rules.length); i++) show[i] = true;
  rules.forEach((r, i) => {
    if (!keep.has(r.line)) return;
    for (let j = Math.max(0, i - around); j <= Math.min(rules.length - 1, i + around); j++)
      show[j] = true;
  });
  const out: (RuleLine | { gap: number })[] = [];
  let gap = 0;
  rules.forEach((r, i) => {
    if (show[i]) {
      if (gap) out.push({ gap });
      gap = 0;
      out.push(r);
    } else gap++;
  });
  if (gap) out.push({ gap });
  return out;
}
