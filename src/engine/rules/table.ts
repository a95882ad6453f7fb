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
import type { Matcher, Unsupported } from './extension.ts';
import { HEADER_STRIDE, HeaderStore } from './header.ts';
import { NO_TARGET, jumpTarget, type JumpTarget, type TargetOp } from './target-op.ts';
import { BUILTIN_CHAINS, type Chain, type Rule, type Table, type TableName } from './types.ts';

type Matches = readonly (Matcher | Unsupported)[];

/** Int32s per rule. */
const COLS = 9;
const LINE = 0;
const INDEX = 1;
const TEXT_START = 2;
const TEXT_END = 3;
/** Target column << FLAG_BITS | flags. */
const INFO = 4;
const NEXT = 5;
/** The rule's chain: its `serial` (TableRec.ownerOf). */
const CHAIN = 6;
/**
 * The rule's target: a jump or goto to a user chain is -1 - (serial << 1 | goto), any other
 * target its place in the table's list of them (TableRec.targets).
 */
const TARGET = 7;
/** The rule's matches: their place in the table's list of match lists (TableRec.matchLists). */
const MATCHES = 8;

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

/** A rule without matches beyond its header. */
export const NO_MATCHES: Matches = Object.freeze([]);

/** What a chain's declaration says; user chains share one (see ChainRec). */
interface ChainDecl {
  readonly builtin: boolean;
  readonly declared: boolean;
  readonly policy: 'ACCEPT' | 'DROP' | null;
  readonly policyText: string;
  readonly counters: string;
}

/** The declaration of almost every user chain, `:NAME - [0:0]`. */
const USER_CHAIN: ChainDecl = Object.freeze({
  builtin: false,
  declared: true,
  policy: null,
  policyText: '-',
  counters: '[0:0]',
});

/**
 * A chain of a table. Small, as a 10,000-Service dump has 50,000 of them, kept: what it has in
 * common with most chains (its declaration: USER_CHAIN) is one shared object, where its rules
 * start and end while the table is read is in the table's columns (TableRec.chainCols), and the
 * jump and goto operations to it are made when a walk first takes one.
 */
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
  /** Which chain of its table it is, by creation (TableRec.addChain), kept after a -X. */
  serial = -1;
  count = 0;
  private ops: JumpTarget | null = null;
  private decl: ChainDecl;

  constructor(
    readonly name: string,
    builtin: boolean,
    declared: boolean,
    policy: 'ACCEPT' | 'DROP' | null,
    policyText: string,
    counters: string,
    readonly line: number,
  ) {
    const u = USER_CHAIN;
    this.decl =
      builtin === u.builtin &&
      declared === u.declared &&
      policy === u.policy &&
      policyText === u.policyText &&
      counters === u.counters
        ? u
        : { builtin, declared, policy, policyText, counters };
  }

  get builtin(): boolean {
    return this.decl.builtin;
  }
  get declared(): boolean {
    return this.decl.declared;
  }
  get policy(): 'ACCEPT' | 'DROP' | null {
    return this.decl.policy;
  }
  set policy(policy: 'ACCEPT' | 'DROP' | null) {
    this.decl = { ...this.decl, policy };
  }
  get policyText(): string {
    return this.decl.policyText;
  }
  set policyText(policyText: string) {
    this.decl = { ...this.decl, policyText };
  }
  get counters(): string {
    return this.decl.counters;
  }
  set counters(counters: string) {
    this.decl = { ...this.decl, counters };
  }

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
    return (this.ops ??= jumpTarget(this)).jump;
  }

  goto(): TargetOp {
    return (this.ops ??= jumpTarget(this)).goto;
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

  /** The compiled parts of rule `id`: its chain, target and matches, as numbers (TableRec). */
  setParts(id: number, chain: number, target: number, matches: number): void {
    const at = id * COLS;
    this.data[at + CHAIN] = chain;
    this.data[at + TARGET] = target;
    this.data[at + MATCHES] = matches;
  }

  chain(id: number): number {
    return this.data[id * COLS + CHAIN] as number;
  }

  target(id: number): number {
    return this.data[id * COLS + TARGET] as number;
  }

  matches(id: number): number {
    return this.data[id * COLS + MATCHES] as number;
  }

  /** Marks a rule flushed or deleted with its chain: it leaves the table's rule order. */
  remove(id: number): void {
    this.data[id * COLS + INFO] = (this.data[id * COLS + INFO] as number) | F_REMOVED;
  }

  isRemoved(id: number): boolean {
    return ((this.data[id * COLS + INFO] as number) & F_REMOVED) !== 0;
  }
}

