/**
 * Rules compiled when a packet first reaches their chain (NftParseOptions.deferChains), as the
 * iptables reader defers kube-proxy's per-Service chains: a 5,000-Service node's nftables
 * ruleset has 20,000 rules in per-Service and per-endpoint chains, and a probe reaches two of
 * those chains.
 *
 * A deferred `add rule` line is not lexed. What the whole-ruleset checks need of it is read off
 * its words by `sketchRuleLine`: its jump and goto targets (the chain graph: missing targets,
 * loops, depth), the NAT and reject statements it may hold (which hooks may reach it) and
 * whether it takes conntrack. The object handles and anonymous-set names its compile will take
 * are reserved in order when it is read, so a rule compiled late is the rule compiled at once.
 * Only lines whose words say all of that for certain are deferred; any other line is compiled
 * where it stands.
 */
import type { BaseChain, NftChain, NftRule, NftTable } from './types.ts';

/** Statement words whose hooks are checked (check.ts STMT_HOOKS), as bits of `what`. */
export const WHAT = { DNAT: 1, SNAT: 2, MASQUERADE: 4, REDIRECT: 8, REJECT: 16 } as const;
const NAT_WORDS: Readonly<Record<string, number>> = {
  dnat: WHAT.DNAT,
  snat: WHAT.SNAT,
  masquerade: WHAT.MASQUERADE,
  redirect: WHAT.REDIRECT,
};
const FAMILY_WORDS = new Set(['ip', 'ip6', 'inet', 'arp', 'bridge', 'netdev']);

/**
 * Characters that make a line's words uncertain without the lexer: quotes and comments,
 * continuations, `;` (a second command), `@` (a set reference, checked against the set's type),
 * the lexer's other punctuation, blanks other than the space, and anything outside ASCII.
 */
const DECLINE = new Uint8Array(128);
for (const ch of '"#\\;@()|&^\t\r\v\f') DECLINE[ch.charCodeAt(0)] = 1;

/** What the checks need of one `add rule FAMILY TABLE CHAIN ...` line. */
export interface LineSketch {
  readonly family: string;
  readonly table: string;
  readonly chain: string;
  /** Anonymous maps it declares (`vmap {`, `map {`): one handle and one `__mapN` name each. */
  readonly maps: number;
  /** Its jump and goto targets (verdicts and verdict-map elements). */
  readonly targets: readonly string[];
  /** WHAT bits of the statements it may hold. */
  readonly what: number;
  /** A `ct` expression or a NAT statement: the table takes conntrack. */
  readonly conntrack: boolean;
}

/**
 * The sketch of the line [start, end) of `src`, which starts with `add rule `; null when the
 * line must be compiled where it stands. Words are split at spaces; `{`, `}` and `,` must stand
 * alone (as kube-proxy writes them), `{` only after `vmap` or `map`, one level deep.
 */
export function sketchRuleLine(src: string, start: number, end: number): LineSketch | null {
  let family = '';
  let table = '';
  let chain = '';
  let k = 0;
  let maps = 0;
  let depth = 0;
  let what = 0;
  let conntrack = false;
  let wantTarget = false;
  let prev = '';
  const targets: string[] = [];
  let i = start + 9; // past `add rule `
  while (i < end) {
    if (src.charCodeAt(i) === 32) {
      i++;
      continue;
    }
    let j = i;
    let punct = false;
    for (; j < end; j++) {
      const c = src.charCodeAt(j);
      if (c === 32) break;
      if (c >= 128 || DECLINE[c]) return null;
      if (c === 123 || c === 125 || c === 44) punct = true;
    }
    const w = src.slice(i, j);
    i = j;
    if (punct && w.length > 1) return null;
    // The lexer splits a word ending in `:` and makes `:`, `.` and `=` punctuation.
    const odd = w.endsWith(':') || w === '.' || w === '=';
    if (k < 3) {
      if (odd || punct) return null;
      if (k === 0 && !FAMILY_WORDS.has(w)) return null;
      if (k === 0) family = w;
      else if (k === 1) table = w;
      else chain = w;
      k++;
      continue;
    }
    if (k === 3 && (w === 'handle' || w === 'position' || w === 'index')) return null;
    k++;
    if (wantTarget) {
      if (odd || punct) return null;
      targets.push(w);
      wantTarget = false;
    } else if (w === '{') {
      if ((prev !== 'vmap' && prev !== 'map') || depth > 0) return null;
      depth++;
      maps++;
    } else if (w === '}') {
      if (depth === 0) return null;
      depth--;
    } else if (w === 'jump' || w === 'goto') wantTarget = true;
    else if (w === 'ct') conntrack = true;
    else if (w === 'reject') what |= WHAT.REJECT;
    else {
      const nat = NAT_WORDS[w];
      if (nat !== undefined) {
        what |= nat;
        conntrack = true;
      }
    }
    prev = w;
  }
  if (k < 4 || wantTarget || depth !== 0) return null;
  return { family, table, chain, maps, targets, what, conntrack };
}

/** Compiles a deferred chain's lines (NftReader.materialize). */
export interface ChainCompiler {
  materialize(chain: DeferredChain): void;
}

/**
 * A chain whose `add rule` lines may wait (its name matched deferChains). Reading `rules`
 * compiles the lines first; until then the checks read `compiled` and the sketch.
 */
export class DeferredChain implements NftChain {
  base: BaseChain | null = null;
  comment: string | null = null;
  /** The rules compiled so far, in order (the waiting lines come after them). */
  compiled: NftRule[] = [];
  /** Waiting lines, 5 numbers each (offset, line, first handle, first anonymous number, maps); null when none. */
  lines: number[] | null = null;
  /** The source the lines are in. */
  src = '';
  /** The waiting lines' sketch: targets, WHAT bits, conntrack. */
  targets: string[] = [];
  what = 0;
  conntrack = false;

  constructor(
    readonly name: string,
    readonly table: NftTable,
    readonly line: number,
    readonly column: number,
    readonly handle: number,
    private readonly compiler: ChainCompiler,
  ) {}

  get rules(): NftRule[] {
    if (this.lines) this.compiler.materialize(this);
    return this.compiled;
  }

  set rules(rules: NftRule[]) {
    if (this.lines) this.compiler.materialize(this);
    this.compiled = rules;
  }

  /** Lines are waiting to be compiled. */
  get waiting(): boolean {
    return this.lines !== null;
  }
}

/** The sketch the checks read for a chain with waiting lines; null for any other chain. */
export interface ChainSketch {
  readonly compiled: readonly NftRule[];
  readonly targets: readonly string[];
  readonly what: number;
}

export function sketchOf(chain: NftChain): ChainSketch | null {
  return chain instanceof DeferredChain && chain.waiting ? chain : null;
}
