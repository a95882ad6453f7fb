/**
 * Reads an nftables ruleset in any of the forms `nft -f` reads or `nft list ruleset` prints:
 * - the nested form: `table ip kube-proxy { chain services { ... } map service-ips { ... } }`;
 * - the transaction form kube-proxy writes: `add table ...`, `add chain ...`, `add rule ...`,
 *   `add element ...`, `insert rule`, `flush`, `delete`, with `#` comments;
 * - `nft -j list ruleset` JSON (json.ts turns it into the same objects).
 * Families ip, ip6, inet (arp, bridge and netdev load but never see an IP packet in the lab).
 * Errors are returned with line and column, never thrown; what the lab cannot evaluate loads
 * and becomes an "unsupported" step when a packet reaches it.
 */
import type { Diagnostic } from '../diagnostic.ts';
import { Cursor, RuleError, UnsupportedError, fail, type RuleCtx } from './cursor.ts';
import { typeByName, TYPES, type DataType } from './datatypes.ts';
import { keyFamily } from './expr/registry.ts';
import { parseNftJson } from './json.ts';
import { Lexer, type LexError, type Token } from './lexer.ts';
import { compileStatements } from './parse-rule.ts';
import { deleteElement, newSet, readElements } from './sets.ts';
import { checkHooks, checkRuleset, type PendingRef } from './check.ts';
import { DeferredChain, sketchOf, sketchRuleLine, type ChainCompiler } from './defer.ts';
import type {
  BaseChain,
  ChainType,
  NftChain,
  NftFamily,
  NftHook,
  NftParseResult,
  NftRule,
  NftRuleset,
  NftSet,
  NftTable,
  NftVerdict,
  SetRef,
} from './types.ts';

