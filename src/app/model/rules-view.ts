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
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const t = raw.trim();
    if (t.startsWith('*')) {
      cur = { name: t.slice(1), line, chains: [] };
      tables.push(cur);
      return;
    }
    if (!cur) return;
    const table: TableView = cur;
    if (t.startsWith(':')) {
      const [name = '', policy = '-'] = t.slice(1).split(/\s+/);
      table.chains.push({ name, policy, line, rules: [] });
    } else if (t.startsWith('-A ') || t.startsWith('-I ')) {
      const name = t.split(/\s+/)[1] ?? '';
      let chain = table.chains.find((c) => c.name === name);
      if (!chain) table.chains.push((chain = { name, policy: '-', line, rules: [] }));
      chain.rules.push({ line, text: t });
    }
  });
  return tables;
}
