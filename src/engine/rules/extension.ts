/**
 * What an iptables extension module is to the engine: the options it takes (so the parser knows
 * which words are its arguments) and how it compiles them, once, when the rule is read. One
 * module per file in `xt/`, as iptables keeps one per extension (extensions/libxt_*.c) and the
 * kernel one per match or target (net/netfilter/xt_*.c). `registry.ts` lists them.
 */
import type { MatchCtx } from '../match-context.ts';
import type { TargetOp } from './target-op.ts';
import type { Hook, TableName } from './types.ts';

export interface OptionArity {
  /** Number of arguments after the option name. */
  readonly args: number;
  /** May be preceded by `!`. */
  readonly negatable: boolean;
  /** Canonical name when this is an alias (`--destination-port` -> `--dport`). */
  readonly canonical?: string;
}

export type Options = Readonly<Record<string, OptionArity>>;

/** `o(1, true)`: an option with one argument that may be negated. */
export const o = (args: number, negatable = false, canonical?: string): OptionArity =>
  canonical === undefined ? { args, negatable } : { args, negatable, canonical };

/** One `[!] --option arg...` of a match module or a target, as read from the rule. */
export interface OptionSpec {
  readonly name: string;
  readonly negated: boolean;
  readonly args: readonly string[];
  readonly column: number;
}

/** `-m name` and its options; `implicit` for `-p tcp --dport 80` written without `-m tcp`. */
export interface ModuleSpec {
  readonly name: string;
  readonly implicit: boolean;
  readonly options: readonly OptionSpec[];
  readonly column: number;
}

/** `-j NAME ...` or `-g CHAIN`. */
export interface TargetSpec {
  readonly via: '-j' | '-g';
  readonly name: string;
  readonly options: readonly OptionSpec[];
  readonly column: number;
}

/** A compiled match: true when the packet matches. */
export type Matcher = (ctx: MatchCtx) => boolean;

/** Each shared match as a rule's only match: one frozen array for all the rules it is alone in. */
const ALONE = new WeakMap<Matcher, readonly Matcher[]>();

/**
 * Marks a match that many rules share (it keeps nothing of one rule; MatchCtx.rule says which
 * is evaluated): a rule whose only match it is shares its matches array too.
 */
export function sharedMatch(m: Matcher): Matcher {
  if (!ALONE.has(m)) ALONE.set(m, Object.freeze([m]));
  return m;
}

/** The shared array of a rule whose only match is `m`, if `m` is shared. */
export function aloneIn(m: Matcher | Unsupported): readonly Matcher[] | undefined {
  return typeof m === 'function' ? ALONE.get(m) : undefined;
}

/** A match the lab parses but cannot evaluate: reaching it stops the walk with an explicit step. */
export interface Unsupported {
  readonly unsupported: string;
}

/** The protocol of the rule's `-p`, as the extensions that depend on it see it. */
export interface RuleProto {
  /** Lowercased `-p` value. */
  readonly value: string;
  readonly negated: boolean;
}

/** What a module may ask about the rule it belongs to, and where it puts what it compiles. */
export interface CompileCx {
  /**
   * Where the rule being compiled is. Valid while it compiles (one object serves every rule):
   * a match reads what it needs of it then, it does not keep it.
   */
  readonly rule: { readonly table: TableName; readonly chain: string; readonly line: number };
  readonly family: 4 | 6;
  readonly table: TableName;
  /** The rule's `-p` options (one, normally; none without). */
  readonly protos: readonly RuleProto[];
  /** Adds a match, in rule order. */
  add(m: Matcher | Unsupported): void;
  /**
   * Puts a protocol and port ranges into the rule's compact header match instead of a closure,
   * when nothing evaluated before it could be skipped by doing so. False when it cannot.
   */
  hoistPorts(proto: number, sport: PortCheck | null, dport: PortCheck | null): boolean;
  /** The probability of a `statistic --mode random` match, shown in traces. */
  setProbability(p: number | null): void;
}

export interface PortCheck {
  readonly lo: number;
  readonly hi: number;
  readonly negated: boolean;
}

export interface MatchExtension {
  readonly name: string;
  /** False: parsed so the dump loads, but evaluating it is an explicit "unsupported" step. */
  readonly supported: boolean;
  readonly options: Options;
  /** Reads or writes state, so a second walk of its chain may differ (statistic, recent, ...). */
  readonly stateful?: boolean;
  /** Validates the options and adds the module's matches. Throws a RuleError on a bad value. */
  compile(mod: ModuleSpec, cx: CompileCx): void;
}

/** Where a kernel target may appear (xt_target .table and .hooks). */
export interface TargetPlace {
  readonly tables?: readonly TableName[];
  readonly hooks?: readonly Hook[];
}

export interface TargetExtension {
  readonly name: string;
  readonly supported: boolean;
  readonly options: Options;
  readonly place?: TargetPlace;
  /** Validates the options into the operation the walk performs. Throws a RuleError. */
  compile(t: TargetSpec, cx: CompileCx): TargetOp;
}

/** A bad value in a rule: where it is (column on the rule's line) and what to do. */
export class RuleError extends Error {
  constructor(
    readonly column: number,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Stops compiling the rule with a positioned error. */
export function fail(column: number, message: string, hint?: string): never {
  throw new RuleError(column, message, hint);
}

/** The first argument of an option (options of arity 1). */
export const arg = (opt: OptionSpec): string => opt.args[0] ?? '';

/** The matcher, or its negation when the option was written with `!`. */
export const negate = (m: Matcher, negated: boolean): Matcher => (negated ? (c) => !m(c) : m);

/** The first option of a module or target with this name. */
export function option(mod: ModuleSpec | TargetSpec, name: string): OptionSpec | undefined {
  return mod.options.find((x) => x.name === name);
}
