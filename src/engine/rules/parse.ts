/**
 * Parses iptables-save / iptables-restore text into a Ruleset of compiled rules, in one pass
 * over the text: each line is split into words once, and its rule compiled and checked as it is
 * read (iptables-restore does the same: a rule it reads is a rule the kernel gets). Errors are
 * returned, never thrown.
 */
import { compileRule, type RulePlace } from './compile.ts';
import { HEADER_STRIDE } from './header.ts';
import { parseRuleBody } from './parse-rule.ts';
import { lookupTarget } from './registry.ts';
import { IPTABLES_WORDS } from './intern.ts';
import { ChainRec, TableRec } from './table.ts';
import {
  CHAIN,
  COMMENT,
  REDO,
  RULE,
  pieceCaches,
  type PieceItem,
  type PieceRecord,
  type RuleItem,
} from './pieces.ts';
import { LineTokens, PlainSpans } from './tokenize.ts';
import { BUILTIN_CHAINS, TABLES, type Diagnostic, type Ruleset, type TableName } from './types.ts';
import { sketchHasProblems, validateTable } from './validate.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface ParseResult {
  readonly ruleset: Ruleset;
  readonly diagnostics: Diagnostic[];
  /** False when any diagnostic is an error; the ruleset then holds what could be read. */
  readonly ok: boolean;
}

export interface ParseOptions {
  readonly family?: 4 | 6;
  /**
   * Reuse what reading the same pieces of text did before (pieces.ts): for rulesets read again
   * and again with small changes, such as a node's generated rules after an edit. The result is
   * the same as without.
   */
  readonly reusePieces?: boolean;
  /**
   * User chains whose `-A` lines are only found when the text is read, and compiled when the
   * chain's rules are first read (a walk reaches the chain, or ruleOrder is asked for): for
   * trusted generated text, such as kube-proxy's 10,000 per-Service chains of which a probe
   * reaches one or two. The rules are the same as without. What differs: the whole-table checks
   * (validate.ts) skip the chains not compiled yet, and a rule of a deferred chain that does not
   * compile throws when the chain is first read after the parse instead of being a diagnostic.
   * Any command but a plain `-A` (-I, -F, -X, -N, -P, counters) compiles the table's deferred
   * chains first and ends deferring in that table.
   */
  readonly deferChains?: (chain: string) => boolean;
}

const CHAIN_NAME = /^[^\s!-][^\s]{0,28}$/;

export function emptyRuleset(family: 4 | 6 = 4): Ruleset {
  return { family, tables: new Map(), headerComments: new Map(), trailingComments: [] };
}

/** What is wrong with a chain line's policy, or null. */
function policyProblem(name: string, builtin: boolean, policy: string): string | null {
  // For a built-in chain, `-` keeps the current policy (iptables-restore): ACCEPT on a fresh table.
  if (builtin && policy !== 'ACCEPT' && policy !== 'DROP' && policy !== '-')
    return `built-in chain ${name} needs a policy ACCEPT or DROP, not '${policy}'`;
  if (!builtin && policy !== '-') return `user chain ${name} cannot have a policy ('${policy}')`;
  return null;
}

/** The reader's state between lines: the open table, its user chains, pending comments. */
class RulesetReader {
  readonly ruleset: Ruleset;
  readonly diagnostics: Diagnostic[] = [];
  private table: TableRec | null = null;
  private pendingComments: string[] = [];
  private readonly tk = new LineTokens(IPTABLES_WORDS);
  private readonly plainSpans: PlainSpans;
  private lineNo = 0;
  /** Where the line being read starts and ends in the text. */
  private lineStart = 0;
  private lineEnd = 0;
  /** The chain the last command named, in its table (namedChain); null after a -X. */
  private lastChain: ChainRec | null = null;
  private lastChainTable: TableRec | null = null;
  /** Where the rule being compiled goes; one object reused for every rule. */
  private readonly place: Mutable<RulePlace>;
  /** While a piece is recorded: what its line did, when it can be replayed (pieces.ts). */
  private recording = false;
  private item: PieceItem | null = null;
  private recLine = 0;
  private recStart = 0;
  private recEnd = 0;
  private rows = new Int32Array(0);
  private rowCount = 0;
  /** `-A` lines of the open table may be deferred (until any other command: ParseOptions.deferChains). */
  private deferOn = true;

