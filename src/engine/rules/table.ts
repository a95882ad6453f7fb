/**
 * A table as the reader builds it: its chains, and per rule the numbers every rule has (line,
 * position, where its text is in the input, target column, flags) in one Int32Array instead of
 * fields of an object. A 130k-rule dump kept 45 MB of rule, chain and array objects alive while
 * it was read, and copying them from the young generation was half the parse time; these columns
 * are never scanned by the collector.
 *
 * A chain's rules are linked by rule id while the table is read (`-I` inserts, `-F`/`-X` remove)
 * and become its `rules` array, of exactly their number, when the table is closed.
 */
import { HeaderStore } from './header.ts';
import type { TargetOp } from './target-op.ts';
import { BUILTIN_CHAINS, type Chain, type Rule, type Table, type TableName } from './types.ts';

/** Int32s per rule. */
const COLS = 6;
const LINE = 0;
const INDEX = 1;
const TEXT_START = 2;
const TEXT_END = 3;
/** Target column << FLAG_BITS | flags. */
const INFO = 4;
const NEXT = 5;

const F_JUMP = 1;
const F_GOTO = 2;
const F_STATEFUL = 4;
const F_REMOVED = 8;
/** The rule has a probability (a statistic match), in `probs`. */
const F_PROB = 16;
/** Bits of INFO below the target column. */
const FLAG_BITS = 5;
/** The flags `setTarget` leaves as they are. */
const KEEP = F_REMOVED | F_PROB;

/**
 * A chain's rules until its table is closed (link gives it its own array): one empty array for
 * all, frozen so that nothing adds to it, instead of 50,000 arrays for a kube-proxy dump's chains.
 */
const NO_RULES: Rule[] = Object.freeze([]) as unknown as Rule[];

/**
 * The list of a chain whose rules array is made when first read (TableRec.close): only the
 * chains a packet or the rules view reaches need one, and a 10,000-Service dump's 50,000 arrays
 * were ~4 MB the collector copied twice while the parse ran.
 */
const UNLINKED: Rule[] = Object.freeze([]) as unknown as Rule[];

export class ChainRec implements Chain {
  private list: Rule[] = NO_RULES;
  /**
   * A deferred chain's rule lines not compiled yet, three numbers each (where the line starts in
   * the text, its number, its length): compiled, all at once, when the rules are first read (see
   * ParseOptions.deferChains). Null for a chain compiled as it was read.
   */
  deferred: number[] | null = null;
  /**
   * Compiles the deferred lines (set by the reader of a table with deferred chains), or, for a
   * chain not linked yet (`linkLater`), makes its rules array.
   */
  compileDeferred: ((chain: ChainRec) => void) | null = null;
  /** Position among the table's chains once it is closed (validate.ts); -1 when deleted. */
  id = -1;
  /** First and last rule id of the chain while the table is read; -1 when it has none. */
  head = -1;
  tail = -1;
  count = 0;
  private jumpOp: TargetOp | null = null;
  private gotoOp: TargetOp | null = null;

  constructor(
    readonly name: string,
    readonly builtin: boolean,
    readonly declared: boolean,
    public policy: 'ACCEPT' | 'DROP' | null,
    public policyText: string,
    public counters: string,
    readonly line: number,
  ) {}

  get rules(): Rule[] {
    if (this.deferred !== null || this.list === UNLINKED)
      (this.compileDeferred as (chain: ChainRec) => void)(this);
    return this.list;
  }

  /** Whether the chain's rules are still only in its table's links (see `linkLater`). */
  get unlinked(): boolean {
    return this.list === UNLINKED;
  }

  /** The rules array is made by `link` when `rules` is first read. */
  linkLater(link: (chain: ChainRec) => void): void {
    this.list = UNLINKED;
    this.compileDeferred = link;
  }

  set rules(rules: Rule[]) {
    this.list = rules;
  }

  /** `-j` to this chain: one operation shared by every rule that jumps here. */
  jump(): TargetOp {
    return (this.jumpOp ??= { kind: 'jump', chain: this });
  }

  goto(): TargetOp {
    return (this.gotoOp ??= { kind: 'goto', chain: this });
  }
}

/** What a rule has beyond its matches and target, by rule id; see the file comment. */
export class RuleColumns {
  private data: Int32Array;
  /** Each rule's probability, where its INFO has F_PROB (allocated with the first one). */
  private probs: Float64Array | null = null;
  /** Texts that are not a line of the input as it is (a rewritten or non-canonical rule). */
  private readonly texts = new Map<number, string>();
  private readonly counterTexts = new Map<number, string>();
  removed = 0;

