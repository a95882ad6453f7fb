/** Parses the words of one rule (everything after `-A CHAIN`) into match items and a target. */
import {
  IMPLICIT_PROTO_MODULES,
  lookupMatch,
  lookupTarget,
  type ExtensionInfo,
} from './extensions.ts';
import { quoteWord, type Tokens } from './tokenize.ts';
import type {
  CoreItem,
  Diagnostic,
  ModuleItem,
  OptionSpec,
  RuleItem,
  TargetSpec,
} from './types.ts';

const CORE_WORDS: Readonly<Record<string, CoreItem['opt']>> = {
  '-p': '-p',
  '--protocol': '-p',
  '-s': '-s',
  '--source': '-s',
  '--src': '-s',
  '-d': '-d',
  '--destination': '-d',
  '--dst': '-d',
  '-i': '-i',
  '--in-interface': '-i',
  '-o': '-o',
  '--out-interface': '-o',
  '-f': '-f',
  '--fragment': '-f',
};

const CORE = new Map(Object.entries(CORE_WORDS));

export interface ParsedRuleBody {
  /** The rule's words in their original order, canonicalised (aliases, quoting, negation); null unless asked for. */
  readonly body: string | null;
  /** The line is already canonical iptables-save text (its own words, one space apart). */
  readonly canonical: boolean;
  readonly items: RuleItem[];
  readonly target: TargetSpec | null;
  readonly counters: string | null;
  readonly diagnostics: Diagnostic[];
}

interface MutableModule {
  kind: 'module';
  name: string;
  implicit: boolean;
  options: OptionSpec[];
  column: number;
  info: ExtensionInfo | undefined;
}

interface MutableTarget {
  via: '-j' | '-g';
  name: string;
  options: OptionSpec[];
  column: number;
  info: ExtensionInfo | undefined;
}

/** An option word: starts with `-`, is not quoted, and is not a negative number. */
function isOptionAt(t: Tokens, i: number): boolean {
  if (i >= t.words.length || t.quoted[i] === 1) return false;
  const w = t.words[i] as string;
  if (w.length < 2 || w.charCodeAt(0) !== 45) return false;
  const c = w.charCodeAt(1);
  return c < 48 || c > 57;
}

const isBang = (t: Tokens, i: number): boolean => t.words[i] === '!' && t.quoted[i] !== 1;