  constructor(
    family: 4 | 6,
    /** The whole text: rules keep where their text is in it, not a copy. */
    private readonly source: string,
    private readonly defer: ((chain: string) => boolean) | null = null,
  ) {
    this.ruleset = emptyRuleset(family);
    this.plainSpans = new PlainSpans(source);
    const table = new TableRec('filter', 0, family, source);
    this.place = {
      table,
      chain: new ChainRec('', false, false, null, '-', '', 0),
      family,
      index: 0,
      line: 0,
      textStart: 0,
      textEnd: 0,
      text: null,
      counters: null,
    };
  }

  private error(column: number, message: string, hint?: string, line = this.lineNo): void {
    this.diagnostics.push(
      hint === undefined
        ? { severity: 'error', line, column, message }
        : { severity: 'error', line, column, message, hint },
    );
  }

  /** One line of the file (without its line break), which starts at `start` in the text. */
  line(raw: string, lineNo: number, start: number): void {
    this.lineNo = lineNo;
    this.lineStart = start;
    this.lineEnd = start + raw.length;
    // A line that starts and ends with a printable ASCII character has nothing to trim: no
    // call to trim (the usual line of a dump).
    const c0 = raw.charCodeAt(0);
    const cn = raw.charCodeAt(raw.length - 1);
    const bare = c0 > 32 && c0 < 127 && cn > 32 && cn < 127;
    const trimmed = bare ? raw : raw.trim();
    if (trimmed === '') return;
    const first = trimmed.charCodeAt(0);
    if (first === 35 /* # */) {
      this.pendingComments.push(trimmed);
      return;
    }
    const indent = bare ? 0 : raw.length - raw.trimStart().length;
    if (first === 42 /* * */) return this.openTable(trimmed, indent);
    if (trimmed === 'COMMIT') return this.commit(indent);
    const table = this.table;
    if (!table) {
      this.error(
        indent + 1,
        'line outside of a table',
        'Start a table first, for example *nat, and end it with COMMIT.',
      );
      return;
    }
    if (first === 58 /* : */) return this.chainLine(table, trimmed, indent);
    if (this.defer !== null) {
      if (bare && this.deferred(table, raw)) return;
      // Any other command (-I, -F, -X, counters...) compiles the deferred chains, which it may
      // name, and ends deferring in this table: rule ids stay those of a table without removals.
      const plainAppend = bare && raw.charCodeAt(1) === 65 && raw.charCodeAt(2) === 32;
      if (this.deferOn && !(first === 45 && plainAppend)) this.compileAll(table);
    }
    this.command(table, raw);
  }

  /** Keeps an `-A CHAIN ...` line of a deferred chain for later (ParseOptions.deferChains). */
  private deferred(table: TableRec, raw: string): boolean {
    if (raw.charCodeAt(0) !== 45 || raw.charCodeAt(1) !== 65 || raw.charCodeAt(2) !== 32)
      return false;
    const sp = raw.indexOf(' ', 3);
    const chain = this.namedChain(table, sp < 0 ? raw.slice(3) : raw.slice(3, sp));
    if (!chain || !this.defers(chain)) return false;
    if (chain.deferred === null) {
      chain.deferred = [];
      chain.compileDeferred = table.deferredChains.length
        ? (table.deferredChains[0] as ChainRec).compileDeferred
        : (c) => this.compileAfter(table, c);
      table.deferredChains.push(chain);
    }
    chain.deferred.push(this.lineStart, this.lineNo, raw.length);
    return true;
  }

  /** Whether the chain's `-A` lines are deferred: it is already, or it has no rules and is asked for. */
  private defers(chain: ChainRec): boolean {
    if (chain.deferred !== null) return true;
    const defer = this.defer;
    return (
      defer !== null && this.deferOn && !chain.builtin && chain.count === 0 && defer(chain.name)
    );
  }