/**
 * A rule of a table, as the walk, the traces and the rules view read it: a view of rule `id` in
 * its table's columns and per-rule arrays, made when it is first asked for (TableRec.rule) and
 * then kept, so one rule is one object. A dump's rules are not objects while it is read: 133k of
 * them, kept, were 9 MB the collector copied twice during a 10,000-Service parse, and a parse
 * that only checks a dump, or a probe that reaches a few chains, never asks for most of them.
 */
export class CompiledRule implements Rule {
  constructor(
    private readonly of: TableRec,
    /** Position among its table's rules as read (its header and columns are there). */
    readonly id: number,
  ) {}

  get matches(): Matches {
    return this.of.matchesOf(this.id);
  }
  get target(): TargetOp {
    return this.of.targetOf(this.id);
  }
  get targetName(): string | null {
    return this.of.targetNameOf(this.id);
  }
  /** Where the rule's header is in its table's HeaderStore. */
  get header(): number {
    return this.id * HEADER_STRIDE;
  }
  get probability(): number | null {
    return this.of.cols.probability(this.id);
  }
  get table(): TableName {
    return this.of.name;
  }
  get chain(): string {
    return this.of.ownerOf(this.id).name;
  }
  get index(): number {
    // Positions are counted when the chain's array is made (TableRec.link): an -I after this
    // rule moved it since it was read.
    void this.of.ownerOf(this.id).rules;
    return this.of.cols.index(this.id);
  }
  set index(i: number) {
    this.of.cols.setIndex(this.id, i);
  }
  get line(): number {
    return this.of.cols.line(this.id);
  }
  get text(): string {
    return this.of.cols.text(this.id);
  }
  get counters(): string | null {
    return this.of.cols.counters(this.id);
  }
  get targetColumn(): number {
    return this.of.cols.targetColumn(this.id);
  }
  get via(): '-j' | '-g' | null {
    return this.of.cols.via(this.id);
  }
  get stateful(): boolean {
    return this.of.cols.stateful(this.id);
  }
}

export class TableRec implements Table {
  readonly headers: HeaderStore;
  readonly cols: RuleColumns;
  readonly chains = new Map<string, ChainRec>();
  readonly chainOrder: string[] = [];
  /** Every chain the table made, by `serial` (a rule's chain is a number in its columns). */
  private readonly chainList: ChainRec[] = [];
  /**
   * Per chain, by serial: its first and last rule id while the table is read (-1 without
   * rules), and its position among the table's chains once the table is closed (validate.ts;
   * -1 before, and for a chain deleted with -X).
   */
  private chainCols = new Int32Array(3 * 64);
  /**
   * The targets of the rules that do not jump to a user chain, and each one's name (a rule's
   * TARGET column is a place here): a 10,000-Service dump's 30,000 DNAT operations; a rule
   * with the same target as the rule before shares its place (RETURN, MARK...). 0 is no target.
   */
  private readonly targets: TargetOp[] = [NO_TARGET];
  private readonly targetNames: (string | null)[] = [null];
  /** Match lists (MATCHES column); 0 is none, and a rule with the list of the rule before shares it. */
  private readonly matchLists: Matches[] = [NO_MATCHES];
  /** How many rules were compiled (their ids are 0 to ruleCount - 1). */
  ruleCount = 0;
  /** The rule objects made so far, by id (rule()). */
  private made: (CompiledRule | undefined)[] = [];
  /** ruleOrder, once asked for; null again when a rule is added. */
  private order: Rule[] | null = null;
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

