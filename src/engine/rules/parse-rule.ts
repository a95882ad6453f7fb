/**
 * Reads the words of one rule (everything after `-A CHAIN`) into its header options, match
 * modules and target, as iptables-restore assigns options to modules: an option belongs to the
 * target when it has one, else to the latest module that takes it, else to the protocol's
 * implicit module (`-p tcp --dport 80`). Problems are returned as diagnostics; reading goes on.
 */
import type {
  MatchExtension,
  ModuleSpec,
  OptionSpec,
  TargetExtension,
  TargetSpec,
} from './extension.ts';
import { IMPLICIT_PROTO_MODULES, lookupMatch, lookupTarget } from './registry.ts';
import { Slots, clear } from './scratch.ts';
import { quoteWord, type LineTokens } from './tokenize.ts';
import type { Diagnostic } from './types.ts';

export type CoreOpt = '-p' | '-s' | '-d' | '-i' | '-o' | '-f';

/** A generic option of the rule itself (`-s`, `-d`, `-p`, `-i`, `-o`, `-f`). */
export interface CoreSpec {
  readonly kind: 'core';
  readonly opt: CoreOpt;
  readonly negated: boolean;
  readonly value: string;
  readonly column: number;
}

export interface ModuleItem extends ModuleSpec {
  readonly kind: 'module';
  readonly ext: MatchExtension | undefined;
  readonly options: readonly OptionSpec[];
}

export type RuleItem = CoreSpec | ModuleItem;

export interface TargetItem extends TargetSpec {
  readonly ext: TargetExtension | undefined;
  readonly options: readonly OptionSpec[];
}

export interface RuleBody {
  /** The rule's words in their original order, canonicalised; null unless asked for. */
  readonly layout: string | null;
  /** The line is already canonical iptables-save text (its own words, one space apart). */
  readonly canonical: boolean;
  readonly items: readonly RuleItem[];
  readonly target: TargetItem | null;
  readonly counters: string | null;
  readonly diagnostics: Diagnostic[];
}

const CORE = new Map<string, CoreOpt>([
  ['-p', '-p'],
  ['--protocol', '-p'],
  ['-s', '-s'],
  ['--source', '-s'],
  ['--src', '-s'],
  ['-d', '-d'],
  ['--destination', '-d'],
  ['--dst', '-d'],
  ['-i', '-i'],
  ['--in-interface', '-i'],
  ['-o', '-o'],
  ['--out-interface', '-o'],
  ['-f', '-f'],
  ['--fragment', '-f'],
]);

const SAMPLE: Readonly<Record<CoreOpt, string>> = {
  '-p': 'tcp',
  '-i': 'eth0',
  '-o': 'eth0',
  '-s': '10.0.0.0/8',
  '-d': '10.0.0.0/8',
  '-f': '',
};

const NO_DIAGNOSTICS: Diagnostic[] = [];

function optionWords(spec: OptionSpec): string {
  const words = spec.args.length ? `${spec.name} ${spec.args.map(quoteWord).join(' ')}` : spec.name;
  return spec.negated ? `! ${words}` : words;
}

/** Which module or target an option word belongs to. */
function findOwner(
  word: string,
  items: readonly (CoreSlot | ModuleSlot)[],
  target: TargetSlot | null,
  proto: string | null,
): ModuleSlot | TargetSlot | 'implicit' | 'none' {
  if (target && (!target.ext || target.ext.options[word])) return target;
  for (let k = items.length - 1; k >= 0; k--) {
    const it = items[k];
    if (it?.kind !== 'module') continue;
    if (!it.ext || it.ext.options[word]) return it;
  }
  if (proto && IMPLICIT_PROTO_MODULES.has(proto) && lookupMatch(proto)?.options[word])
    return 'implicit';
  return 'none';
}

class OptionSlot implements OptionSpec {
  name = '';
  negated = false;
  readonly args: string[] = [];
  column = 0;
}

class CoreSlot implements CoreSpec {
  readonly kind = 'core';
  opt: CoreOpt = '-p';
  negated = false;
  value = '';
  column = 0;
}

class ModuleSlot implements ModuleItem {
  readonly kind = 'module';
  name = '';
  implicit = false;
  readonly options: OptionSlot[] = [];
  column = 0;
  ext: MatchExtension | undefined = undefined;
}

class TargetSlot implements TargetItem {
  via: '-j' | '-g' = '-j';
  name = '';
  readonly options: OptionSlot[] = [];
  column = 0;
  ext: TargetExtension | undefined = undefined;
}

/**
 * The state of one rule being read; a class so its fields keep one shape. One instance, and
 * its slots, serve every rule in turn: a 100k-rule dump would otherwise allocate millions of
 * short-lived objects, and collecting them was a quarter of the parse time.
 */