  constructor(
    readonly table: TableName,
    /** The whole text the table was read from: a rule's text is a part of it. */
    readonly source: string,
    capacity = 256,
  ) {
    this.data = new Int32Array(COLS * Math.max(capacity, 256));
  }

  /** Writes rule `id`'s columns (again, when the previous rule with this id did not compile). */
  set(
    id: number,
    line: number,
    index: number,
    start: number,
    end: number,
    text: string | null,
    counters: string | null,
  ): void {
    const at = id * COLS;
    if (at + COLS > this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const d = this.data;
    d[at + LINE] = line;
    d[at + INDEX] = index;
    d[at + TEXT_START] = start;
    d[at + TEXT_END] = end;
    d[at + INFO] = 0;
    d[at + NEXT] = -1;
    // Usually both null and both maps empty: no map operation per rule.
    if (text !== null) this.texts.set(id, text);
    else if (this.texts.size) this.texts.delete(id);
    if (counters !== null) this.counterTexts.set(id, counters);
    else if (this.counterTexts.size) this.counterTexts.delete(id);
  }

  /** The target's column and `-j`/`-g`, once the rule compiled. */
  setTarget(id: number, column: number, via: '-j' | '-g' | null, stateful: boolean): void {
    const flags = (via === '-j' ? F_JUMP : via === '-g' ? F_GOTO : 0) | (stateful ? F_STATEFUL : 0);
    const at = id * COLS + INFO;
    this.data[at] = (column << FLAG_BITS) | flags | ((this.data[at] as number) & KEEP);
  }

  probability(id: number): number | null {
    const probs = this.probs;
    return probs !== null && ((this.data[id * COLS + INFO] as number) & F_PROB) !== 0
      ? (probs[id] as number)
      : null;
  }

  setProbability(id: number, p: number | null): void {
    const at = id * COLS + INFO;
    const info = this.data[at] as number;
    if (p === null) {
      this.data[at] = info & ~F_PROB;
      return;
    }
    const rows = this.data.length / COLS;
    if (this.probs === null || this.probs.length < rows) {
      const bigger = new Float64Array(rows);
      if (this.probs !== null) bigger.set(this.probs);
      this.probs = bigger;
    }
    this.probs[id] = p;
    this.data[at] = info | F_PROB;
  }

  line(id: number): number {
    return this.data[id * COLS + LINE] as number;
  }

  index(id: number): number {
    return this.data[id * COLS + INDEX] as number;
  }

  setIndex(id: number, index: number): void {
    this.data[id * COLS + INDEX] = index;
  }

  text(id: number): string {
    const at = id * COLS;
    return (
      this.texts.get(id) ??
      this.source.slice(this.data[at + TEXT_START] as number, this.data[at + TEXT_END] as number)
    );
  }

  counters(id: number): string | null {
    return this.counterTexts.size ? (this.counterTexts.get(id) ?? null) : null;
  }

  targetColumn(id: number): number {
    return (this.data[id * COLS + INFO] as number) >> FLAG_BITS;
  }

  via(id: number): '-j' | '-g' | null {
    const f = this.data[id * COLS + INFO] as number;
    return f & F_JUMP ? '-j' : f & F_GOTO ? '-g' : null;
  }

  stateful(id: number): boolean {
    return ((this.data[id * COLS + INFO] as number) & F_STATEFUL) !== 0;
  }

  next(id: number): number {
    return this.data[id * COLS + NEXT] as number;
  }

  setNext(id: number, next: number): void {
    this.data[id * COLS + NEXT] = next;
  }

  /** Marks a rule flushed or deleted with its chain: it leaves the table's rule order. */
  remove(id: number): void {
    this.data[id * COLS + INFO] = (this.data[id * COLS + INFO] as number) | F_REMOVED;
    this.removed++;
  }

  isRemoved(id: number): boolean {
    return ((this.data[id * COLS + INFO] as number) & F_REMOVED) !== 0;
  }
}

export class TableRec implements Table {
  readonly headers: HeaderStore;
  readonly cols: RuleColumns;
  readonly chains = new Map<string, ChainRec>();
  readonly chainOrder: string[] = [];
  /**
   * Every rule read, by id, until the table is closed; then the rules in file order (a table
   * with deferred chains keeps them by id: ruleOrder sorts them).
   */
  readonly byId: Rule[] = [];
  /** Chains whose rules are compiled when first read (ParseOptions.deferChains). */
  readonly deferredChains: ChainRec[] = [];
  /** Rules were compiled out of the text's order (deferred chains): ruleOrder sorts them. */
  outOfOrder = false;
  /** COMMIT (or where it should have been) was read: chains compiled now are linked at once. */
  closed = false;