  /** Adds a chain to the table (a name it does not have yet). */
  addChain(chain: ChainRec): void {
    this.chains.set(chain.name, chain);
    this.register(chain);
  }

  /**
   * Puts the chain under its name, unless the table has a chain of that name: then false, and
   * the table is as it was. One Map operation, not a lookup before the insertion: a dump's
   * 50,000 chain names are each new, and each operation on a name read from the text hashes it
   * anew and touches the Map's large table (cache misses, 0.5 µs each). `register` then makes
   * it one of the table's chains; `chains.delete` gives the name up again.
   */
  claimName(chain: ChainRec): boolean {
    const chains = this.chains;
    const size = chains.size;
    chains.set(chain.name, chain);
    if (chains.size !== size) return true;
    // The chain that had the name is the latest made with it (an older one was deleted).
    const list = this.chainList;
    for (let k = list.length - 1; k >= 0; k--) {
      const c = list[k] as ChainRec;
      if (c.name === chain.name) {
        chains.set(c.name, c);
        break;
      }
    }
    return false;
  }

  /** Makes a chain put under its name (claimName) one of the table's chains. */
  register(chain: ChainRec): void {
    const serial = this.chainList.length;
    chain.serial = serial;
    this.chainList.push(chain);
    if (3 * serial + 3 > this.chainCols.length) {
      const bigger = new Int32Array(this.chainCols.length * 2);
      bigger.set(this.chainCols);
      this.chainCols = bigger;
    }
    this.chainCols.fill(-1, 3 * serial, 3 * serial + 3);
  }

  /** The chain's first rule id, -1 when it has none. */
  head(chain: ChainRec): number {
    return this.chainCols[3 * chain.serial] as number;
  }

  /** Its position among the table's chains once the table is closed; -1 before, or deleted. */
  chainId(chain: ChainRec): number {
    return this.chainCols[3 * chain.serial + 2] as number;
  }

  /**
   * Records what rule `id` compiled to (its other columns are set already): its matches, and
   * either a jump (or goto) to user chain `to` or another target `op` named `name`. A rule that
   * did not compile left its id to the next one.
   */
  setRule(
    id: number,
    chain: ChainRec,
    matches: Matches,
    to: ChainRec | null,
    goto: boolean,
    op: TargetOp,
    name: string | null,
  ): void {
    let target = 0;
    if (to !== null) target = -1 - ((to.serial << 1) | (goto ? 1 : 0));
    else if (op !== NO_TARGET) {
      const targets = this.targets;
      target = targets.length - 1;
      if (targets[target] !== op || this.targetNames[target] !== name) {
        target++;
        targets.push(op);
        this.targetNames.push(name);
      }
    }
    const lists = this.matchLists;
    let m = 0;
    if (matches !== NO_MATCHES) {
      m = lists.length - 1;
      if (lists[m] !== matches) m = lists.push(matches) - 1;
    }
    this.cols.setParts(id, chain.serial, target, m);
    if (id >= this.ruleCount) this.ruleCount = id + 1;
    this.order = null;
  }

  /** The chain of rule `id`. */
  ownerOf(id: number): ChainRec {
    return this.chainList[this.cols.chain(id)] as ChainRec;
  }

  matchesOf(id: number): Matches {
    return this.matchLists[this.cols.matches(id)] as Matches;
  }

  targetOf(id: number): TargetOp {
    const to = this.jumpsTo(id);
    if (to === null) return this.targets[this.cols.target(id)] as TargetOp;
    return (-1 - this.cols.target(id)) & 1 ? to.goto() : to.jump();
  }

  /** The user chain rule `id` jumps or goes to, or null (validate.ts: no operation is made). */
  jumpsTo(id: number): ChainRec | null {
    const t = this.cols.target(id);
    return t >= 0 ? null : (this.chainList[(-1 - t) >> 1] as ChainRec);
  }

  /** The `-j`/`-g` name of rule `id`: a user chain's own string, a target's, or null. */
  targetNameOf(id: number): string | null {
    const to = this.jumpsTo(id);
    return to === null ? (this.targetNames[this.cols.target(id)] as string | null) : to.name;
  }