  /** Compiles a deferred chain's lines while the text is read: a command other than `-A` needs them. */
  private compileNow(table: TableRec, chain: ChainRec): void {
    const lines = chain.deferred;
    if (lines === null) return;
    chain.deferred = null;
    const { lineNo, lineStart, recording, item } = this;
    this.recording = false;
    for (let k = 0; k < lines.length; k += 3) {
      const start = lines[k] as number;
      this.lineNo = lines[k + 1] as number;
      this.lineStart = start;
      this.command(table, this.source.slice(start, start + (lines[k + 2] as number)));
    }
    table.outOfOrder = true;
    if (table.closed) table.link(chain);
    this.lineNo = lineNo;
    this.lineStart = lineStart;
    this.recording = recording;
    this.item = item;
  }

  /** Every deferred chain of the table compiled, and no more deferred: -F and -X remove rules. */
  private compileAll(table: TableRec): void {
    this.deferOn = false;
    for (const chain of table.deferredChains) this.compileNow(table, chain);
  }

  /**
   * A deferred chain's rules, first read after the parse: compiled and linked. The text was
   * trusted; a rule that does not compile now throws (the parse's result said ok).
   */
  private compileAfter(table: TableRec, chain: ChainRec): void {
    const d0 = this.diagnostics.length;
    this.compileNow(table, chain);
    const bad = this.diagnostics.slice(d0).find((d) => d.severity === 'error');
    this.diagnostics.length = d0;
    if (bad)
      throw new Error(
        `deferred chain ${chain.name}: line ${bad.line}, column ${bad.column}: ${bad.message}`,
      );
  }

  private openTable(trimmed: string, indent: number): void {
    const name = trimmed.slice(1).trim();
    const open = this.table;
    if (open) {
      this.error(
        1,
        `table ${open.name} (line ${open.line}) has no COMMIT before *${name}`,
        'Add a COMMIT line to close it.',
      );
      // A broken text: its deferred rules are read now, to report what is wrong with them too.
      this.compileAll(open);
      open.close();
    }
    this.table = null;
    this.deferOn = true;
    if (!(TABLES as readonly string[]).includes(name)) {
      this.error(indent + 2, `unknown table '${name}'`, `Tables are ${TABLES.join(', ')}.`);
      return;
    }
    const tname = name as TableName;
    const rs = this.ruleset;
    const twice = rs.tables.get(tname);
    if (twice) {
      this.error(indent + 1, `table ${tname} appears twice`, 'Merge both sections into one.');
      // The second replaces it in the ruleset: what its deferred rules have to say is said now.
      this.compileAll(twice as TableRec);
    }
    // Its columns as long as the rest of the text could fill with rules (lines of 64 characters
    // or more, as a dump's are), so that they are not copied as they grow: the memory a
    // typed array does not use yet costs nothing.
    const capacity = Math.min(Math.ceil((this.source.length - this.lineStart) / 64), 1 << 20);
    this.table = new TableRec(tname, this.lineNo, rs.family, this.source, capacity);
    rs.tables.set(tname, this.table);
    rs.headerComments.set(tname, this.pendingComments);
    this.pendingComments = [];
  }

  private commit(indent: number): void {
    if (!this.table)
      this.error(
        indent + 1,
        'COMMIT outside of a table',
        'Start a table with a line such as *filter.',
      );
    else this.table.close();
    this.table = null;
  }

  /** `:NAME POLICY [packets:bytes]` */
  private chainLine(table: TableRec, trimmed: string, indent: number): void {
    const tk = this.tk;
    const plain = this.plainSpans.plain(this.lineStart, this.lineEnd);
    if (!tk.read(trimmed.slice(1), plain) || tk.count === 0) {
      this.error(indent + 1, 'chain line needs a name', 'For example :KUBE-SERVICES - [0:0]');
      return;
    }
    const name = tk.words[0] as string;
    const policy = tk.count > 1 ? (tk.words[1] as string) : '-';
    const counters = tk.count > 2 ? (tk.words[2] as string) : '[0:0]';
    const column = indent + 1 + (tk.cols[0] as number);
    this.declareChain(table, name, policy, counters, column);
    if (this.recording) {
      this.item = {
        kind: CHAIN,
        line: this.recLine,
        start: this.recStart,
        end: this.recEnd,
        name,
        policy,
        counters,
        column,
      };
    }
  }