  constructor(
    readonly name: TableName,
    readonly line: number,
    family: 4 | 6,
    source: string,
    /** How many rules the table may get: its columns are made that long at once. */
    capacity = 0,
  ) {
    this.headers = new HeaderStore(family, capacity);
    this.cols = new RuleColumns(name, source, capacity);
  }

  /** Rules in file order, for serialization: every deferred chain is compiled first. */
  get ruleOrder(): Rule[] {
    for (const chain of this.deferredChains) void chain.rules;
    if (this.outOfOrder) {
      this.byId.sort((a, b) => a.line - b.line);
      this.outOfOrder = false;
    }
    return this.byId;
  }

  /** Puts rule `id` at 0-based position `at` of `chain` (the end when `at` is its length). */
  place(chain: ChainRec, id: number, at: number): void {
    const cols = this.cols;
    if (at >= chain.count) {
      if (chain.tail >= 0) cols.setNext(chain.tail, id);
      else chain.head = id;
      chain.tail = id;
    } else if (at === 0) {
      cols.setNext(id, chain.head);
      chain.head = id;
    } else {
      let prev = chain.head;
      for (let k = 1; k < at; k++) prev = cols.next(prev);
      cols.setNext(id, cols.next(prev));
      cols.setNext(prev, id);
    }
    chain.count++;
  }

  /** `-F`: the chain's rules leave the table. */
  flush(chain: ChainRec): void {
    for (let id = chain.head; id >= 0; id = this.cols.next(id)) this.cols.remove(id);
    chain.head = chain.tail = -1;
    chain.count = 0;
  }

  /** `-X` of a user chain. */
  deleteChain(chain: ChainRec): void {
    this.flush(chain);
    this.chains.delete(chain.name);
    this.chainOrder.splice(this.chainOrder.indexOf(chain.name), 1);
  }

  /**
   * The end of the table (COMMIT, or where it should have been): the built-in chains it did not
   * declare (ACCEPT policy), each chain's rules as an array, positions counted, rule order
   * without the rules that were flushed.
   */
  close(): void {
    this.closed = true;
    for (const hook of BUILTIN_CHAINS[this.name]) {
      if (this.chains.has(hook)) continue;
      this.chains.set(
        hook,
        new ChainRec(hook, true, false, 'ACCEPT', 'ACCEPT', '[0:0]', this.line),
      );
    }
    const cols = this.cols;
    const all = this.byId;
    // Rule ids index `byId` while no rule was removed and no deferred chain may sort it
    // (ruleOrder): then a chain's array can wait until it is read.
    const later = cols.removed === 0 && this.deferredChains.length === 0;
    const link = (chain: ChainRec) => this.link(chain);
    let chainId = 0;
    // forEach, not `for...of`: run once per table, unoptimized, the iterator made a result object
    // per chain (50,000 for a 10,000-Service dump).
    this.chains.forEach((chain) => {
      chain.id = chainId++;
      if (chain.deferred !== null) return;
      if (later && chain.count > 0) chain.linkLater(link);
      else this.link(chain);
    });
    if (cols.removed === 0) return;
    // A table with deferred chains never removes rules (the reader compiles them at -F or -X).
    let kept = 0;
    for (let id = 0; id < all.length; id++) if (!cols.isRemoved(id)) all[kept++] = all[id] as Rule;
    all.length = kept;
  }

  /**
   * Visits a chain's rules in order without making its array: from the links while it is not
   * linked (validation reads every chain; a packet only a few).
   */
  eachRule(chain: ChainRec, visit: (rule: Rule) => void): void {
    if (!chain.unlinked) {
      const list = chain.rules;
      for (let k = 0; k < list.length; k++) visit(list[k] as Rule);
      return;
    }
    const cols = this.cols;
    const all = this.byId;
    for (let id = chain.head; id >= 0; id = cols.next(id)) visit(all[id] as Rule);
  }

  /** A chain's rules as an array, from the links, their positions counted. */
  link(chain: ChainRec): void {
    const cols = this.cols;
    const all = this.byId;
    // Of exactly its length (a pushed-to array has room for 17 from its first rule), but
    // not so long that V8 would make it a dictionary.
    const rules: Rule[] = chain.count <= 16384 ? new Array<Rule>(chain.count) : [];
    let k = 0;
    for (let id = chain.head; id >= 0; id = cols.next(id)) {
      cols.setIndex(id, k + 1);
      rules[k++] = all[id] as Rule;
    }
    chain.rules = rules;
  }
}