  /** Rule `id` as an object, made the first time it is asked for. */
  rule(id: number): CompiledRule {
    let made = this.made;
    const r = made[id];
    if (r !== undefined) return r;
    // As long as the rules, at once: filled up to `id` one by one, it was 130k pushes for the
    // first rule of a late chain.
    if (id >= made.length) {
      made = new Array<CompiledRule | undefined>(Math.max(this.ruleCount, id + 1, 2 * made.length));
      for (let k = 0; k < this.made.length; k++) made[k] = this.made[k];
      this.made = made;
    }
    return (made[id] = new CompiledRule(this, id));
  }

  /**
   * Rules in file order, for serialization: every deferred chain is compiled first; the rules
   * flushed or deleted with their chain are not there.
   */
  get ruleOrder(): Rule[] {
    for (const chain of this.deferredChains) void chain.rules;
    if (this.order !== null) return this.order;
    const cols = this.cols;
    const out: Rule[] = [];
    const n = this.ruleCount;
    for (let id = 0; id < n; id++) if (!cols.isRemoved(id)) out.push(this.rule(id));
    if (this.outOfOrder) out.sort((a, b) => a.line - b.line);
    this.order = out;
    return out;
  }

  /** Puts rule `id` at 0-based position `at` of `chain` (the end when `at` is its length). */
  place(chain: ChainRec, id: number, at: number): void {
    const cols = this.cols;
    const cc = this.chainCols;
    const h = 3 * chain.serial;
    if (at >= chain.count) {
      const tail = cc[h + 1] as number;
      if (tail >= 0) cols.setNext(tail, id);
      else cc[h] = id;
      cc[h + 1] = id;
    } else if (at === 0) {
      cols.setNext(id, cc[h] as number);
      cc[h] = id;
    } else {
      let prev = cc[h] as number;
      for (let k = 1; k < at; k++) prev = cols.next(prev);
      cols.setNext(id, cols.next(prev));
      cols.setNext(prev, id);
    }
    chain.count++;
  }

  /** `-F`: the chain's rules leave the table. */
  flush(chain: ChainRec): void {
    for (let id = this.head(chain); id >= 0; id = this.cols.next(id)) this.cols.remove(id);
    this.chainCols.fill(-1, 3 * chain.serial, 3 * chain.serial + 2);
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
      this.addChain(new ChainRec(hook, true, false, 'ACCEPT', 'ACCEPT', '[0:0]', this.line));
    }
    // A chain's array can wait until it is read, unless a deferred chain may be compiled (and
    // linked) at any time.
    const later = this.deferredChains.length === 0;
    const link = (chain: ChainRec) => this.link(chain);
    let chainId = 0;
    // forEach, not `for...of`: run once per table, unoptimized, the iterator made a result object
    // per chain (50,000 for a 10,000-Service dump).
    this.chains.forEach((chain) => {
      this.chainCols[3 * chain.serial + 2] = chainId++;
      if (chain.deferred !== null) return;
      if (later && chain.count > 0) chain.linkLater(link);
      else this.link(chain);
    });
  }

  /**
   * Visits the ids of a chain's rules in order, from the links, without making rule objects or
   * the chain's array (validation reads every chain; a packet only a few).
   */
  eachRuleId(chain: ChainRec, visit: (id: number) => void): void {
    const cols = this.cols;
    for (let id = this.head(chain); id >= 0; id = cols.next(id)) visit(id);
  }

  /** A chain's rules as an array, from the links, their positions counted. */
  link(chain: ChainRec): void {
    const cols = this.cols;
    // Of exactly its length (a pushed-to array has room for 17 from its first rule), but
    // not so long that V8 would make it a dictionary.
    const rules: Rule[] = chain.count <= 16384 ? new Array<Rule>(chain.count) : [];
    let k = 0;
    for (let id = this.head(chain); id >= 0; id = cols.next(id)) {
      cols.setIndex(id, k + 1);
      rules[k++] = this.rule(id);
    }
    chain.rules = rules;
  }
}
