/** Parses iptables-save / iptables-restore text into a Ruleset. Errors are returned, never thrown. */
import { lookupTarget } from './extensions.ts';
import { parseRuleBody } from './parse-rule.ts';
import { TextRule } from './rule.ts';
import { tokenizeLine } from './tokenize.ts';
import {
  BUILTIN_CHAINS,
  TABLES,
  type Chain,
  type Diagnostic,
  type Rule,
  type Ruleset,
  type Table,
  type TableName,
} from './types.ts';
import { validateRule, validateTable } from './validate.ts';

export interface ParseResult {
  readonly ruleset: Ruleset;
  readonly diagnostics: Diagnostic[];
  /** False when any diagnostic is an error; the ruleset then holds what could be read. */
  readonly ok: boolean;
}

export interface ParseOptions {
  readonly family?: 4 | 6;
}

const CHAIN_NAME = /^[^\s!-][^\s]{0,28}$/;

export function emptyRuleset(family: 4 | 6 = 4): Ruleset {
  return { family, tables: new Map(), headerComments: new Map(), trailingComments: [] };
}

export function newTable(name: TableName, line: number): Table {
  return { name, line, chains: new Map(), chainOrder: [], ruleOrder: [] };
}

/** Adds the built-in chains a table always has (ACCEPT policy) that the dump did not declare. */
function addImplicitBuiltins(table: Table): void {
  for (const hook of BUILTIN_CHAINS[table.name]) {
    if (table.chains.has(hook)) continue;
    table.chains.set(hook, {
      name: hook,
      builtin: true,
      declared: false,
      policy: 'ACCEPT',
      policyText: 'ACCEPT',
      counters: '[0:0]',
      line: table.line,
      rules: [],
    });
  }
}