  private declareChain(
    table: TableRec,
    name: string,
    policy: string,
    counters: string,
    column: number,
  ): void {
    const builtin =
      name.length <= 11 && (BUILTIN_CHAINS[table.name] as readonly string[]).includes(name);
    if (!builtin && !CHAIN_NAME.test(name)) {
      this.error(
        column,
        `invalid chain name '${name}'`,
        'Chain names are at most 28 characters, without spaces, not starting with - or !.',
      );
      return;
    }
    if (!builtin && lookupTarget(name)) {
      this.error(column, `chain name '${name}' is the name of a target`, 'Choose another name.');
      return;
    }
    const chain = new ChainRec(
      name,
      builtin,
      true,
      builtin ? (policy === 'DROP' ? 'DROP' : 'ACCEPT') : null,
      policy,
      counters,
      this.lineNo,
    );
    if (!table.claimName(chain)) {
      this.error(column, `chain ${name} is declared twice in table ${table.name}`);
      return;
    }
    const bad = policyProblem(name, builtin, policy);
    if (bad !== null) {
      table.chains.delete(name);
      this.error(column, bad, builtin ? undefined : 'Write - instead.');
      return;
    }
    table.register(chain);
    table.chainOrder.push(chain.name);
  }

  /** The chain a command names (word `k`), or null with a diagnostic. */
  private chainAt(table: TableRec, k: number): ChainRec | null {
    const tk = this.tk;
    const cmd = tk.words[k - 1] as string;
    const cmdCol = tk.cols[k - 1] as number;
    if (k >= tk.count) {
      this.error(cmdCol, `${cmd} needs a chain name`);
      return null;
    }
    const name = tk.words[k] as string;
    const chain = this.namedChain(table, name);
    if (!chain) {
      this.error(
        tk.cols[k] as number,
        `chain '${name}' does not exist in table ${table.name}`,
        `Declare it first with a line ':${name} - [0:0]'.`,
      );
      return null;
    }
    return chain;
  }

  /**
   * The table's chain of this name. The chain of the line before is remembered: consecutive lines
   * mostly name the same chain (iptables-save writes a chain's rules together, kube-proxy a
   * chain's few rules in a row), and looking a word sliced from the line up in the Map (hashing
   * it, comparing it) cost more than comparing it with one name.
   */
  private namedChain(table: TableRec, name: string): ChainRec | undefined {
    const last = this.lastChain;
    if (last !== null && this.lastChainTable === table && last.name === name) return last;
    const chain = table.chains.get(name);
    if (chain !== undefined) {
      this.lastChain = chain;
      this.lastChainTable = table;
    }
    return chain;
  }

  /** `-A`, `-I`, `-N`, `-F`, `-X`, `-P`, possibly after `[packets:bytes]` counters. */
  private command(table: TableRec, raw: string): void {
    const tk = this.tk;
    const start = this.lineStart;
    if (!tk.read(raw, this.plainSpans.plain(start, start + raw.length))) {
      const e = tk.error as { column: number; message: string };
      this.error(e.column, e.message, 'Close the quote with a matching ".');
      return;
    }
    let k0 = 0;
    let counters: string | null = null;
    const firstWord = tk.count > 0 ? (tk.words[0] as string) : '';
    if (firstWord.charCodeAt(0) === 91 /* [ */ && /^\[\d+:\d+\]$/.test(firstWord)) {
      counters = firstWord;
      k0 = 1;
    }
    if (k0 >= tk.count) return;
    const c = tk.words[k0] as string;
    if (c === '-A' || c === '--append' || c === '-I' || c === '--insert')
      return this.append(table, raw, k0, counters);
    if (c === '-N' || c === '--new-chain') {
      if (k0 + 1 >= tk.count) this.error(tk.cols[k0] as number, '-N needs a chain name');
      else
        this.declareChain(
          table,
          tk.words[k0 + 1] as string,
          '-',
          '[0:0]',
          tk.cols[k0 + 1] as number,
        );
      return;
    }
    if (c === '-F' || c === '--flush') return this.flush(table, k0);
    if (c === '-X' || c === '--delete-chain') return this.deleteChain(table, k0);
    if (c === '-P' || c === '--policy') return this.policy(table, k0);
    this.error(
      tk.cols[k0] as number,
      `unknown command '${c}'`,
      'Rule lines start with -A CHAIN; chain lines with :CHAIN POLICY [0:0].',
    );
  }

