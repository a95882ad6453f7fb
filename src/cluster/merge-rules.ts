/** Loads two iptables-save documents into one (kube-proxy's rules plus the host's own), as two restores would. */

interface Section {
  readonly name: string;
  readonly chains: string[];
  readonly rules: string[];
}

function sections(text: string): Section[] {
  const out: Section[] = [];
  let cur: Section | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (line.startsWith('*')) {
      cur = { name: line.slice(1).trim(), chains: [], rules: [] };
      out.push(cur);
    } else if (!cur || line === '' || line.startsWith('#')) continue;
    else if (line === 'COMMIT') cur = null;
    else if (line.startsWith(':')) cur.chains.push(line);
    else cur.rules.push(line);
  }
  return out;
}

/**
 * Tables present in both keep the first document's chains and rules first; the second document's
 * new chains are declared, built-in chain policies it sets win, its rules follow. `-I` lines keep
 * their insert semantics.
 */
export function mergeIptablesSave(first: string, second: string): string {
  if (!second.trim()) return first;
  if (!first.trim()) return second;
  const a = sections(first);
  const b = sections(second);
  const merged: Section[] = a.map((s) => ({
    name: s.name,
    chains: [...s.chains],
    rules: [...s.rules],
  }));
  for (const s of b) {
    const t = merged.find((x) => x.name === s.name);
    if (!t) {
      merged.push({ name: s.name, chains: [...s.chains], rules: [...s.rules] });
      continue;
    }
    for (const c of s.chains) {
      const name = c.slice(1).split(/\s+/)[0];
      const i = t.chains.findIndex((x) => x.slice(1).split(/\s+/)[0] === name);
      if (i < 0) t.chains.push(c);
      else if (!c.includes(' - ')) t.chains[i] = c;
    }
    t.rules.push(...s.rules);
  }
  return `${merged.map((s) => [`*${s.name}`, ...s.chains, ...s.rules, 'COMMIT'].join('\n')).join('\n')}\n`;
}
