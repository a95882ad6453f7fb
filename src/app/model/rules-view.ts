/**
 * What the rules panel shows of a node's iptables-save text: tables, chains, and the rules worth
 * drawing (line numbers kept). The digest is made in the worker, which knows every line the
 * packet can match: a 5,000-Service node's text is 3 MB and 40,000 lines, of which the panel can
 * only ever show a few hundred, and sending (then parsing) the whole text cost the page's main
 * thread 0.3-0.5 s.
 */

export interface RuleLine {
  readonly line: number;
  /** Position of the rule in its chain (0-based): gaps are counted from it. */
  readonly index: number;
  readonly text: string;
}

export interface ChainView {
  readonly name: string;
  /** ACCEPT/DROP for built-in chains, '-' for user chains. */
  readonly policy: string;
  readonly line: number;
  /** How many rules the chain has. */
  readonly count: number;
  /** The rules the panel can show (all of them in a chain of at most RULES_MAX), by index. */
  readonly rules: readonly RuleLine[];
}

export interface TableView {
  readonly name: string;
  readonly line: number;
  /** Empty chains, chains the packet can go through, and the first others, in the text's order. */
  readonly chains: readonly ChainView[];
  /** Chains with rules left out of `chains`. */
  readonly hidden: number;
}

/** Chains drawn at most per table: the ones the packet went through first, then in order. */
export const CHAINS_MAX = 120;
/** A chain longer than this shows its first rules and those near a matched one. */
export const RULES_MAX = 200;
const FIRST = 20;
const AROUND = 25;

interface ChainAcc {
  name: string;
  policy: string;
  line: number;
  /** Per rule: its line number, and its text's start and end in the ruleset. */
  lines: number[];
  starts: number[];
  ends: number[];
  hit: boolean;
}

/**
 * The digest of an iptables-save text for the panel. `matched`: every line any run of the probe
 * matched on this node; whatever the step, the panel draws a subset of what is kept here.
 */
export function digestRules(text: string, matched: ReadonlySet<number>): TableView[] {
  const tables: { name: string; line: number; chains: ChainAcc[] }[] = [];
  let cur: (typeof tables)[number] | null = null;
  // Chains by name per table: a big node has thousands of chains, a scan per rule is quadratic.
  let byName = new Map<string, ChainAcc>();
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let a = start;
    while (a < end && (text[a] === ' ' || text[a] === '\t')) a++;
    const c = text[a];
    const lineStart = a;
    const lineEnd = text[end - 1] === '\r' ? end - 1 : end;
    start = end + 1;
    if (c === '*') {
      cur = { name: text.slice(a + 1, lineEnd).trim(), line, chains: [] };
      byName = new Map();
      tables.push(cur);
      continue;
    }
    if (!cur) continue;
    if (c === ':') {
      const [name = '', policy = '-'] = text
        .slice(lineStart + 1, lineEnd)
        .trim()
        .split(/\s+/);
      const chain: ChainAcc = { name, policy, line, lines: [], starts: [], ends: [], hit: false };
      cur.chains.push(chain);
      byName.set(name, chain);
    } else if (c === '-' && (text[a + 1] === 'A' || text[a + 1] === 'I') && text[a + 2] === ' ') {
      let sp = text.indexOf(' ', a + 3);
      if (sp < 0 || sp > lineEnd) sp = lineEnd;
      const name = text.slice(a + 3, sp);
      let chain = byName.get(name);
      if (!chain) {
        chain = { name, policy: '-', line, lines: [], starts: [], ends: [], hit: false };
        cur.chains.push(chain);
        byName.set(name, chain);
      }
      chain.lines.push(line);
      chain.starts.push(lineStart);
      chain.ends.push(lineEnd);
      if (matched.has(line)) chain.hit = true;
    }
  }
  return tables.map((t) => {
    let others = 0;
    let hidden = 0;
    const chains: ChainView[] = [];
    for (const ch of t.chains) {
      if (ch.lines.length && !ch.hit && others++ >= CHAINS_MAX) {
        hidden++;
        continue;
      }
      chains.push({
        name: ch.name,
        policy: ch.policy,
        line: ch.line,
        count: ch.lines.length,
        rules: keptRules(text, ch, matched),
      });
    }
    return { name: t.name, line: t.line, chains, hidden };
  });
}

function keptRules(text: string, ch: ChainAcc, matched: ReadonlySet<number>): RuleLine[] {
  const n = ch.lines.length;
  let keep: Uint8Array | null = null;
  if (n > RULES_MAX) {
    keep = new Uint8Array(n);
    keep.fill(1, 0, Math.min(FIRST, n));
    for (let i = 0; i < n; i++)
      if (matched.has(ch.lines[i] as number))
        keep.fill(1, Math.max(0, i - AROUND), Math.min(n, i + AROUND + 1));
  }
  const out: RuleLine[] = [];
  for (let i = 0; i < n; i++) {
    if (keep && !keep[i]) continue;
    out.push({
      line: ch.lines[i] as number,
      index: i,
      text: text.slice(ch.starts[i], ch.ends[i]).trim(),
    });
  }
  return out;
}

/** The chains to draw of a table at this step: those the packet went through, then in order. */
export function shownChains(
  chains: readonly ChainView[],
  matched: ReadonlySet<number>,
): ChainView[] {
  const withRules = chains.filter((c) => c.count > 0);
  if (withRules.length <= CHAINS_MAX) return withRules;
  const hit = withRules.filter((c) => c.rules.some((r) => matched.has(r.line)));
  const rest = withRules.filter((c) => !hit.includes(c)).slice(0, CHAINS_MAX - hit.length);
  const keep = new Set([...hit, ...rest]);
  return withRules.filter((c) => keep.has(c));
}

/** Chains with rules the panel does not draw at this step. */
export function hiddenChains(table: TableView): number {
  return table.hidden + Math.max(0, table.chains.filter((c) => c.count > 0).length - CHAINS_MAX);
}

/** Rows of a chain worth drawing: the first few and those near a matched line, gaps between. */
export function visibleRules(
  chain: ChainView,
  keep: ReadonlySet<number>,
): (RuleLine | { gap: number })[] {
  if (chain.count <= RULES_MAX) return [...chain.rules];
  const near: number[] = [];
  for (const r of chain.rules) if (keep.has(r.line)) near.push(r.index);
  const out: (RuleLine | { gap: number })[] = [];
  let next = 0;
  for (const r of chain.rules) {
    const show = r.index < FIRST || near.some((i) => Math.abs(i - r.index) <= AROUND);
    if (!show) continue;
    if (r.index > next) out.push({ gap: r.index - next });
    out.push(r);
    next = r.index + 1;
  }
  if (chain.count > next) out.push({ gap: chain.count - next });
  return out;
}
