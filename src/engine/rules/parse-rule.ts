/** Parses the words of one rule (everything after `-A CHAIN`) into match items and a target. */
import {
  IMPLICIT_PROTO_MODULES,
  lookupMatch,
  lookupTarget,
  type ExtensionInfo,
} from './extensions.ts';
import { quoteWord, type Token } from './tokenize.ts';
import type {
  CoreItem,
  Diagnostic,
  ModuleItem,
  OptionSpec,
  RuleItem,
  TargetSpec,
} from './types.ts';

const CORE: Readonly<Record<string, CoreItem['opt']>> = {
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

export interface ParsedRuleBody {
  /** The rule's words in their original order, canonicalised (aliases, quoting, negation). */
  readonly body: string;
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

const isOptionWord = (t: Token | undefined): boolean =>
  t !== undefined &&
  !t.quoted &&
  t.text.startsWith('-') &&
  t.text.length > 1 &&
  !/^-\d/.test(t.text);

/** Parses rule words. Problems are returned as diagnostics on `line`; parsing continues where it can. */
export function parseRuleBody(tokens: readonly Token[], line: number): ParsedRuleBody {
  const diagnostics: Diagnostic[] = [];
  const items: (CoreItem | MutableModule)[] = [];
  let target: MutableTarget | null = null;
  let counters: string | null = null;
  let negate: Token | null = null;
  let proto: string | null = null;
  let lastOption: OptionSpec | null = null;
  let warnedComment = false;
  const layout: (() => string)[] = [];

  const err = (column: number, message: string, hint?: string) =>
    diagnostics.push(
      hint === undefined
        ? { severity: 'error', line, column, message }
        : { severity: 'error', line, column, message, hint },
    );

  let i = 0;
  while (i < tokens.length) {
    const tok = tokens[i] as Token;
    const word = tok.text;
    if (word === '!' && !tok.quoted) {
      if (negate)
        err(tok.column, "'!' given twice", 'Write a single ! before the option it negates.');
      negate = tok;
      i++;
      continue;
    }
    const core = tok.quoted ? undefined : CORE[word];
    if (core !== undefined) {
      const neg = negate !== null;
      negate = null;
      if (core === '-f') {
        items.push({ kind: 'core', opt: '-f', negated: neg, value: '', column: tok.column });
        layout.push(() => (neg ? '! -f' : '-f'));
        i++;
        continue;
      }
      let valueTok = tokens[i + 1];
      let legacyNeg = false;
      if (valueTok?.text === '!' && !valueTok.quoted) {
        legacyNeg = true; // old `-s ! 10.0.0.0/8` form
        valueTok = tokens[i + 2];
        i++;
      }
      if (!valueTok || isOptionWord(valueTok)) {
        err(tok.column, `${word} needs a value`, `For example: ${core} ${sampleValue(core)}`);
        i++;
        continue;
      }
      const value = core === '-p' ? valueTok.text.toLowerCase() : valueTok.text;
      if (core === '-p') proto = value;
      items.push({ kind: 'core', opt: core, negated: neg || legacyNeg, value, column: tok.column });
      const coreText = `${neg || legacyNeg ? '! ' : ''}${core} ${quoteWord(value)}`;
      layout.push(() => coreText);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!tok.quoted && (word === '-m' || word === '--match')) {
      const nameTok = tokens[i + 1];
      if (negate)
        err(negate.column, "'!' cannot negate -m", 'Put ! before an option of the module.');
      negate = null;
      if (!nameTok || isOptionWord(nameTok)) {
        err(tok.column, '-m needs a module name', 'For example: -m comment --comment "why"');
        i++;
        continue;
      }
      items.push({
        kind: 'module',
        name: nameTok.text,
        implicit: false,
        options: [],
        column: tok.column,
        info: lookupMatch(nameTok.text),
      });
      const modText = `-m ${nameTok.text}`;
      layout.push(() => modText);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!tok.quoted && (word === '-j' || word === '--jump' || word === '-g' || word === '--goto')) {
      const nameTok = tokens[i + 1];
      const via = word === '-g' || word === '--goto' ? '-g' : '-j';
      if (target) err(tok.column, 'a rule can have only one target', 'Remove the second -j/-g.');
      if (!nameTok || isOptionWord(nameTok)) {
        err(tok.column, `${via} needs a target or chain name`, 'For example: -j ACCEPT');
        i++;
        continue;
      }
      target = {
        via,
        name: nameTok.text,
        options: [],
        column: tok.column,
        info: via === '-j' ? lookupTarget(nameTok.text) : undefined,
      };
      const tgtText = `${via} ${nameTok.text}`;
      layout.push(() => tgtText);
      lastOption = null;
      i += 2;
      continue;
    }
    if (!tok.quoted && (word === '-c' || word === '--set-counters')) {
      const p = tokens[i + 1];
      const b = tokens[i + 2];
      if (!p || !b) err(tok.column, '-c needs packet and byte counts');
      else counters = `[${p.text}:${b.text}]`;
      i += 3;
      continue;
    }
    if (isOptionWord(tok)) {
      const neg = negate;
      negate = null;
      const owner = findOwner(word, items, target, proto);
      if (owner === 'none') {
        err(
          tok.column,
          `unknown option ${word}`,
          proto === null && /port/.test(word)
            ? 'Port matches need a protocol: add -p tcp (or udp) before it.'
            : 'Check the spelling, or load its module with -m first.',
        );
        i++;
        while (i < tokens.length && !isOptionWord(tokens[i]) && tokens[i]?.text !== '!') i++;
        continue;
      }
      let holder: MutableModule | MutableTarget;
      if (owner === 'implicit') {
        const mod: MutableModule = {
          kind: 'module',
          name: proto as string,
          implicit: true,
          options: [],
          column: tok.column,
          info: lookupMatch(proto as string),
        };
        items.push(mod);
        holder = mod;
      } else holder = owner;
      const arity = holder.info?.options[word];
      if (neg && arity && !arity.negatable) {
        err(neg.column, `${word} cannot be negated`, 'Remove the ! before it.');
      }
      const args: string[] = [];
      let legacyNeg = false;
      let j = i + 1;
      if (arity) {
        for (let k = 0; k < arity.args; k++) {
          let a = tokens[j];
          if (a?.text === '!' && !a.quoted && arity.negatable && k === 0) {
            legacyNeg = true;
            j++;
            a = tokens[j];
          }
          if (!a || (isOptionWord(a) && !/^-\d/.test(a.text))) {
            err(tok.column, `${word} needs ${arity.args} value${arity.args > 1 ? 's' : ''}`);
            break;
          }
          args.push(a.text);
          j++;
        }
      } else {
        // Unknown extension: take every following non-option word as an argument.
        while (j < tokens.length && !isOptionWord(tokens[j]) && tokens[j]?.text !== '!') {
          args.push((tokens[j] as Token).text);
          j++;
        }
      }
      const spec: OptionSpec = {
        name: arity?.canonical ?? word,
        negated: neg !== null || legacyNeg,
        args,
        column: tok.column,
      };
      holder.options.push(spec);
      layout.push(() =>
        [spec.negated ? '!' : '', spec.name, ...spec.args.map(quoteWord)]
          .filter((w) => w !== '')
          .join(' '),
      );
      lastOption = spec;
      i = j;
      continue;
    }
    // A stray word. kube-proxy's unit-test fixtures write multi-word comments unquoted;
    // accept them as part of the comment (with a warning) rather than reject the whole dump.
    if (lastOption?.name === '--comment') {
      (lastOption.args as string[])[0] += ` ${word}`;
      if (!warnedComment) {
        diagnostics.push({
          severity: 'warning',
          line,
          column: tok.column,
          message: 'comment with spaces is not quoted',
          hint: 'iptables-restore needs quotes: --comment "several words".',
        });
        warnedComment = true;
      }
      i++;
      continue;
    }
    err(
      tok.column,
      `unexpected word '${word}'`,
      'Options start with - or --; quote values with spaces.',
    );
    i++;
  }
  if (negate) err(negate.column, "'!' at the end of the rule negates nothing");
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
    body: layout.map((f) => f()).join(' '),
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