  /** `-A CHAIN rule...` or `-I CHAIN [N] rule...`: read, compile and place the rule. */
  private append(table: TableRec, raw: string, k0: number, counters: string | null): void {
    const tk = this.tk;
    const chain = this.chainAt(table, k0 + 1);
    if (!chain) return;
    const c = tk.words[k0] as string;
    const insert = c === '-I' || c === '--insert';
    let from = k0 + 2;
    let at = chain.count;
    const posWord = from < tk.count ? (tk.words[from] as string) : undefined;
    if (insert && posWord !== undefined && /^\d+$/.test(posWord)) {
      // iptables' parse_rulenumber (iptables/xshared.c) takes 1 to INT_MAX.
      if (Number(posWord) < 1) {
        this.error(
          tk.cols[from] as number,
          `invalid rule number '${posWord}'`,
          'Rule numbers start at 1 (-I CHAIN 1 puts the rule first).',
        );
        return;
      }
      at = Math.min(Number(posWord) - 1, chain.count);
      from++;
    } else if (insert) at = 0;
    const body = parseRuleBody(tk, from, this.lineNo);
    if (body.diagnostics.length) {
      this.diagnostics.push(...body.diagnostics);
      if (body.diagnostics.some((d) => d.severity === 'error')) return;
    }
    const place = this.place;
    // The usual iptables-save line already is canonical: the rule's text is where it is in the
    // input (made when asked for), otherwise it is written out now.
    place.text = null;
    if (!(body.canonical && c === '-A' && k0 === 0)) {
      const words = parseRuleBody(tk, from, this.lineNo, true).layout;
      place.text = words ? `-A ${chain.name} ${words}` : `-A ${chain.name}`;
    }
    place.table = table;
    place.chain = chain;
    place.index = at + 1;
    place.line = this.lineNo;
    place.textStart = this.lineStart;
    place.textEnd = this.lineStart + raw.length;
    place.counters = counters ?? body.counters;
    const id = compileRule(body, place);
    if (typeof id !== 'number') {
      this.diagnostics.push(id);
      return;
    }
    table.place(chain, id, at);
    if (this.recording && !insert && !table.cols.stateful(id)) this.recordRule(table, id);
  }

  /** The replayable parts of rule `id`, just compiled (pieces.ts). */
  private recordRule(table: TableRec, id: number): void {
    const name = table.targetNameOf(id);
    const to = name === null ? undefined : table.chains.get(name);
    const toUser = to !== undefined && !to.builtin;
    const row = this.rowCount * HEADER_STRIDE;
    if (row + HEADER_STRIDE > this.rows.length) {
      const bigger = new Int32Array(Math.max(16 * HEADER_STRIDE, 2 * this.rows.length));
      bigger.set(this.rows);
      this.rows = bigger;
    }
    const refs = table.headers.exportRow(id * HEADER_STRIDE, this.rows, row);
    this.rowCount++;
    const cols = table.cols;
    this.item = {
      kind: RULE,
      line: this.recLine,
      start: this.recStart,
      end: this.recEnd,
      chain: table.ownerOf(id).name,
      targetName: name,
      toUser,
      via: cols.via(id),
      targetColumn: cols.targetColumn(id),
      text: this.place.text,
      counters: this.place.counters,
      row,
      refs,
      matches: table.matchesOf(id),
      target: table.targetOf(id),
      probability: cols.probability(id),
    };
  }

  /**
   * A piece of whole lines, `source[start, end)`, its first line numbered `firstLine`: replayed
   * when the cache knows its text (read in a table of this name), read and recorded otherwise.
   */
  piece(start: number, end: number, firstLine: number, cache: (typeof pieceCaches)[4]): void {
    const table = this.table;
    if (table === null) {
      this.readLines(start, end, firstLine, false);
      return;
    }
    const key = this.source.slice(start, end);
    const known = cache.get(key);
    if (known && known.table === table.name) {
      this.replay(table, known, start, firstLine);
      return;
    }
    this.recording = true;
    this.rowCount = 0;
    const items = this.readLines(start, end, firstLine, true);
    this.recording = false;
    cache.set(key, {
      table: table.name,
      lines: items.length,
      items,
      rows: this.rows.slice(0, this.rowCount * HEADER_STRIDE),
      gen: 0,
    });
  }