export function parseRuleset(text: string, options: ParseOptions = {}): ParseResult {
  const ruleset = emptyRuleset(options.family ?? 4);
  const diagnostics: Diagnostic[] = [];
  const error = (line: number, column: number, message: string, hint?: string) =>
    diagnostics.push(
      hint === undefined
        ? { severity: 'error', line, column, message }
        : { severity: 'error', line, column, message, hint },
    );
  let table: Table | null = null;
  let pendingComments: string[] = [];
  // Lines are walked with indexOf and sliced, not split: slices share the input's memory.
  let pos = 0;
  let lineCount = 0;
  for (let ln = 0; pos <= text.length; ln++) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const raw = text.slice(pos, end);
    pos = nl + 1;
    lineCount = ln + 1;
    const lineNo = ln + 1;
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      pendingComments.push(trimmed);
      continue;
    }
    const indent = raw.length - raw.trimStart().length;
    if (trimmed.startsWith('*')) {
      const name = trimmed.slice(1).trim();
      if (table) {
        error(
          lineNo,
          1,
          `table ${table.name} (line ${table.line}) has no COMMIT before *${name}`,
          'Add a COMMIT line to close it.',
        );
        finishTable(table);
      }
      if (!(TABLES as readonly string[]).includes(name)) {
        error(lineNo, indent + 2, `unknown table '${name}'`, `Tables are ${TABLES.join(', ')}.`);
        table = null;
        continue;
      }
      const tname = name as TableName;
      if (ruleset.tables.has(tname)) {
        error(lineNo, indent + 1, `table ${tname} appears twice`, 'Merge both sections into one.');
      }
      table = newTable(tname, lineNo);
      ruleset.tables.set(tname, table);
      ruleset.headerComments.set(tname, pendingComments);
      pendingComments = [];
      continue;
    }
    if (trimmed === 'COMMIT') {
      if (!table)
        error(
          lineNo,
          indent + 1,
          'COMMIT outside of a table',
          'Start a table with a line such as *filter.',
        );
      else finishTable(table);
      table = null;
      continue;
    }
    if (!table) {
      error(
        lineNo,
        indent + 1,
        'line outside of a table',
        'Start a table first, for example *nat, and end it with COMMIT.',
      );
      continue;
    }
    if (trimmed.startsWith(':')) {
      parseChainLine(table, trimmed, lineNo, indent, error);
      continue;
    }
    const tk = tokenizeLine(raw);
    if (!tk.ok) {
      error(lineNo, tk.column, tk.message, 'Close the quote with a matching ".');
      continue;
    }
    let k0 = 0;
    let counters: string | null = null;
    const firstWord = tk.words[0];
    if (
      firstWord !== undefined &&
      firstWord.charCodeAt(0) === 91 &&
      /^\[\d+:\d+\]$/.test(firstWord)
    ) {
      counters = firstWord;
      k0 = 1;
    }
    const c = tk.words[k0];
    if (c === undefined) continue;
    const cmdCol = tk.cols[k0] as number;
    const chainName = tk.words[k0 + 1];
    const chainCol = tk.cols[k0 + 1] ?? cmdCol;
    const needsChain = (): Chain | null => {
      if (chainName === undefined) {
        error(lineNo, cmdCol, `${c} needs a chain name`);
        return null;
      }
      const chain = table?.chains.get(chainName);
      if (!chain) {
        error(
          lineNo,
          chainCol,
          `chain '${chainName}' does not exist in table ${table?.name}`,
          `Declare it first with a line ':${chainName} - [0:0]'.`,
        );
        return null;
      }
      return chain;
    };
    if (c === '-A' || c === '--append' || c === '-I' || c === '--insert') {
      const chain = needsChain();
      if (!chain) continue;
      let from = k0 + 2;
      let at = chain.rules.length;
      const posWord = tk.words[from];
      if ((c === '-I' || c === '--insert') && posWord !== undefined && /^\d+$/.test(posWord)) {
        at = Math.min(Number(posWord) - 1, chain.rules.length);
        from++;
      } else if (c === '-I' || c === '--insert') at = 0;
      const body = parseRuleBody(tk, from, lineNo, false);
      if (body.diagnostics.length) {
        diagnostics.push(...body.diagnostics);
        if (body.diagnostics.some((d) => d.severity === 'error')) continue;
      }
      // The usual iptables-save line already is canonical: keep it (a slice of the input, no copy).
      const text =
        body.canonical && c === '-A' && k0 === 0
          ? raw
          : (() => {
              const words = parseRuleBody(tk, from, lineNo, true).body;
              return words ? `-A ${chain.name} ${words}` : `-A ${chain.name}`;
            })();
      const rule = new TextRule(
        table.name,
        chain.name,
        at + 1,
        lineNo,
        text,
        counters ?? body.counters,
        body,
      );
      const invalid = validateRule(rule, body, table, ruleset.family, userChains(table));
      if (invalid) {
        diagnostics.push(invalid);
        continue;
      }
      if (rule.targetName !== null && userChains(table).has(rule.targetName)) {
        rule.jumpTo = table.chains.get(rule.targetName) ?? null;
      }
      if (at === chain.rules.length) chain.rules.push(rule);
      else {
        chain.rules.splice(at, 0, rule);
        chain.rules.forEach((r, k) => (r.index = k + 1));
      }
      table.ruleOrder.push(rule);
      continue;
    }
    if (c === '-N' || c === '--new-chain') {
      if (chainName === undefined) error(lineNo, cmdCol, '-N needs a chain name');
      else declareChain(table, chainName, '-', '[0:0]', lineNo, chainCol, error);
      continue;
    }
    if (c === '-F' || c === '--flush') {
      const chains = chainName !== undefined ? [needsChain()] : [...table.chains.values()];
      for (const ch of chains) {
        if (!ch) continue;
        const gone = new Set(ch.rules);
        ch.rules = [];
        removeFromOrder(table, gone);
      }
      continue;
    }
    if (c === '-X' || c === '--delete-chain') {
      const ch = chainName !== undefined ? needsChain() : null;
      if (ch) {
        if (ch.builtin) error(lineNo, chainCol, `cannot delete built-in chain ${ch.name}`);
        else {
          table.chains.delete(ch.name);
          userChains(table).delete(ch.name);
          table.chainOrder.splice(table.chainOrder.indexOf(ch.name), 1);
          removeFromOrder(table, new Set(ch.rules));
        }
      }
      continue;
    }
    if (c === '-P' || c === '--policy') {
      const ch = needsChain();
      const pol = tk.words[k0 + 2];
      if (ch && (pol === 'ACCEPT' || pol === 'DROP') && ch.builtin) {
        ch.policy = pol;
        ch.policyText = pol;
      } else if (ch)
        error(
          lineNo,
          tk.cols[k0 + 2] ?? cmdCol,
          'policy must be ACCEPT or DROP on a built-in chain',
        );
      continue;
    }
    error(
      lineNo,
      cmdCol,
      `unknown command '${c}'`,
      'Rule lines start with -A CHAIN; chain lines with :CHAIN POLICY [0:0].',
    );
  }
  if (table) {
    error(
      lineCount,
      1,
      `table ${table.name} (line ${table.line}) is missing COMMIT`,
      'Add a COMMIT line at the end of the table.',
    );
    finishTable(table);
  }
  ruleset.trailingComments.push(...pendingComments);
  for (const t of ruleset.tables.values()) diagnostics.push(...validateTable(t));
  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ruleset, diagnostics, ok: !diagnostics.some((d) => d.severity === 'error') };

  function finishTable(t: Table): void {
    addImplicitBuiltins(t);
  }
}