export interface NftParseOptions {
  /** Inputs longer than this are refused with one diagnostic (default 64 MiB). */
  readonly maxBytes?: number;
  /**
   * Chains whose `add rule` lines are compiled when their rules are first read (a packet reaches
   * the chain): kube-proxy's per-Service chains in a generated ruleset (defer.ts). The result is
   * the same as without; a text with errors is read again without deferring, and a deferred rule
   * that does not compile throws when its chain is read.
   */
  readonly deferChains?: (chain: string) => boolean;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** Nested braces deeper than this are refused (nft's own grammar nests four levels). */
export const MAX_DEPTH = 16;

const FAMILIES = new Set<NftFamily>(['ip', 'ip6', 'inet', 'arp', 'bridge', 'netdev']);
const HOOKS = new Set<NftHook>([
  'prerouting',
  'input',
  'forward',
  'output',
  'postrouting',
  'ingress',
]);

/** nftables src/rule.c std_prios: the named priorities of the ip, ip6 and inet families. */
const NAMED_PRIORITIES: Readonly<Record<string, number>> = {
  raw: -300,
  mangle: -150,
  dstnat: -100,
  filter: 0,
  security: 50,
  srcnat: 100,
};

/** Hooks each chain type may attach to (net/netfilter/nft_chain_nat.c, nft_chain_route.c). */
const TYPE_HOOKS: Readonly<Record<ChainType, readonly NftHook[]>> = {
  filter: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  nat: ['prerouting', 'input', 'output', 'postrouting'],
  route: ['output'],
};

export function emptyNftRuleset(): NftRuleset {
  return { tables: [] };
}

/** Parses nft text or JSON into tables, chains, rules and sets. */
export function parseNftRuleset(text: string, options: NftParseOptions = {}): NftParseResult {
  const max = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (text.length > max) {
    const d: Diagnostic = {
      severity: 'error',
      line: 1,
      column: 1,
      message: `this ruleset has ${text.length.toLocaleString('en')} characters; the lab reads at most ${max.toLocaleString('en')}`,
      hint: 'load the tables you want to trace, not the whole dump',
    };
    return { ruleset: emptyNftRuleset(), diagnostics: [d], ok: false };
  }
  const json = /^\s*\{/.test(text);
  const reader = new NftReader(text, json ? null : (options.deferChains ?? null));
  if (json) parseNftJson(text, reader);
  else reader.readText();
  const result = reader.finish();
  // Deferred lines were not compiled, so their errors, and where they stand among the others,
  // are unknown: a text with problems is read again at once, for the exact diagnostics.
  if (reader.deferredLines > 0 && (!result.ok || reader.deferProblem))
    return parseNftRuleset(text, { ...options, deferChains: () => false });
  return result;
}

/** One rule's worth of tokens before it is compiled. */
interface RuleSource {
  readonly toks: Token[];
  readonly handle: number | null;
}

/** Builds the ruleset as commands arrive; shared by the text and JSON readers. */
export class NftReader implements ChainCompiler {
  readonly ruleset: NftRuleset = { tables: [] };
  readonly diagnostics: Diagnostic[] = [];
  private readonly pending: PendingRef[] = [];
  private anonCount = 0;
  private tokens: Token[] = [];
  /** Index of the matching brace of every `{` and `}` (of the item being read). */
  private match: Int32Array = new Int32Array(64);

  /** `add rule` lines left for later (defer.ts). */
  deferredLines = 0;
  /** A deferred line compiled during the read gave a diagnostic, or its sketch was wrong. */
  deferProblem = false;
  private finished = false;

  constructor(
    private src: string,
    private readonly defer: ((chain: string) => boolean) | null = null,
  ) {}

  /** Reads commands from `text` (the JSON reader's generated commands). */
  readFrom(text: string): void {
    this.src = text;
    this.readText();
  }

  error(tok: Pick<Token, 'line' | 'column'> | undefined, message: string, hint?: string): void {
    const line = tok?.line ?? 1;
    const column = tok?.column ?? 1;
    this.diagnostics.push(
      hint === undefined
        ? { severity: 'error', line, column, message }
        : { severity: 'error', line, column, message, hint },
    );
  }

  warn(tok: Pick<Token, 'line' | 'column'> | undefined, message: string): void {
    this.diagnostics.push({
      severity: 'warning',
      line: tok?.line ?? 1,
      column: tok?.column ?? 1,
      message,
    });
  }

  /**
   * For JSON input: the JSON position of each line of the generated commands, applied to the
   * diagnostics from `mapFrom` on.
   */
  lineMap: {
    readonly from: number;
    readonly at: readonly { line: number; column: number }[];
  } | null = null;

  finish(): NftParseResult {
    this.finished = true;
    for (const chain of this.renumber) chain.rules.forEach((r, n) => (r.index = n + 1));
    this.renumber.clear();
    checkRuleset(this.ruleset, this.pending, this.diagnostics);
    if (this.deferredLines > 0) this.pending.length = 0;
    for (const t of this.ruleset.tables) t.bases = [...t.chains.values()].filter((c) => c.base);
    if (!this.diagnostics.some((d) => d.severity === 'error'))
      checkHooks(this.ruleset, this.diagnostics);
    const map = this.lineMap;
    if (map) {
      for (let i = map.from; i < this.diagnostics.length; i++) {
        const d = this.diagnostics[i] as Diagnostic;
        const at = map.at[d.line - 1] ?? { line: 1, column: 1 };
        this.diagnostics[i] = {
          ...d,
          line: at.line,
          column: at.column,
          message: `${d.message} (in the JSON object here)`,
        };
      }
    }
    const ok = !this.diagnostics.some((d) => d.severity === 'error');
    return { ruleset: this.ruleset, diagnostics: this.diagnostics, ok };
  }

  /** Reads the text item by item (a command, or a whole `table { }` block). */
  readText(): void {
    const lx = new Lexer(this.src);
    const errors: LexError[] = [];
    while (!lx.done()) {
      if (this.defer && this.deferLine(lx)) continue;
      const tokens: Token[] = [];
      lx.item(tokens, errors);
      for (const e of errors.splice(0)) this.error(e, e.message);
      this.tokens = tokens;
      if (this.matchBraces()) this.readItems();
    }
  }

  /**
   * Leaves the `add rule` line ahead for later when its chain is deferred and its words say what
   * the checks need (defer.ts), reserving the handles and anonymous names its compile takes.
   */
  private deferLine(lx: Lexer): boolean {
    const src = this.src;
    const at = lx.lineAhead();
    if (at < 0 || src.charCodeAt(at) !== 97 || !src.startsWith('add rule ', at)) return false;
    let end = src.indexOf('\n', at);
    if (end < 0) end = src.length;
    const s = sketchRuleLine(src, at, end);
    if (!s) return false;
    const table = this.ruleset.tables.find((x) => x.family === s.family && x.name === s.table);
    const chain = table?.chains.get(s.chain);
    if (!table || !(chain instanceof DeferredChain) || chain.base) return false;
    if (chain.lines === null) {
      chain.lines = [];
      chain.src = src;
    } else if (chain.src !== src) return false;
    chain.lines.push(at, lx.lineNumber, table.nextHandle, this.anonCount, s.maps);
    table.nextHandle += s.maps + 1;
    this.anonCount += s.maps;
    for (const t of s.targets) chain.targets.push(t);
    chain.what |= s.what;
    if (s.conntrack) table.conntrack = chain.conntrack = true;
    this.deferredLines++;
    lx.skipLine(end);
    return true;
  }

  /**
   * Compiles a deferred chain's waiting lines with the handles and names reserved for them. Read
   * before the text ends, a problem (a diagnostic, a sketch that was wrong) makes the text read
   * again without deferring; read later (a packet reached the chain), it throws.
   */
  materialize(chain: DeferredChain): void {
    const lines = chain.lines;
    if (!lines) return;
    chain.lines = null;
    const table = chain.table;
    const saved = {
      src: this.src,
      tokens: this.tokens,
      next: table.nextHandle,
      anon: this.anonCount,
    };
    const pending = this.pending.length;
    const diagnostics = this.diagnostics.length;
    const conntrack = table.conntrack;
    table.conntrack = false;
    let wrong = '';
    this.src = chain.src;
    for (let k = 0; k < lines.length; k += 5) {
      const [offset, line, handle, anon, maps] = lines.slice(k, k + 5) as number[];
      const toks: Token[] = [];
      const errors: LexError[] = [];
      new Lexer(chain.src, offset, line).item(toks, errors);
      this.tokens = toks;
      table.nextHandle = handle as number;
      this.anonCount = anon as number;
      if (errors.length > 0 || toks[4]?.text !== chain.name)
        wrong ||= `line ${line} reads differently`;
      else {
        try {
          this.compileInto(chain, this.slice(5, toks.length), 'add', null);
        } catch (e) {
          this.report(e);
        }
        if (
          table.nextHandle !== (handle as number) + (maps as number) + 1 ||
          this.anonCount !== (anon as number) + (maps as number)
        )
          wrong ||= `line ${line} took other handles than reserved`;
      }
    }
    if (table.conntrack !== chain.conntrack) wrong ||= 'its conntrack use was sketched wrong';
    table.conntrack ||= conntrack;
    this.src = saved.src;
    this.tokens = saved.tokens;
    table.nextHandle = saved.next;
    this.anonCount = saved.anon;
    // The sketch was of these lines: lines deferred later (after a line that could not wait
    // compiled these) are sketched afresh.
    chain.targets = [];
    chain.what = 0;
    chain.conntrack = false;
    const added = this.diagnostics.length > diagnostics;
    if (!this.finished) {
      if (added || wrong) this.deferProblem = true;
      return;
    }
    this.pending.length = pending;
    if (!added && !wrong) return;
    const d = this.diagnostics[diagnostics];
    this.diagnostics.length = diagnostics;
    throw new Error(
      d
        ? `deferred chain ${chain.name}: line ${d.line}, column ${d.column}: ${d.message}`
        : `deferred chain ${chain.name}: ${wrong}`,
    );
  }

  private readItems(): void {
    const tokens = this.tokens;
    let i = 0;
    while (i < tokens.length) {
      const t = tokens[i] as Token;
      if (t.kind === 'nl' || (t.kind === 'punct' && t.text === ';')) {
        i++;
        continue;
      }
      const end = this.itemEnd(i, tokens.length);
      this.command(i, end);
      i = end;
    }
  }

  /** Pairs braces; reports the first unbalanced one or nesting past MAX_DEPTH. */
  private matchBraces(): boolean {
    const toks = this.tokens;
    // One buffer for every item (a transaction file is ~40,000 one-line items): only the first
    // toks.length entries are ever read, and they are reset here.
    if (this.match.length < toks.length)
      this.match = new Int32Array(Math.max(toks.length, 2 * this.match.length));
    this.match.fill(-1, 0, toks.length);
    const stack: number[] = [];
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i] as Token;
      if (t.kind !== 'punct') continue;
      if (t.text === '{') {
        if (stack.length >= MAX_DEPTH) {
          this.error(t, `braces nest deeper than ${MAX_DEPTH} levels here`);
          return false;
        }
        stack.push(i);
      } else if (t.text === '}') {
        const open = stack.pop();
        if (open === undefined) {
          this.error(t, "this '}' closes nothing", 'remove it, or add the { it should close');
          return false;
        }
        this.match[open] = i;
        this.match[i] = open;
      }
    }
    const open = stack.pop();
    if (open !== undefined) {
      this.error(toks[open], "this '{' is never closed", "add the missing '}'");
      return false;
    }
    return true;
  }

  /** End (exclusive) of the item starting at `i`: the next newline or `;` outside braces. */
  private itemEnd(i: number, limit: number): number {
    const toks = this.tokens;
    let j = i;
    while (j < limit) {
      const t = toks[j] as Token;
      if (t.kind === 'nl' || (t.kind === 'punct' && t.text === ';')) return j;
      if (t.kind === 'punct' && t.text === '{') j = (this.match[j] as number) + 1;
      else j++;
    }
    return limit;
  }

  /** Tokens [from, to) without newlines (braces span lines) and `# handle` comments. */
  private slice(from: number, to: number): RuleSource {
    const out: Token[] = [];
    let handle: number | null = null;
    for (let k = from; k < to; k++) {
      const t = this.tokens[k] as Token;
      if (t.kind === 'nl') continue;
      if (t.kind === 'handle') handle = Number(t.text);
      else out.push(t);
    }
    return { toks: out, handle };
  }

  /** Items of the block whose `{` is at `open`: [start, end) pairs of token indexes. */
  private items(open: number): { from: number; to: number; handle: number | null }[] {
    const close = this.match[open] as number;
    const out: { from: number; to: number; handle: number | null }[] = [];
    let i = open + 1;
    while (i < close) {
      const t = this.tokens[i] as Token;
      if (t.kind === 'nl' || t.kind === 'handle' || (t.kind === 'punct' && t.text === ';')) {
        i++;
        continue;
      }
      const end = this.itemEnd(i, close);
      out.push({ from: i, to: end, handle: null });
      i = end;
    }
    return out;
  }

  /** The `# handle N` right after a block's `{`. */
  private blockHandle(open: number): number | null {
    const t = this.tokens[open + 1];
    return t?.kind === 'handle' ? Number(t.text) : null;
  }

  private command(from: number, to: number): void {
    const toks = this.tokens;
    const t = toks[from] as Token;
    try {
      if (t.kind !== 'word') fail(t, `a command starts here, not '${t.text}'`);
      let verb = t.text;
      let at = from + 1;
      if (verb === 'table' || verb === 'chain' || verb === 'set' || verb === 'map') {
        verb = 'add';
        at = from;
      }
      if (verb === 'define' || verb === 'redefine' || verb === 'undefine' || verb === 'include')
        fail(t, `'${verb}' is not read here`, 'write the values inline, as nft list ruleset does');
      if (verb === 'list' || verb === 'monitor' || verb === 'describe') return;
      const obj = toks[at];
      if (!obj || obj.kind !== 'word') fail(obj ?? t, `'${verb}' needs what to ${verb} here`);
      const args = at + 1;
      switch (verb) {
        case 'add':
        case 'create':
          return this.add(verb === 'create', obj, args, to);
        case 'insert':
        case 'replace':
          if (obj.text !== 'rule') fail(obj, `'${verb}' works on rules`);
          return this.rule(verb, args, to, obj);
        case 'delete':
        case 'destroy':
          return this.remove(verb === 'destroy', obj, args, to);
        case 'flush':
          return this.flush(obj, args, to);
        default:
          fail(
            t,
            `'${verb}' is not an nft command`,
            'commands are add, create, insert, replace, delete, flush',
          );
      }
    } catch (e) {
      this.report(e);
    }
  }

  private report(e: unknown): void {
    if (e instanceof RuleError) this.error(e.tok, e.message, e.hint);
    else if (e instanceof UnsupportedError)
      this.warn(e.tok, `the lab does not model ${e.what}; it is left out`);
    else throw e;
  }

  private add(create: boolean, obj: Token, args: number, to: number): void {
    switch (obj.text) {
      case 'table':
        return this.addTable(create, args, to);
      case 'chain':
        return this.addChain(create, args, to);
      case 'rule':
        return this.rule('add', args, to, obj);
      case 'set':
      case 'map':
        return this.addSet(obj.text, create, args);
      case 'element':
        return this.element('add', args, to);
      case 'counter':
      case 'quota':
      case 'limit':
      case 'ct':
      case 'flowtable':
      case 'secmark':
      case 'synproxy':
        this.warn(obj, `the lab does not model '${obj.text}' objects; this one is left out`);
        return;
      default:
        fail(
          obj,
          `'add ${obj.text}' is not an nft command`,
          'add table, chain, rule, set, map or element',
        );
    }
  }

  /** `[family] NAME` at `i`; the family defaults to ip, as nft's does. */
  private familyAndName(i: number, what: string): { family: NftFamily; name: Token; next: number } {
    const a = this.tokens[i];
    if (a && a.kind === 'word' && FAMILIES.has(a.text as NftFamily)) {
      const b = this.tokens[i + 1];
      if (b && (b.kind === 'word' || b.kind === 'string') && !(b.kind === 'word' && b.text === '{'))
        return { family: a.text as NftFamily, name: b, next: i + 2 };
    }
    if (!a || (a.kind !== 'word' && a.kind !== 'string')) fail(a, `the ${what} name goes here`);
    return { family: 'ip', name: a, next: i + 1 };
  }

  private findTable(family: NftFamily, name: Token): NftTable {
    const t = this.ruleset.tables.find((x) => x.family === family && x.name === name.text);
    if (!t)
      fail(
        name,
        `there is no table ${family} ${name.text}`,
        `add it first: add table ${family} ${name.text}`,
      );
    return t;
  }

  private nameAt(i: number, what: string): Token {
    const t = this.tokens[i];
    if (!t || (t.kind !== 'word' && t.kind !== 'string'))
      fail(t ?? this.tokens[i - 1], `the ${what} name goes here`);
    return t;
  }

  private addTable(create: boolean, i: number, to: number): void {
    const { family, name, next } = this.familyAndName(i, 'table');
    if (name.text.length > 255) fail(name, 'table names have at most 255 characters');
    let table = this.ruleset.tables.find((x) => x.family === family && x.name === name.text);
    if (table && create)
      fail(name, `table ${family} ${name.text} exists already`, "'add table' keeps it");
    if (family !== 'ip' && family !== 'ip6' && family !== 'inet' && !table)
      this.warn(name, `family ${family} tables never see the IP packets the lab traces`);
    if (!table) {
      table = {
        family,
        name: name.text,
        line: name.line,
        column: name.column,
        comment: null,
        chains: new Map(),
        sets: new Map(),
        nextHandle: 1,
        conntrack: false,
        bases: [],
      };
      this.ruleset.tables.push(table);
    }
    const open = this.tokens[next];
    if (next >= to) return;
    if (!open || open.kind !== 'punct' || open.text !== '{')
      fail(open, "a table's body goes in { }");
    this.tableBody(table, next);
  }

  /**
   * A table block, in nft's order (src/rule.c, nft_cmd_expand): its chains first, then its
   * sets and maps, then the rules chain by chain. Handles follow that order.
   */
  private tableBody(table: NftTable, open: number): void {
    const chains: { chain: NftChain; open: number }[] = [];
    const sets: { kind: string; from: number; to: number }[] = [];
    for (const it of this.items(open)) {
      const t = this.tokens[it.from] as Token;
      try {
        switch (t.kind === 'word' ? t.text : '') {
          case 'comment':
            table.comment = this.stringAt(it.from + 1);
            break;
          case 'flags':
            break;
          case 'chain': {
            const name = this.nameAt(it.from + 1, 'chain');
            const b = this.tokens[it.from + 2];
            const chain = this.declareChain(table, name, false, this.blockHandleAt(it.from + 2));
            if (b && b.kind === 'punct' && b.text === '{')
              chains.push({ chain, open: it.from + 2 });
            break;
          }
          case 'set':
          case 'map':
            sets.push({ kind: t.text, from: it.from + 1, to: it.to });
            break;
          default:
            if (
              ['counter', 'quota', 'limit', 'ct', 'flowtable', 'secmark', 'synproxy'].includes(
                t.text,
              )
            )
              this.warn(t, `the lab does not model '${t.text}' objects; this one is left out`);
            else
              fail(
                t,
                `'${t.text}' does not belong in a table`,
                'a table holds chains, sets, maps and a comment',
              );
        }
      } catch (e) {
        this.report(e);
      }
    }
    // Chain headers (type, hook, priority, policy) before sets and rules.
    const bodies = chains.map((c) => ({ ...c, rules: this.chainHeader(c.chain, c.open) }));
    for (const s of sets) {
      try {
        this.declareSet(table, s.kind as 'set' | 'map', false, s.from);
      } catch (e) {
        this.report(e);
      }
    }
    for (const b of bodies) {
      for (const r of b.rules) {
        try {
          this.compileInto(b.chain, r, 'add', null);
        } catch (e) {
          this.report(e);
        }
      }
    }
  }

  private blockHandleAt(i: number): number | null {
    const t = this.tokens[i];
    return t && t.kind === 'punct' && t.text === '{' ? this.blockHandle(i) : null;
  }

  private stringAt(i: number): string {
    const t = this.tokens[i];
    if (!t || (t.kind !== 'string' && t.kind !== 'word'))
      fail(t ?? this.tokens[i - 1], "'comment' needs a quoted text");
    return t.text;
  }

  private declareChain(
    table: NftTable,
    name: Token,
    create: boolean,
    handle: number | null,
  ): NftChain {
    if (name.text.length > 255) fail(name, 'chain names have at most 255 characters');
    const old = table.chains.get(name.text);
    if (old) {
      if (create) fail(name, `chain ${name.text} exists already`, "'add chain' keeps it");
      return old;
    }
    const h = handle ?? table.nextHandle++;
    const chain: NftChain = this.defer?.(name.text)
      ? new DeferredChain(name.text, table, name.line, name.column, h, this)
      : {
          name: name.text,
          table,
          line: name.line,
          column: name.column,
          handle: h,
          base: null,
          rules: [],
          comment: null,
        };
    if (handle !== null) table.nextHandle = Math.max(table.nextHandle, handle + 1);
    table.chains.set(name.text, chain);
    return chain;
  }

  /** Reads a chain block's `type/hook/priority`, `policy`, `comment`; returns its rules. */
  private chainHeader(chain: NftChain, open: number): RuleSource[] {
    const rules: RuleSource[] = [];
    for (const it of this.items(open)) {
      const src = this.slice(it.from, it.to);
      const w = src.toks[0];
      try {
        if (w?.kind === 'word' && w.text === 'type' && src.toks[1]?.text !== 'set')
          this.baseChain(chain, src.toks);
        else if (w?.kind === 'word' && w.text === 'policy') this.policy(chain, src.toks);
        else if (w?.kind === 'word' && w.text === 'comment' && src.toks.length === 2)
          chain.comment = src.toks[1]?.text ?? null;
        else if (w?.kind === 'word' && (w.text === 'devices' || w.text === 'flags')) continue;
        else rules.push({ toks: src.toks, handle: src.handle ?? this.trailingHandle(it.to) });
      } catch (e) {
        this.report(e);
      }
    }
    return rules;
  }

  /** A listed rule's `# handle N` comes right after its last token, before the newline. */
  private trailingHandle(end: number): number | null {
    const t = this.tokens[end];
    return t?.kind === 'handle' ? Number(t.text) : null;
  }

  private baseChain(chain: NftChain, toks: readonly Token[]): void {
    const c = new Cursor(toks);
    const at = c.next();
    const type = c.next();
    if (!type || !['filter', 'nat', 'route'].includes(type.text))
      fail(type ?? at, 'chain types are filter, nat and route');
    if (c.word() !== 'hook') fail(c.here(), "a base chain needs 'hook NAME' here");
    c.i++;
    const hook = c.next();
    if (!hook || !HOOKS.has(hook.text as NftHook))
      fail(hook ?? c.last(), `hooks are ${[...HOOKS].join(', ')}`);
    if (c.word() === 'device') c.i += 2;
    if (c.word() !== 'priority') fail(c.here(), "a base chain needs 'priority N' here");
    c.i++;
    const prioTok = c.peek();
    const prio = this.priority(c);
    const t = type.text as ChainType;
    const h = hook.text as NftHook;
    const named = /^[a-z]+/.exec(prio.text)?.[0];
    if (named && !namedPriorityFits(named, h))
      fail(
        prioTok,
        'invalid priority expression value in this context',
        named === 'dstnat'
          ? 'dstnat is a prerouting priority; write -100 here'
          : 'srcnat is a postrouting priority; write 100 here',
      );
    if (!TYPE_HOOKS[t].includes(h))
      fail(hook, `a ${t} chain cannot hook ${h}`, `${t} chains hook ${TYPE_HOOKS[t].join(', ')}`);
    // nf_tables_api.c, nft_chain_parse_hook: a nat chain must run after conntrack (-200).
    if (t === 'nat' && prio.value <= -200)
      fail(
        prioTok,
        `a nat chain cannot have priority ${prio.value}: the kernel refuses it (Operation not supported)`,
        'nat chains need a priority above -200, where conntrack runs',
      );
    if (chain.rules.length > 0 && !chain.base)
      fail(at, `chain ${chain.name} has rules already; it cannot become a base chain`);
    const base: BaseChain = {
      type: t,
      hook: h,
      priority: prio.value,
      priorityText: prio.text,
      policy: chain.base?.policy ?? 'accept',
    };
    chain.base = base;
    if (c.word() === 'policy') this.policy(chain, toks.slice(c.i));
  }

  private priority(c: Cursor): { value: number; text: string } {
    const t = c.next();
    if (!t)
      fail(c.last(), 'a priority here: a number or raw, mangle, dstnat, filter, security, srcnat');
    const m = /^([a-z]+)([+-]\d+)?$/.exec(t.text);
    let value: number;
    let text = t.text;
    if (/^-?\d+$/.test(t.text)) value = Number(t.text);
    else if (m && NAMED_PRIORITIES[m[1] as string] !== undefined) {
      value = (NAMED_PRIORITIES[m[1] as string] as number) + Number(m[2] ?? 0);
      if ((c.word() === '-' || c.word() === '+') && /^\d+$/.test(c.word(1) ?? '')) {
        const sign = c.word() === '-' ? -1 : 1;
        value += sign * Number(c.word(1));
        text = `${t.text} ${c.word()} ${c.word(1)}`;
        c.i += 2;
      }
    } else
      return fail(
        t,
        `'${t.text}' is not a priority`,
        'write a number, or raw, mangle, dstnat, filter, security, srcnat (optionally - 10)',
      );
    return { value, text };
  }

  private policy(chain: NftChain, toks: readonly Token[]): void {
    const p = toks[1];
    if (!p || (p.text !== 'accept' && p.text !== 'drop'))
      fail(p ?? toks[0], "a chain's policy is accept or drop");
    if (!chain.base)
      fail(toks[0], `chain ${chain.name} is not a base chain; only base chains have a policy`);
    chain.base.policy = p.text;
  }

  private addChain(create: boolean, i: number, to: number): void {
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const table = this.findTable(family, tname);
    const name = this.nameAt(next, 'chain');
    const chain = this.declareChain(table, name, create, this.blockHandleAt(next + 1));
    const open = this.tokens[next + 1];
    if (next + 1 >= to) return;
    if (!open || open.kind !== 'punct' || open.text !== '{')
      fail(open, "a chain's body goes in { }");
    for (const r of this.chainHeader(chain, next + 1)) this.compileInto(chain, r, 'add', null);
  }

  /** `add|insert|replace rule [family] TABLE CHAIN [handle H|position H|index I] STATEMENTS` */
  private rule(verb: 'add' | 'insert' | 'replace', i: number, to: number, at: Token): void {
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const table = this.findTable(family, tname);
    const cname = this.nameAt(next, 'chain');
    const chain = table.chains.get(cname.text);
    if (!chain)
      fail(
        cname,
        `there is no chain ${cname.text} in table ${family} ${table.name}`,
        `add it first: add chain ${family} ${table.name} ${cname.text}`,
      );
    let k = next + 1;
    let where: { by: 'handle' | 'index'; value: number; tok: Token } | null = null;
    const w = this.tokens[k];
    if (
      w?.kind === 'word' &&
      (w.text === 'handle' || w.text === 'position' || w.text === 'index')
    ) {
      const v = this.tokens[k + 1];
      if (!v || !/^\d+$/.test(v.text)) fail(v ?? w, `'${w.text}' needs a number`);
      where = { by: w.text === 'index' ? 'index' : 'handle', value: Number(v.text), tok: v };
      k += 2;
    }
    if (verb === 'replace' && where?.by !== 'handle') fail(at, "'replace rule' needs 'handle N'");
    const src = this.slice(k, to);
    if (src.toks.length === 0) fail(this.tokens[k - 1], 'the rule has no statements');
    this.compileInto(chain, src, verb, where);
  }

  /** Compiles a rule and puts it where the command says (nf_tables_newrule). */
  private compileInto(
    chain: NftChain,
    src: RuleSource,
    verb: 'add' | 'insert' | 'replace',
    where: { by: 'handle' | 'index'; value: number; tok: Token } | null,
  ): void {
    const table = chain.table;
    const first = src.toks[0] as Token;
    const last = src.toks[src.toks.length - 1] as Token;
    const ctx = this.ruleCtx(table, chain.name);
    const c = new Cursor(src.toks);
    const { stmts, stateful } = compileStatements(c, ctx, this.src);
    const handle = src.handle ?? table.nextHandle++;
    if (src.handle !== null) table.nextHandle = Math.max(table.nextHandle, src.handle + 1);
    const rule: NftRule = {
      chain: chain.name,
      index: 0,
      handle,
      line: first.line,
      column: first.column,
      text: this.src.slice(first.offset, last.end),
      comment: ctx.comment,
      stmts,
      stateful,
    };
    const rules = chain.rules;
    let pos = rules.length;
    if (where) {
      const k =
        where.by === 'handle' ? rules.findIndex((r) => r.handle === where.value) : where.value;
      if (where.by === 'handle' && k < 0)
        fail(where.tok, `chain ${chain.name} has no rule with handle ${where.value}`);
      if (where.by === 'index' && k >= rules.length)
        fail(where.tok, `chain ${chain.name} has ${rules.length} rules; index ${k} is past them`);
      pos = verb === 'insert' || verb === 'replace' ? k : k + 1;
      if (verb === 'replace') rules.splice(k, 1);
    } else if (verb === 'insert') pos = 0;
    if (pos === rules.length) {
      rule.index = rules.length + 1;
      rules.push(rule);
    } else {
      rules.splice(pos, 0, rule);
      this.renumber.add(chain);
    }
  }

  /**
   * Chains whose rules moved (an insert or a delete before the end): numbered once, when the text
   * is read (`finish`), not on every command; 50,000 `insert rule` lines took 11 s that way.
   */
  private readonly renumber = new Set<NftChain>();

  private readonly contexts = new Map<NftTable, RuleCtx>();

  /** The RuleCtx of a rule in `table` (also used to read set declarations), comment cleared. */
  ruleCtx(table: NftTable, where: string): RuleCtx {
    let ctx = this.contexts.get(table);
    if (!ctx) this.contexts.set(table, (ctx = this.newRuleCtx(table, where)));
    ctx.comment = null;
    return ctx;
  }

  private newRuleCtx(table: NftTable, where: string): RuleCtx {
    const pending = this.pending;
    const nextAnon = () => this.anonCount++;
    const ctx: RuleCtx = {
      table,
      family: table.family,
      diagnostics: this.diagnostics,
      comment: null,
      setRef(name, tok, fields, use): SetRef {
        const ref: SetRef = { name, set: table.sets.get(name) ?? null };
        pending.push({ kind: 'set', table, name, tok, ref, where, fields, use });
        return ref;
      },
      anonymous(c, fields, data) {
        const open = c.peek();
        const set = newSet(
          `__${data ? 'map' : 'set'}${nextAnon()}`,
          data ? 'map' : 'set',
          true,
          open?.line ?? 0,
          open?.column ?? 0,
          0,
        );
        set.fields = fields;
        set.data = data;
        set.flags.add('interval');
        const n = readElements(c, set, ctx).length;
        // nftables src/evaluate.c (expr_evaluate_set): a one-element anonymous set becomes a
        // plain comparison, so no set object (and no handle) reaches the kernel.
        if (data !== null || n !== 1) set.handle = table.nextHandle++;
        return set;
      },
      value(c, type: DataType) {
        const t = c.next();
        if (!t || (t.kind !== 'word' && t.kind !== 'string'))
          fail(t ?? c.last(), `a ${type.name} value goes here`);
        const v = type.parse(t.text);
        if (typeof v === 'string') fail(t, v);
        return v;
      },
      verdict(c): NftVerdict {
        const t = c.next();
        const w = t?.kind === 'word' ? t.text : '';
        switch (w) {
          case 'accept':
          case 'drop':
          case 'continue':
          case 'return':
            return { code: w };
          case 'queue':
            return { code: 'queue' };
          case 'jump':
          case 'goto': {
            const n = c.next();
            if (!n || (n.kind !== 'word' && n.kind !== 'string'))
              fail(n ?? t, `'${w}' needs a chain name`);
            pending.push({ kind: 'chain', table, name: n.text, tok: n, where });
            return { code: w, chain: n.text };
          }
          default:
            return fail(
              t ?? c.last(),
              'a verdict goes here: accept, drop, jump CHAIN, goto CHAIN, return or continue',
            );
        }
      },
      usesConntrack() {
        table.conntrack = true;
      },
    };
    return ctx;
  }

  private addSet(kind: string, create: boolean, i: number): void {
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const table = this.findTable(family, tname);
    this.declareSet(table, kind as 'set' | 'map', create, next);
  }

  /** `NAME { type ...; flags ...; elements = { ... } }` at tokens [from, to). */
  private declareSet(table: NftTable, kind: 'set' | 'map', create: boolean, from: number): void {
    const name = this.nameAt(from, kind);
    const open = from + 1;
    const ob = this.tokens[open];
    if (!ob || ob.kind !== 'punct' || ob.text !== '{')
      fail(ob ?? name, `a ${kind}'s declaration goes in { }`);
    let set = table.sets.get(name.text);
    if (set && create) fail(name, `${kind} ${name.text} exists already`);
    const fresh = !set;
    set ??= newSet(
      name.text,
      kind,
      false,
      name.line,
      name.column,
      this.blockHandle(open) ?? table.nextHandle++,
    );
    if (fresh) {
      const h = this.blockHandle(open);
      if (h !== null) table.nextHandle = Math.max(table.nextHandle, h + 1);
    }
    const close = this.match[open] as number;
    set.text = this.src.slice(name.offset, (this.tokens[close] as Token).end);
    const elements: RuleSource[] = [];
    for (const it of this.items(open)) {
      const src = this.slice(it.from, it.to);
      try {
        this.setItem(table, set, src.toks, elements);
      } catch (e) {
        this.report(e);
      }
    }
    if (set.fields.length === 0) fail(name, `${kind} ${name.text} needs a 'type' or 'typeof'`);
    if (kind === 'map' && set.data === null)
      fail(name, `map ${name.text} needs ': TYPE' after its key type`);
    if (fresh) table.sets.set(name.text, set);
    for (const e of elements) {
      try {
        this.elementsInto(table, set, e.toks);
      } catch (err) {
        this.report(err);
      }
    }
  }

  private setItem(table: NftTable, set: NftSet, toks: Token[], elements: RuleSource[]): void {
    const w = toks[0] as Token;
    const c = new Cursor(toks, 1);
    switch (w.text) {
      case 'type':
        this.setType(set, c, w);
        return;
      case 'typeof':
        this.setTypeof(table, set, c, w);
        return;
      case 'flags':
        while (!c.atEnd()) {
          const f = c.next() as Token;
          if (f.kind === 'word') {
            if (!['interval', 'constant', 'dynamic', 'timeout'].includes(f.text))
              fail(
                f,
                `'${f.text}' is not a set flag`,
                'flags are interval, constant, dynamic, timeout',
              );
            set.flags.add(f.text);
          }
        }
        return;
      case 'comment':
        set.comment = toks[1]?.text ?? null;
        return;
      case 'elements':
        if (!c.isPunct('=')) fail(c.here(), "write 'elements = { ... }'");
        elements.push({ toks: toks.slice(2), handle: null });
        return;
      case 'timeout':
        set.timeout = durationSeconds(toks[1]);
        return;
      case 'gc-interval':
      case 'size':
      case 'policy':
      case 'auto-merge':
      case 'counter':
        return;
      default:
        fail(
          w,
          `'${w.text}' does not belong in a ${set.kind} declaration`,
          'a set has type, typeof, flags, timeout, size, comment, elements',
        );
    }
  }

  private setType(set: NftSet, c: Cursor, at: Token): void {
    const fields: DataType[] = [];
    let data: DataType | 'verdict' | null = null;
    for (;;) {
      const t = c.next();
      const dt = t ? typeByName(t.text) : null;
      if (!t || !dt)
        return fail(
          t ?? at,
          `'${t?.text ?? ''}' is not a type the lab knows`,
          'types: ipv4_addr, ipv6_addr, inet_proto, inet_service, mark, ifname, ...',
        );
      fields.push(dt);
      if (c.isPunct('.')) {
        c.i++;
        continue;
      }
      break;
    }
    if (c.isPunct(':')) {
      c.i++;
      const d = c.next();
      if (d?.text === 'verdict') data = 'verdict';
      else {
        const dt = d ? typeByName(d.text) : null;
        if (!dt) return fail(d ?? at, `'${d?.text ?? ''}' is not a map data type the lab knows`);
        data = dt;
      }
    }
    if (!c.atEnd()) fail(c.peek(), `unexpected '${c.peek()?.text ?? ''}' in the type`);
    set.fields = fields;
    set.data = data;
  }

  private setTypeof(table: NftTable, set: NftSet, c: Cursor, at: Token): void {
    const ctx = this.ruleCtx(table, set.name);
    const fields: DataType[] = [];
    for (;;) {
      const w = c.word();
      const kf = w ? keyFamily(w) : undefined;
      if (!kf) return fail(c.here() ?? at, "'typeof' needs expressions like ip daddr . th dport");
      fields.push(kf.parse(c, ctx).type);
      if (c.isPunct('.')) {
        c.i++;
        continue;
      }
      break;
    }
    set.fields = fields;
    if (c.isPunct(':')) {
      c.i++;
      if (c.word() === 'verdict') set.data = 'verdict';
      else {
        const kf = keyFamily(c.word() ?? '');
        set.data = kf ? kf.parse(c, ctx).type : TYPES.integer;
      }
    }
  }

  private elementsInto(table: NftTable, set: NftSet, toks: Token[]): void {
    const c = new Cursor(toks);
    readElements(c, set, this.ruleCtx(table, set.name));
    if (!c.atEnd()) fail(c.peek(), "unexpected text after the elements' '}'");
    const needsInterval = set.ranges.length > 0 && !set.flags.has('interval');
    if (needsInterval)
      fail(
        toks[0],
        `${set.name} has prefix or range elements but no 'flags interval'`,
        `add 'flags interval' to the declaration of ${set.name}`,
      );
  }

  /** `add|delete element [family] TABLE SET { ... }` */
  private element(verb: 'add' | 'delete', i: number, to: number): void {
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const table = this.findTable(family, tname);
    const sname = this.nameAt(next, 'set');
    const set = table.sets.get(sname.text);
    if (!set) fail(sname, `there is no set or map ${sname.text} in table ${family} ${table.name}`);
    const src = this.slice(next + 1, to);
    if (verb === 'add') return this.elementsInto(table, set, src.toks);
    // Deleting: keys only (a map's values may be omitted).
    const keysOnly = { ...set, kind: 'set' as const, exact: new Map(), ranges: [] };
    const c = new Cursor(src.toks);
    for (const e of readElements(c, keysOnly, this.ruleCtx(table, set.name), false)) {
      if (!deleteElement(set, e.key))
        fail(src.toks[0], `${set.name} has no such element to delete`);
    }
  }

  private remove(destroy: boolean, obj: Token, i: number, to: number): void {
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const tables = this.ruleset.tables;
    const ti = tables.findIndex((x) => x.family === family && x.name === tname.text);
    if (ti < 0) {
      if (destroy) return;
      fail(tname, `there is no table ${family} ${tname.text}`);
    }
    const table = tables[ti] as NftTable;
    switch (obj.text) {
      case 'table':
        this.compileWaiting(table);
        tables.splice(ti, 1);
        return;
      case 'chain': {
        const n = this.nameAt(next, 'chain');
        if (!table.chains.has(n.text)) {
          if (destroy) return;
          fail(n, `there is no chain ${n.text} in table ${family} ${table.name}`);
        }
        const user = this.jumpsTo(table, n.text);
        if (user)
          fail(
            n,
            `chain ${n.text} is still the target of a rule in ${user}`,
            'remove those rules first',
          );
        void table.chains.get(n.text)?.rules; // a deferred chain's rules are compiled (checked) first
        table.chains.delete(n.text);
        return;
      }
      case 'rule': {
        const n = this.nameAt(next, 'chain');
        const chain = table.chains.get(n.text);
        const h = this.tokens[next + 2];
        if (this.tokens[next + 1]?.text !== 'handle' || !h || !/^\d+$/.test(h.text))
          fail(this.tokens[next + 1] ?? n, "'delete rule' needs 'handle N'");
        const k = chain ? chain.rules.findIndex((r) => r.handle === Number(h.text)) : -1;
        if (!chain || k < 0) {
          if (destroy) return;
          fail(h, `there is no rule with handle ${h.text} in ${n.text}`);
        }
        chain.rules.splice(k, 1);
        this.renumber.add(chain);
        return;
      }
      case 'set':
      case 'map': {
        const n = this.nameAt(next, obj.text);
        if (!table.sets.delete(n.text) && !destroy) fail(n, `there is no ${obj.text} ${n.text}`);
        return;
      }
      case 'element':
        this.element('delete', i, to);
        return;
      default:
        fail(obj, `'delete ${obj.text}' is not an nft command`);
    }
  }

  /** Compiles the waiting lines of `table`'s deferred chains, before the table goes. */
  private compileWaiting(table: NftTable): void {
    for (const ch of table.chains.values()) if (ch instanceof DeferredChain) this.materialize(ch);
  }

  private jumpsTo(table: NftTable, name: string): string | null {
    for (const ch of table.chains.values()) {
      if (ch.name === name) continue;
      // Rules not compiled yet are compiled when their words name the chain.
      const sketch = sketchOf(ch);
      const rules = sketch && !sketch.targets.includes(name) ? sketch.compiled : ch.rules;
      for (const r of rules)
        for (const s of r.stmts)
          if (s.kind === 'verdict' && 'chain' in s.verdict && s.verdict.chain === name)
            return ch.name;
    }
    return null;
  }

  private flush(obj: Token, i: number, _to: number): void {
    if (obj.text === 'ruleset') {
      for (const t of this.ruleset.tables) this.compileWaiting(t);
      this.ruleset.tables.length = 0;
      return;
    }
    const { family, name: tname, next } = this.familyAndName(i, 'table');
    const table = this.findTable(family, tname);
    switch (obj.text) {
      case 'table':
        for (const ch of table.chains.values()) ch.rules = [];
        for (const s of table.sets.values()) {
          s.exact.clear();
          s.ranges.length = 0;
        }
        return;
      case 'chain': {
        const n = this.nameAt(next, 'chain');
        const chain = table.chains.get(n.text);
        if (!chain) fail(n, `there is no chain ${n.text} in table ${family} ${table.name}`);
        chain.rules = [];
        return;
      }
      case 'set':
      case 'map': {
        const n = this.nameAt(next, obj.text);
        const set = table.sets.get(n.text);
        if (!set) fail(n, `there is no ${obj.text} ${n.text} in table ${family} ${table.name}`);
        set.exact.clear();
        set.ranges.length = 0;
        return;
      }
      default:
        fail(obj, `'flush ${obj.text}' is not an nft command`);
    }
  }
}

/** `10800s`, `3h`, `1d2h`, `500ms` in seconds (nftables src/datatype.c time_parse). */
function durationSeconds(t: Token | undefined): number {
  const m = t
    ? /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(t.text)
    : null;
  if (!t || !m || t.text === '')
    fail(t, 'a duration here, like 10800s or 3h', 'units are d, h, m, s, ms');
  const [, d, h, mi, s, ms] = m.map((x) => Number(x ?? 0));
  return (d ?? 0) * 86400 + (h ?? 0) * 3600 + (mi ?? 0) * 60 + (s ?? 0) + (ms ?? 0) / 1000;
}

/**
 * nftables src/rule.c std_prio_family_hook_compat: dstnat names a priority at prerouting only,
 * srcnat at postrouting only (nft 1.0.6 refuses `type nat hook output priority dstnat`).
 */
function namedPriorityFits(name: string, hook: NftHook): boolean {
  if (name === 'dstnat') return hook === 'prerouting';
  if (name === 'srcnat') return hook === 'postrouting';
  return true;
}
