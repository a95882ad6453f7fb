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
  /** Its rules: how many, and the first and last in the rule records (linked by NEXT). */
  count: number;
  head: number;
  tail: number;
  hit: boolean;
}

/** Per rule, in one Int32Array: its line number, its text's start and end, the chain's next rule. */
const REC = 4;
const LINE = 0;
const START = 1;
const END = 2;
const NEXT = 3;

/** The rule records of one digest: grown by doubling, never scanned by the collector. */
class Records {
  data = new Int32Array(REC * 1024);
  count = 0;

  add(chain: ChainAcc, line: number, start: number, end: number): void {
    const at = this.count++ * REC;
    if (at + REC > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const d = this.data;
    d[at + LINE] = line;
    d[at + START] = start;
    d[at + END] = end;
    d[at + NEXT] = -1;
    if (chain.tail >= 0) d[chain.tail * REC + NEXT] = at / REC;
    else chain.head = at / REC;
    chain.tail = at / REC;
    chain.count++;
  }
}

const newChain = (name: string, policy: string, line: number): ChainAcc => ({
  name,
  policy,
  line,
  count: 0,
  head: -1,
  tail: -1,
  hit: false,
});

/** The first two words of `text[from, to)` (a chain line after its `:`): name and policy. */
function chainWords(text: string, from: number, to: number): [string, string] {
  const line = text.slice(from, to).trim();
  const sp = line.search(/\s/);
  if (sp < 0) return [line, '-'];
  const rest = line.slice(sp).trimStart();
  const sp2 = rest.search(/\s/);
  return [line.slice(0, sp), (sp2 < 0 ? rest : rest.slice(0, sp2)) || '-'];
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
  const recs = new Records();
  let start = 0;
  for (let line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let a = start;
    while (a < end && (text.charCodeAt(a) === 32 || text.charCodeAt(a) === 9)) a++;
    const c = text.charCodeAt(a);
    const lineStart = a;
    const lineEnd = text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    start = end + 1;
    if (c === 42 /* * */) {
      cur = { name: text.slice(a + 1, lineEnd).trim(), line, chains: [] };
      byName = new Map();
      tables.push(cur);
      continue;
    }
    if (!cur) continue;
    if (c === 58 /* : */) {
      const [name, policy] = chainWords(text, lineStart + 1, lineEnd);
      const chain = newChain(name, policy, line);
      cur.chains.push(chain);
      byName.set(name, chain);
    } else if (
      c === 45 /* - */ &&
      (text.charCodeAt(a + 1) === 65 || text.charCodeAt(a + 1) === 73) /* A, I */ &&
      text.charCodeAt(a + 2) === 32
    ) {
      let sp = text.indexOf(' ', a + 3);
      if (sp < 0 || sp > lineEnd) sp = lineEnd;
      const name = text.slice(a + 3, sp);
      let chain = byName.get(name);
      if (!chain) {
        chain = newChain(name, '-', line);
        cur.chains.push(chain);
        byName.set(name, chain);
      }
      recs.add(chain, line, lineStart, lineEnd);
      if (matched.has(line)) chain.hit = true;
    }
  }
  return tables.map((t) => {
    let others = 0;
    let hidden = 0;
    const chains: ChainView[] = [];
    for (const ch of t.chains) {
      if (ch.count && !ch.hit && others++ >= CHAINS_MAX) {
        hidden++;
        continue;
      }
      chains.push({
        name: ch.name,
        policy: ch.policy,
        line: ch.line,
        count: ch.count,
        rules: keptRules(text, ch, recs.data, matched),
      });
    }
    return { name: t.name, line: t.line, chains, hidden };
  });
}

function keptRules(
  text: string,
  ch: ChainAcc,
  d: Int32Array,
  matched: ReadonlySet<number>,
): RuleLine[] {
  const n = ch.count;
  let keep: Uint8Array | null = null;
  if (n > RULES_MAX) {
    keep = new Uint8Array(n);
    keep.fill(1, 0, Math.min(FIRST, n));
    for (let i = 0, r = ch.head; r >= 0; i++, r = d[r * REC + NEXT] as number)
      if (matched.has(d[r * REC + LINE] as number))
        keep.fill(1, Math.max(0, i - AROUND), Math.min(n, i + AROUND + 1));
  }
  const out: RuleLine[] = [];
  for (let i = 0, r = ch.head; r >= 0; i++, r = d[r * REC + NEXT] as number) {
    if (keep && !keep[i]) continue;
    out.push({
      line: d[r * REC + LINE] as number,
      index: i,
      text: text.slice(d[r * REC + START], d[r * REC + END]).trim(),
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
