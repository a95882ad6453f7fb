/**
 * kube-proxy's test helper `sortIPTablesRules` (pkg/proxy/iptables/proxier_test.go, with
 * `IPTablesDump.String` of pkg/util/iptables/testing/parse.go): puts restore input into the
 * order the tests' expected dumps are written in, so that Service (Go map) order does not matter.
 * Tables by name; chains KUBE-NODEPORTS, KUBE-SERVICES, other KUBE-* alphabetically, then the
 * rest alphabetically; rules grouped by chain; KUBE-NODEPORTS and KUBE-SERVICES rules stably
 * sorted by the service name in their comment (the nodeports tail rule of nat KUBE-SERVICES
 * last); all other chains keep their rule order. Chain counters are printed as `[0:0]`.
 */

interface DumpChain {
  readonly name: string;
  readonly rules: string[];
  deleted: boolean;
}

interface DumpTable {
  readonly name: string;
  readonly chains: DumpChain[];
}

/** The value of `--comment` (quotes removed), or null. */
export function ruleComment(rule: string): string | null {
  const i = rule.indexOf('--comment ');
  if (i < 0) return null;
  const rest = rule.slice(i + '--comment '.length);
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    return end < 0 ? rest.slice(1) : rest.slice(1, end);
  }
  const sp = rest.indexOf(' ');
  return sp < 0 ? rest : rest.slice(0, sp);
}

/** orderByCommentServiceName: the comment up to the first space or colon. */
function serviceOf(rule: string): string | null {
  const c = ruleComment(rule);
  if (c === null) return null;
  const m = /[ :]/.exec(c);
  return m ? c.slice(0, m.index) : c;
}

function byServiceName(a: string, b: string): number {
  const x = serviceOf(a);
  const y = serviceOf(b);
  // Go's comparator reports "not less" when either rule has no comment: keep their order.
  if (x === null || y === null) return 0;
  return x < y ? -1 : x > y ? 1 : 0;
}

function chainOrder(a: DumpChain, b: DumpChain): number {
  const rank = (n: string) =>
    n === 'KUBE-NODEPORTS' ? 0 : n === 'KUBE-SERVICES' ? 1 : n.startsWith('KUBE-') ? 2 : 3;
  const d = rank(a.name) - rank(b.name);
  if (d !== 0) return d;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function parseDump(text: string): DumpTable[] {
  const tables: DumpTable[] = [];
  let table: DumpTable | null = null;
  const chain = (name: string): DumpChain => {
    if (!table) throw new Error(`rule outside a table: ${name}`);
    let c = table.chains.find((x) => x.name === name);
    if (!c) table.chains.push((c = { name, rules: [], deleted: false }));
    return c;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('*')) tables.push((table = { name: line.slice(1), chains: [] }));
    else if (line === 'COMMIT') table = null;
    else if (line.startsWith(':')) chain(line.slice(1).split(' ')[0] as string);
    else if (line.startsWith('-A ')) chain(line.split(' ')[1] as string).rules.push(line);
    else if (line.startsWith('-X ')) chain(line.slice(3).trim()).deleted = true;
    else throw new Error(`cannot parse dump line: ${line}`);
  }
  return tables;
}

export function sortIptablesRules(text: string): string {
  const tables = parseDump(text).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let out = '';
  for (const t of tables) {
    t.chains.sort(chainOrder);
    for (const c of t.chains) {
      if (c.name === 'KUBE-NODEPORTS') c.rules.sort(byServiceName);
      if (c.name === 'KUBE-SERVICES') {
        const last = (r: string) => (ruleComment(r) ?? '').includes('must be the last rule');
        c.rules.sort((a, b) => (last(a) ? 1 : 0) - (last(b) ? 1 : 0) || byServiceName(a, b));
      }
    }
    out += `*${t.name}\n`;
    for (const c of t.chains) out += `:${c.name} - [0:0]\n`;
    for (const c of t.chains) for (const r of c.rules) out += `${r}\n`;
    for (const c of t.chains) if (c.deleted) out += `-X ${c.name}\n`;
    out += 'COMMIT\n';
  }
  return out;
}