const liveUserChains = new WeakMap<Table, Set<string>>();

/** The user chains declared so far in a table being read. */
function userChains(table: Table): Set<string> {
  let s = liveUserChains.get(table);
  if (!s) liveUserChains.set(table, (s = new Set()));
  return s;
}

function removeFromOrder(table: Table, gone: Set<Rule>): void {
  const kept = table.ruleOrder.filter((r) => !gone.has(r));
  table.ruleOrder.length = 0;
  table.ruleOrder.push(...kept);
}

type ErrorFn = (line: number, column: number, message: string, hint?: string) => void;

function parseChainLine(
  table: Table,
  trimmed: string,
  lineNo: number,
  indent: number,
  error: ErrorFn,
): void {
  const tk = tokenizeLine(trimmed.slice(1));
  if (!tk.ok || tk.words.length === 0) {
    error(lineNo, indent + 1, 'chain line needs a name', 'For example :KUBE-SERVICES - [0:0]');
    return;
  }
  const [name, policy = '-', counters = '[0:0]'] = tk.words;
  if (name === undefined) return;
  declareChain(table, name, policy, counters, lineNo, indent + 1 + (tk.cols[0] as number), error);
}

function declareChain(
  table: Table,
  name: string,
  policy: string,
  counters: string,
  lineNo: number,
  column: number,
  error: ErrorFn,
): void {
  const builtin =
    name.length <= 11 && (BUILTIN_CHAINS[table.name] as readonly string[]).includes(name);
  if (!builtin && !CHAIN_NAME.test(name)) {
    error(
      lineNo,
      column,
      `invalid chain name '${name}'`,
      'Chain names are at most 28 characters, without spaces, not starting with - or !.',
    );
    return;
  }
  if (!builtin && lookupTarget(name)) {
    error(lineNo, column, `chain name '${name}' is the name of a target`, 'Choose another name.');
    return;
  }
  if (table.chains.has(name)) {
    error(lineNo, column, `chain ${name} is declared twice in table ${table.name}`);
    return;
  }
  // For a built-in chain, `-` keeps the current policy (iptables-restore), which is ACCEPT on a fresh table.
  if (builtin && policy !== 'ACCEPT' && policy !== 'DROP' && policy !== '-') {
    error(lineNo, column, `built-in chain ${name} needs a policy ACCEPT or DROP, not '${policy}'`);
    return;
  }
  if (!builtin && policy !== '-') {
    error(
      lineNo,
      column,
      `user chain ${name} cannot have a policy ('${policy}')`,
      'Write - instead.',
    );
    return;
  }
  if (!builtin) userChains(table).add(name);
  table.chains.set(name, {
    name,
    builtin,
    declared: true,
    policy: builtin ? (policy === 'DROP' ? 'DROP' : 'ACCEPT') : null,
    policyText: policy,
    counters,
    line: lineNo,
    rules: [],
  });
  table.chainOrder.push(name);
}