  /** Reads the lines of `source[start, end)` (each ends with a line break); records them if asked. */
  private readLines(start: number, end: number, firstLine: number, record: boolean): PieceItem[] {
    const src = this.source;
    const items: PieceItem[] = [];
    const table = this.table;
    let pos = start;
    let k = 0;
    while (pos < end) {
      const nl = src.indexOf('\n', pos);
      const e = nl > pos && src.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      const d0 = this.diagnostics.length;
      this.item = null;
      this.recLine = k;
      this.recStart = pos - start;
      this.recEnd = e - start;
      const raw = src.slice(pos, e);
      this.line(raw, firstLine + k, pos);
      if (record) {
        const fine = this.diagnostics.length === d0 && this.table === table;
        const s0 = pos - start;
        const e0 = e - start;
        if (fine && raw.charCodeAt(0) === 35 /* # */) {
          const text = this.pendingComments[this.pendingComments.length - 1] as string;
          items.push({ kind: COMMENT, line: k, start: s0, end: e0, text });
        } else if (fine && this.item) items.push(this.item);
        else items.push({ kind: REDO, line: k, start: s0, end: e0 });
      }
      k++;
      pos = nl + 1;
    }
    this.item = null;
    return items;
  }

  /** Does what reading the piece's lines did (pieces.ts), line by line. */
  private replay(table: TableRec, record: PieceRecord, start: number, firstLine: number): void {
    for (const it of record.items) {
      const lineNo = firstLine + it.line;
      const from = start + it.start;
      if (it.kind === COMMENT) {
        this.pendingComments.push(it.text);
        continue;
      }
      this.lineNo = lineNo;
      this.lineStart = from;
      if (it.kind === CHAIN) this.declareChain(table, it.name, it.policy, it.counters, it.column);
      else if (it.kind !== RULE || !this.replayRule(table, it, record.rows, lineNo, from))
        this.line(this.source.slice(from, start + it.end), lineNo, from);
    }
  }

  /**
   * Places a recorded rule, if what it was compiled against holds: its chain exists, and its
   * target is a user chain exactly when it was one. False when the line must be read anew.
   */
  private replayRule(
    table: TableRec,
    it: RuleItem,
    rows: Int32Array,
    lineNo: number,
    from: number,
  ): boolean {
    const chain = table.chains.get(it.chain);
    if (!chain || this.defers(chain)) return false;
    const name = it.targetName;
    const named = name === null ? undefined : table.chains.get(name);
    const to = named && !named.builtin ? named : undefined;
    if ((to !== undefined) !== it.toUser) return false;
    const headers = table.headers;
    const slot = headers.add();
    headers.importRow(slot, rows, it.row, it.refs);
    const id = slot / HEADER_STRIDE;
    const cols = table.cols;
    const textEnd = from + (it.end - it.start);
    cols.set(id, lineNo, chain.count + 1, from, textEnd, it.text, it.counters);
    table.setRule(id, chain, it.matches, to ?? null, it.via === '-g', it.target, name);
    cols.setProbability(id, it.probability);
    cols.setTarget(id, it.targetColumn, it.via, false);
    table.place(chain, id, chain.count);
    return true;
  }

  private flush(table: TableRec, k0: number): void {
    if (k0 + 1 >= this.tk.count) {
      for (const ch of table.chains.values()) table.flush(ch);
      return;
    }
    const ch = this.chainAt(table, k0 + 1);
    if (ch) table.flush(ch);
  }

  private deleteChain(table: TableRec, k0: number): void {
    const ch = k0 + 1 < this.tk.count ? this.chainAt(table, k0 + 1) : null;
    if (!ch) return;
    if (ch.builtin) {
      this.error(this.tk.cols[k0 + 1] as number, `cannot delete built-in chain ${ch.name}`);
      return;
    }
    table.deleteChain(ch);
    this.lastChain = null;
  }