/** Parses rule words from `start`. Problems are returned as diagnostics on `line`; parsing continues where it can. */
export function parseRuleBody(
  t: Tokens,
  start: number,
  line: number,
  withLayout = true,
): ParsedRuleBody {
  const diagnostics: Diagnostic[] = [];
  // Whether the words are already written the way iptables-save writes them (one space apart,
  // short option names, quotes only where needed): then the line itself is the canonical text.
  let canon = true;
  const quoteOk = (j: number): boolean => canonicalQuoting(t, j);
  const items: (CoreItem | MutableModule)[] = [];
  let target: MutableTarget | null = null;
  let counters: string | null = null;
  let negate = -1;
  let proto: string | null = null;
  let lastOption: OptionSpec | null = null;
  let warnedComment = false;
  const layout: string[] = [];
  let commentAt = -1;
  const n = t.words.length;
  const err = (column: number, message: string, hint?: string) =>
    diagnostics.push(
      hint === undefined
        ? { severity: 'error', line, column, message }
        : { severity: 'error', line, column, message, hint },
    );

  let i = start;
  while (i < n) {
    const word = t.words[i] as string;
    const col = t.cols[i] as number;
    const quoted = t.quoted[i] === 1;
    if (word === '!' && !quoted) {
      if (negate >= 0)
        err(col, "'!' given twice", 'Write a single ! before the option it negates.');
      negate = col;
      i++;
      continue;
    }
    const core = quoted ? undefined : CORE.get(word);
    if (core !== undefined) {
      const neg = negate >= 0;
      negate = -1;
      if (core === '-f') {
        items.push({ kind: 'core', opt: '-f', negated: neg, value: '', column: col });
        if (word !== '-f') canon = false;
        if (withLayout) layout.push(neg ? '! -f' : '-f');
        i++;
        continue;
      }
      let vi = i + 1;
      let legacyNeg = false;
      if (isBang(t, vi)) {
        legacyNeg = true; // old `-s ! 10.0.0.0/8` form
        canon = false;
        vi++;
        i++;
      }
      if (vi >= n || isOptionAt(t, vi)) {
        err(col, `${word} needs a value`, `For example: ${core} ${sampleValue(core)}`);
        i++;
        continue;
      }
      const raw = t.words[vi] as string;
      const value = core === '-p' ? raw.toLowerCase() : raw;
      if (core === '-p') proto = value;
      if (word !== core || value !== raw || !quoteOk(vi)) canon = false;
      items.push({ kind: 'core', opt: core, negated: neg || legacyNeg, value, column: col });
      if (withLayout) layout.push(`${neg || legacyNeg ? '! ' : ''}${core} ${quoteWord(value)}`);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!quoted && (word === '-m' || word === '--match')) {
      if (negate >= 0) err(negate, "'!' cannot negate -m", 'Put ! before an option of the module.');
      negate = -1;
      if (i + 1 >= n || isOptionAt(t, i + 1)) {
        err(col, '-m needs a module name', 'For example: -m comment --comment "why"');
        i++;
        continue;
      }
      const name = t.words[i + 1] as string;
      items.push({
        kind: 'module',
        name,
        implicit: false,
        options: [],
        column: col,
        info: lookupMatch(name),
      });
      if (word !== '-m' || !quoteOk(i + 1)) canon = false;
      if (withLayout) layout.push(`-m ${name}`);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!quoted && (word === '-j' || word === '--jump' || word === '-g' || word === '--goto')) {
      const via = word === '-g' || word === '--goto' ? '-g' : '-j';
      if (target) err(col, 'a rule can have only one target', 'Remove the second -j/-g.');
      if (i + 1 >= n || isOptionAt(t, i + 1)) {
        err(col, `${via} needs a target or chain name`, 'For example: -j ACCEPT');
        i++;
        continue;
      }
      const name = t.words[i + 1] as string;
      target = {
        via,
        name,
        options: [],
        column: col,
        info: via === '-j' ? lookupTarget(name) : undefined,
      };
      if (word !== via || !quoteOk(i + 1)) canon = false;
      if (withLayout) layout.push(`${via} ${name}`);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!quoted && (word === '-c' || word === '--set-counters')) {
      if (i + 2 >= n) err(col, '-c needs packet and byte counts');
      else counters = `[${t.words[i + 1]}:${t.words[i + 2]}]`;
      canon = false;
      i += 3;
      continue;
    }
    if (isOptionAt(t, i)) {
      const neg = negate;
      negate = -1;
      const owner = findOwner(word, items, target, proto);
      if (owner === 'none') {
        err(
          col,
          `unknown option ${word}`,
          proto === null && /port/.test(word)
            ? 'Port matches need a protocol: add -p tcp (or udp) before it.'
            : 'Check the spelling, or load its module with -m first.',
        );
        i++;
        while (i < n && !isOptionAt(t, i) && !isBang(t, i)) i++;
        continue;
      }
      let holder: MutableModule | MutableTarget;
      if (owner === 'implicit') {
        const mod: MutableModule = {
          kind: 'module',
          name: proto as string,
          implicit: true,
          options: [],
          column: col,
          info: lookupMatch(proto as string),
        };
        items.push(mod);
        holder = mod;
      } else holder = owner;
      const arity = holder.info?.options[word];
      if (neg >= 0 && arity && !arity.negatable)
        err(neg, `${word} cannot be negated`, 'Remove the ! before it.');
      const args: string[] = [];
      let legacyNeg = false;
      let j = i + 1;
      if (arity) {
        for (let k = 0; k < arity.args; k++) {
          if (isBang(t, j) && arity.negatable && k === 0) {
            legacyNeg = true;
            canon = false;
            j++;
          }
          if (j >= n || isOptionAt(t, j)) {
            err(col, `${word} needs ${arity.args} value${arity.args > 1 ? 's' : ''}`);
            break;
          }
          if (!quoteOk(j)) canon = false;
          args.push(t.words[j] as string);
          j++;
        }
      } else {
        // Unknown extension: take every following non-option word as an argument.
        while (j < n && !isOptionAt(t, j) && !isBang(t, j)) {
          if (!quoteOk(j)) canon = false;
          args.push(t.words[j] as string);
          j++;
        }
      }
      const spec: OptionSpec = {
        name: arity?.canonical ?? word,
        negated: neg >= 0 || legacyNeg,
        args,
        column: col,
      };
      holder.options.push(spec);
      if (spec.name !== word) canon = false;
      if (spec.name === '--comment') commentAt = layout.length;
      if (withLayout) layout.push(optionWords(spec));
      lastOption = spec;
      i = j;
      continue;
    }
    // A stray word. kube-proxy's unit-test fixtures write multi-word comments unquoted;
    // accept them as part of the comment (with a warning) rather than reject the whole dump.
    if (lastOption?.name === '--comment') {
      (lastOption.args as string[])[0] += ` ${word}`;
      canon = false;
      if (withLayout && commentAt >= 0) layout[commentAt] = optionWords(lastOption);
      if (!warnedComment) {
        diagnostics.push({
          severity: 'warning',
          line,
          column: col,
          message: 'comment with spaces is not quoted',
          hint: 'iptables-restore needs quotes: --comment "several words".',
        });
        warnedComment = true;
      }
      i++;
      continue;
    }
    err(col, `unexpected word '${word}'`, 'Options start with - or --; quote values with spaces.');
    i++;
  }
  if (negate >= 0) err(negate, "'!' at the end of the rule negates nothing");
  const outItems: RuleItem[] = items.map((it) =>
    it.kind === 'core'
      ? it
      : ({
          kind: 'module',
          name: it.name,
          implicit: it.implicit,
          options: it.options,
          column: it.column,
        } satisfies ModuleItem),
  );
  const outTarget: TargetSpec | null = target
    ? { via: target.via, name: target.name, options: target.options, column: target.column }
    : null;
  return {
    body: withLayout ? layout.join(' ') : null,
    canonical: canon && evenlySpaced(t),
    items: outItems,
    target: outTarget,
    counters,
    diagnostics,
  };
}