class BodyReader implements RuleBody {
  t!: LineTokens;
  line = 0;
  readonly items: (CoreSlot | ModuleSlot)[] = [];
  private readonly cores = new Slots(() => new CoreSlot());
  private readonly modules = new Slots(() => new ModuleSlot());
  private readonly options = new Slots(() => new OptionSlot());
  private readonly targetSlot = new TargetSlot();
  target: TargetSlot | null = null;
  counters: string | null = null;
  diagnostics = NO_DIAGNOSTICS;
  /** Whether the words are written the way iptables-save writes them. */
  canon = true;
  canonical = false;
  negate = -1;
  proto: string | null = null;
  lastOption: OptionSpec | null = null;
  warnedComment = false;
  commentAt = -1;
  words: string[] | null = null;
  layout: string | null = null;

  reset(t: LineTokens, line: number, withLayout: boolean): void {
    this.t = t;
    this.line = line;
    clear(this.items);
    this.cores.reset();
    this.modules.reset();
    this.options.reset();
    this.target = null;
    this.counters = null;
    this.diagnostics = NO_DIAGNOSTICS;
    this.canon = true;
    this.canonical = false;
    this.negate = -1;
    this.proto = null;
    this.lastOption = null;
    this.warnedComment = false;
    this.commentAt = -1;
    this.words = withLayout ? [] : null;
    this.layout = null;
  }

  private core1(opt: CoreOpt, negated: boolean, value: string, column: number): CoreSlot {
    const c = this.cores.take();
    c.opt = opt;
    c.negated = negated;
    c.value = value;
    c.column = column;
    return c;
  }

  private module1(name: string, implicit: boolean, column: number): ModuleSlot {
    const m = this.modules.take();
    m.name = name;
    m.implicit = implicit;
    clear(m.options);
    m.column = column;
    m.ext = lookupMatch(name);
    return m;
  }

  err(column: number, message: string, hint?: string): void {
    if (this.diagnostics === NO_DIAGNOSTICS) this.diagnostics = [];
    this.diagnostics.push(
      hint === undefined
        ? { severity: 'error', line: this.line, column, message }
        : { severity: 'error', line: this.line, column, message, hint },
    );
  }

  quoteOk(j: number): void {
    if (!this.t.canonicalQuoting(j)) this.canon = false;
  }

  /** `-s ADDR` and friends; returns the next word index. */
  core(i: number, word: string, core: CoreOpt, col: number): number {
    const t = this.t;
    const neg = this.negate >= 0;
    this.negate = -1;
    if (core === '-f') {
      this.items.push(this.core1('-f', neg, '', col));
      if (word !== '-f') this.canon = false;
      this.words?.push(neg ? '! -f' : '-f');
      return i + 1;
    }
    let vi = i + 1;
    let legacyNeg = false;
    if (t.isBang(vi)) {
      legacyNeg = true; // old `-s ! 10.0.0.0/8` form
      this.canon = false;
      vi++;
      i++;
    }
    if (vi >= t.count || t.isOption(vi)) {
      this.err(col, `${word} needs a value`, `For example: ${core} ${SAMPLE[core]}`);
      return i + 1;
    }
    const raw = t.words[vi] as string;
    const value = core === '-p' ? raw.toLowerCase() : raw;
    if (core === '-p') this.proto = value;
    if (word !== core || value !== raw) this.canon = false;
    this.quoteOk(vi);
    const negated = neg || legacyNeg;
    this.items.push(this.core1(core, negated, value, col));
    this.words?.push(`${negated ? '! ' : ''}${core} ${quoteWord(value)}`);
    this.lastOption = null;
    return i + 2;
  }

  module(i: number, word: string, col: number): number {
    const t = this.t;
    if (this.negate >= 0)
      this.err(this.negate, "'!' cannot negate -m", 'Put ! before an option of the module.');
    this.negate = -1;
    if (i + 1 >= t.count || t.isOption(i + 1)) {
      this.err(col, '-m needs a module name', 'For example: -m comment --comment "why"');
      return i + 1;
    }
    const name = t.words[i + 1] as string;
    this.items.push(this.module1(name, false, col));
    if (word !== '-m') this.canon = false;
    this.quoteOk(i + 1);
    this.words?.push(`-m ${name}`);
    this.lastOption = null;
    return i + 2;
  }

  jump(i: number, word: string, col: number): number {
    const t = this.t;
    const via = word === '-g' || word === '--goto' ? '-g' : '-j';
    if (this.target) this.err(col, 'a rule can have only one target', 'Remove the second -j/-g.');
    if (i + 1 >= t.count || t.isOption(i + 1)) {
      this.err(col, `${via} needs a target or chain name`, 'For example: -j ACCEPT');
      return i + 1;
    }
    const name = t.words[i + 1] as string;
    const target = this.targetSlot;
    target.via = via;
    target.name = name;
    clear(target.options);
    target.column = col;
    target.ext = via === '-j' ? lookupTarget(name) : undefined;
    this.target = target;
    if (word !== via) this.canon = false;
    this.quoteOk(i + 1);
    this.words?.push(`${via} ${name}`);
    this.lastOption = null;
    return i + 2;
  }