  private policy(table: TableRec, k0: number): void {
    const tk = this.tk;
    const ch = this.chainAt(table, k0 + 1);
    const pol = k0 + 2 < tk.count ? tk.words[k0 + 2] : undefined;
    if (ch && (pol === 'ACCEPT' || pol === 'DROP') && ch.builtin) {
      ch.policy = pol;
      ch.policyText = pol;
    } else if (ch)
      this.error(
        k0 + 2 < tk.count ? (tk.cols[k0 + 2] as number) : (tk.cols[k0] as number),
        'policy must be ACCEPT or DROP on a built-in chain',
      );
  }

  /** The end of the text: an open table, trailing comments, whole-table checks. */
  finish(lineCount: number): ParseResult {
    const open = this.table;
    if (open) {
      this.error(
        1,
        `table ${open.name} (line ${open.line}) is missing COMMIT`,
        'Add a COMMIT line at the end of the table.',
        lineCount,
      );
      this.compileAll(open);
      open.close();
    }
    const rs = this.ruleset;
    rs.trailingComments.push(...this.pendingComments);
    const diagnostics = this.diagnostics;
    // Every table of the ruleset is one this reader made.
    for (const t of rs.tables.values()) {
      const table = t as TableRec;
      const deferred = table.deferredChains.some((c) => c.deferred !== null);
      // Deferred chains stay so when a sketch of them shows the checks would find nothing.
      if (deferred && !sketchHasProblems(table)) continue;
      if (deferred) this.compileAll(table);
      diagnostics.push(...validateTable(table));
    }
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ruleset: rs, diagnostics, ok: !diagnostics.some((d) => d.severity === 'error') };
  }
}

/** Lines a piece holds at most. */
const PIECE_LINES = 64;

/**
 * Where the piece that starts at `pos` ends (after the line break of its last line), or `pos`
 * when the line there is read on its own: a piece holds lines that start with `-`, `:` or `#`
 * and end with a line break, and ends after a line whose last characters hash to 0 mod 16 (about
 * 16 lines), or after PIECE_LINES. The text decides, not the position: the same lines cut into
 * the same pieces wherever they are.
 */
function pieceEnd(text: string, pos: number): number {
  let p = pos;
  for (let n = 0; n < PIECE_LINES; n++) {
    const c = text.charCodeAt(p);
    if (c !== 45 /* - */ && c !== 58 /* : */ && c !== 35 /* # */) return p;
    const nl = text.indexOf('\n', p);
    if (nl < 0) return p;
    let h = 0;
    for (let k = Math.max(p, nl - 8); k < nl; k++) h = (h * 31 + text.charCodeAt(k)) | 0;
    p = nl + 1;
    if ((h & 15) === 0) return p;
  }
  return p;
}

function parsePieces(reader: RulesetReader, text: string, family: 4 | 6): ParseResult {
  const cache = pieceCaches[family];
  cache.begin();
  let pos = 0;
  let lineCount = 0;
  while (pos <= text.length) {
    const end = pieceEnd(text, pos);
    if (end > pos) {
      reader.piece(pos, end, lineCount + 1, cache);
      for (let k = pos; k < end; k = text.indexOf('\n', k) + 1) lineCount++;
      pos = end;
      continue;
    }
    pos = readLineAt(reader, text, pos, ++lineCount);
  }
  cache.end();
  return reader.finish(lineCount);
}

/** Reads iptables-save text; every problem is a diagnostic with its line and column. */
export function parseRuleset(text: string, options: ParseOptions = {}): ParseResult {
  const family = options.family ?? 4;
  const reader = new RulesetReader(family, text, options.deferChains ?? null);
  if (options.reusePieces) return parsePieces(reader, text, family);
  // Lines are walked with indexOf and sliced, not split: slices share the input's memory.
  let pos = 0;
  let lineCount = 0;
  while (pos <= text.length) pos = readLineAt(reader, text, pos, ++lineCount);
  return reader.finish(lineCount);
}

/** Reads the line at `pos` (without its CR or LF) as line `lineNo`; the next line's offset. */
function readLineAt(reader: RulesetReader, text: string, pos: number, lineNo: number): number {
  let nl = text.indexOf('\n', pos);
  if (nl < 0) nl = text.length;
  const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  reader.line(text.slice(pos, end), lineNo, pos);
  return nl + 1;
}