function findOwner(
  word: string,
  items: readonly (CoreItem | MutableModule)[],
  target: MutableTarget | null,
  proto: string | null,
): MutableModule | MutableTarget | 'implicit' | 'none' {
  if (target) {
    if (!target.info || target.info.options[word]) return target;
  }
  for (let k = items.length - 1; k >= 0; k--) {
    const it = items[k];
    if (it?.kind !== 'module') continue;
    if (!it.info || it.info.options[word]) return it;
  }
  if (proto && IMPLICIT_PROTO_MODULES.has(proto) && lookupMatch(proto)?.options[word]) {
    return 'implicit';
  }
  return 'none';
}

function sampleValue(opt: CoreItem['opt']): string {
  switch (opt) {
    case '-p':
      return 'tcp';
    case '-i':
      return 'eth0';
    case '-o':
      return 'eth0';
    default:
      return '10.0.0.0/8';
  }
}

function optionWords(spec: OptionSpec): string {
  const words = spec.args.length ? `${spec.name} ${spec.args.map(quoteWord).join(' ')}` : spec.name;
  return spec.negated ? `! ${words}` : words;
}

/** A word is quoted exactly when iptables-save would quote it (and then without escapes). */
function canonicalQuoting(t: Tokens, j: number): boolean {
  const w = t.words[j] as string;
  const needs = w === '' || /[\s"'\\]/.test(w);
  if (t.quoted[j] !== 1) return !needs;
  const col = (t.cols[j] as number) - 1;
  return (
    needs &&
    !/["\\]/.test(w) &&
    t.line.charCodeAt(col) === 34 &&
    t.line.charCodeAt(col + w.length + 1) === 34
  );
}

/** Every word one space after the previous, nothing before the first or after the last. */
function evenlySpaced(t: Tokens): boolean {
  const n = t.words.length;
  if (n === 0 || t.cols[0] !== 1) return n === 0;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const col = t.cols[i] as number;
    if (i > 0 && col !== end + 2) return false;
    end = col - 1 + (t.words[i] as string).length + (t.quoted[i] === 1 ? 2 : 0);
  }
  return end === t.line.length;
}