  /** `--option args...` of a module or the target; returns the next word index. */
  option(i: number, word: string, col: number): number {
    const t = this.t;
    const neg = this.negate;
    this.negate = -1;
    const owner = findOwner(word, this.items, this.target, this.proto);
    if (owner === 'none') {
      this.err(
        col,
        `unknown option ${word}`,
        this.proto === null && /port/.test(word)
          ? 'Port matches need a protocol: add -p tcp (or udp) before it.'
          : 'Check the spelling, or load its module with -m first.',
      );
      i++;
      while (i < t.count && !t.isOption(i) && !t.isBang(i)) i++;
      return i;
    }
    let holder: ModuleSlot | TargetSlot;
    if (owner === 'implicit') {
      const name = this.proto as string;
      const mod = this.module1(name, true, col);
      this.items.push(mod);
      holder = mod;
    } else holder = owner;
    const arity = holder.ext?.options[word];
    if (neg >= 0 && arity && !arity.negatable)
      this.err(neg, `${word} cannot be negated`, 'Remove the ! before it.');
    const spec = this.options.take();
    const args = spec.args;
    clear(args);
    let legacyNeg = false;
    let j = i + 1;
    if (arity) {
      for (let k = 0; k < arity.args; k++) {
        if (t.isBang(j) && arity.negatable && k === 0) {
          legacyNeg = true;
          this.canon = false;
          j++;
        }
        if (j >= t.count || t.isOption(j)) {
          this.err(col, `${word} needs ${arity.args} value${arity.args > 1 ? 's' : ''}`);
          break;
        }
        this.quoteOk(j);
        args.push(t.words[j] as string);
        j++;
      }
    } else {
      // Unknown extension: take every following non-option word as an argument.
      while (j < t.count && !t.isOption(j) && !t.isBang(j)) {
        this.quoteOk(j);
        args.push(t.words[j] as string);
        j++;
      }
    }
    spec.name = arity?.canonical ?? word;
    spec.negated = neg >= 0 || legacyNeg;
    spec.column = col;
    holder.options.push(spec);
    if (spec.name !== word) this.canon = false;
    if (spec.name === '--comment') this.commentAt = this.words?.length ?? 0;
    this.words?.push(optionWords(spec));
    this.lastOption = spec;
    return j;
  }

  /**
   * A stray word. kube-proxy's unit-test fixtures write multi-word comments unquoted; accept
   * them as part of the comment (with a warning) rather than reject the whole dump.
   */
  stray(word: string, col: number): void {
    const last = this.lastOption;
    if (last?.name === '--comment') {
      (last.args as string[])[0] += ` ${word}`;
      this.canon = false;
      if (this.words && this.commentAt >= 0) this.words[this.commentAt] = optionWords(last);
      if (!this.warnedComment) {
        if (this.diagnostics === NO_DIAGNOSTICS) this.diagnostics = [];
        this.diagnostics.push({
          severity: 'warning',
          line: this.line,
          column: col,
          message: 'comment with spaces is not quoted',
          hint: 'iptables-restore needs quotes: --comment "several words".',
        });
        this.warnedComment = true;
      }
      return;
    }
    this.err(
      col,
      `unexpected word '${word}'`,
      'Options start with - or --; quote values with spaces.',
    );
  }
}

const reader = new BodyReader();
const layoutReader = new BodyReader();

/**
 * Reads rule words from `start`. With `withLayout`, also the canonical text of the words. The
 * result is valid until the next call with the same `withLayout` (its reader is reused).
 */
export function parseRuleBody(
  t: LineTokens,
  start: number,
  line: number,
  withLayout = false,
): RuleBody {
  const r = withLayout ? layoutReader : reader;
  r.reset(t, line, withLayout);
  let i = start;
  while (i < t.count) {
    const word = t.words[i] as string;
    const col = t.cols[i] as number;
    const quoted = t.quoted[i] === 1;
    if (word === '!' && !quoted) {
      if (r.negate >= 0)
        r.err(col, "'!' given twice", 'Write a single ! before the option it negates.');
      r.negate = col;
      i++;
      continue;
    }
    // `-m` and `-j` first: most option words of a dump are these, and comparing an interned word
    // with them is cheaper than a lookup among the core options.
    if (!quoted && word === '-m') {
      i = r.module(i, word, col);
      continue;
    }
    if (!quoted && word === '-j') {
      i = r.jump(i, word, col);
      continue;
    }
    const core = quoted ? undefined : CORE.get(word);
    if (core !== undefined) i = r.core(i, word, core, col);
    else if (!quoted && (word === '-m' || word === '--match')) i = r.module(i, word, col);
    else if (!quoted && (word === '-j' || word === '--jump' || word === '-g' || word === '--goto'))
      i = r.jump(i, word, col);
    else if (!quoted && (word === '-c' || word === '--set-counters')) {
      if (i + 2 >= t.count) r.err(col, '-c needs packet and byte counts');
      else r.counters = `[${t.words[i + 1]}:${t.words[i + 2]}]`;
      r.canon = false;
      i += 3;
    } else if (t.isOption(i)) i = r.option(i, word, col);
    else {
      r.stray(word, col);
      i++;
    }
  }
  if (r.negate >= 0) r.err(r.negate, "'!' at the end of the rule negates nothing");
  r.canonical = r.canon && t.evenlySpaced();
  if (r.words) r.layout = r.words.join(' ');
  return r;
}
