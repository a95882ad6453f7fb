/**
 * Compiles a rule once, when it is read: the header options into the table's HeaderStore, each
 * match module through its extension (registry.ts), the target into an operation. Validation is
 * this compilation: a rule that compiles is one iptables-restore would load.
 */
import { cidrContainsNum, parseIPv4Prefix } from '../ip.ts';
import {
  RuleError,
  aloneIn,
  fail,
  type CompileCx,
  type Matcher,
  type PortCheck,
  type RuleProto,
  type Unsupported,
} from './extension.ts';
import { HEADER_STRIDE, type HeaderStore } from './header.ts';
import { clear } from './scratch.ts';
import type { CoreSpec, RuleBody } from './parse-rule.ts';
import { isStatefulModule, lookupTarget } from './registry.ts';
import { NO_TARGET, type TargetOp } from './target-op.ts';
import { NO_MATCHES, type ChainRec, type TableRec } from './table.ts';
import { BUILTIN_CHAINS, type Diagnostic, type TableName } from './types.ts';
import { IPPROTO, PROTO_NUMBERS, parseAddrOption } from './values.ts';
import { noOptions } from './xt/standard.ts';

const KNOWN_PROTOS = new Set([
  'tcp',
  'udp',
  'icmp',
  'sctp',
  'all',
  'udplite',
  'gre',
  'esp',
  'ah',
  'ipip',
  'icmpv6',
  'ipv6-icmp',
]);

/**
 * Where the rule's compiled parts go while its items compile, in order. One instance serves
 * every rule in turn; what a rule keeps is copied out of it.
 */
class RuleCx implements CompileCx {
  /** The rule being compiled, as its modules see it (one object, reused: see CompileCx.rule). */
  readonly rule = { table: 'filter' as TableName, chain: '', line: 0 };
  /** Where its header is in `headers`. */
  private header = 0;
  family: 4 | 6 = 4;
  table: TableName = 'filter';
  headers!: HeaderStore;
  private readonly protoSlots: { value: string; negated: boolean }[] = [];
  /** The rule's `-p` options (slots reused from rule to rule). */
  readonly protos: RuleProto[] = [];
  /** Header checks that did not fit the HeaderStore (an option written twice). */
  readonly extraHeader: Matcher[] = [];
  readonly matches: (Matcher | Unsupported)[] = [];
  probability: number | null = null;

  reset(header: number, at: RulePlace): void {
    this.header = header;
    this.rule.table = at.table.name;
    this.rule.chain = at.chain.name;
    this.rule.line = at.line;
    this.family = at.family;
    this.table = at.table.name;
    this.headers = at.table.headers;
    clear(this.protos);
    clear(this.extraHeader);
    clear(this.matches);
    this.probability = null;
  }

  addProto(value: string, negated: boolean): void {
    let slot = this.protoSlots[this.protos.length];
    if (!slot) this.protoSlots.push((slot = { value, negated }));
    slot.value = value;
    slot.negated = negated;
    this.protos.push(slot);
  }

  add(m: Matcher | Unsupported): void {
    this.matches.push(m);
  }

  hoistPorts(proto: number, sport: PortCheck | null, dport: PortCheck | null): boolean {
    // Only when no match comes before: the header runs first, and skipping a stateful match
    // (a statistic branch) by failing earlier would change what the walk records.
    return this.matches.length === 0 && this.headers.setPorts(this.header, proto, sport, dport);
  }

  setProbability(p: number | null): void {
    this.probability = p;
  }

  /** The rule's matches, as a new array (the scratch ones are reused). */
  takeMatches(): readonly (Matcher | Unsupported)[] {
    if (this.extraHeader.length === 0) {
      const n = this.matches.length;
      if (n === 0) return NO_MATCHES;
      // A kube-proxy endpoint rule's statistic chance: 20,000 rules, one array.
      return (n === 1 && aloneIn(this.matches[0] as Matcher | Unsupported)) || this.matches.slice();
    }
    return [...this.extraHeader, ...this.matches];
  }
}

const scratch = new RuleCx();

/** A header option written twice does not fit the HeaderStore: it becomes a closure. */
function extraHeader(cx: RuleCx, item: CoreSpec, m: Matcher): void {
  cx.extraHeader.push(item.negated ? (c) => !m(c) : m);
}

/** `-p`, `-s`, `-d`, `-i`, `-o`, `-f` into the header. */
function compileCore(item: CoreSpec, cx: RuleCx, headers: HeaderStore, at: number): void {
  const neg = item.negated;
  switch (item.opt) {
    case '-p': {
      const p = PROTO_NUMBERS[item.value] ?? item.value;
      if (!KNOWN_PROTOS.has(p) && !/^\d+$/.test(p))
        fail(item.column, `unknown protocol '${item.value}'`, 'Use tcp, udp, icmp, sctp or all.');
      cx.addProto(item.value, neg);
      if (p === 'all' || p === '0') {
        if (!headers.setProto(at, 'all', neg)) extraHeader(cx, item, () => true);
      } else if (!headers.setProto(at, IPPROTO[p] ?? -1, neg))
        extraHeader(cx, item, (c) => c.pkt.proto === p);
      return;
    }
    case '-s':
    case '-d': {
      const which = item.opt === '-s' ? 'src' : 'dst';
      // The usual `10.96.0.10/32` without building a Cidr; anything else the general way.
      const packed = cx.family === 4 ? parseIPv4Prefix(item.value) : -1;
      if (packed >= 0) {
        const prefix = Math.floor(packed / 4294967296);
        const addr = packed - prefix * 4294967296;
        if (headers.setAddr4(at, which, addr, prefix, neg)) return;
      }
      const cidr = parseAddrOption(item.value, item.column, cx.family);
      const set =
        cx.family === 4
          ? headers.setAddr4(at, which, cidr.addr as number, cidr.prefix, neg)
          : headers.setAddr6(at, which, cidr, neg);
      if (set) return;
      const field = item.opt === '-s' ? 'srcNum' : 'dstNum';
      extraHeader(cx, item, (c) => {
        const n = c[field];
        return n !== null && cidrContainsNum(cidr, n);
      });
      return;
    }
    case '-i':
    case '-o': {
      if (headers.setIface(at, item.opt === '-i' ? 'in' : 'out', item.value, neg)) return;
      const name = item.value;
      const field = item.opt === '-i' ? 'inIf' : 'outIf';
      const prefix = name.endsWith('+') ? name.slice(0, -1) : null;
      extraHeader(cx, item, (c) => {
        const a = c[field];
        return a !== null && (prefix === null ? a === name : a.startsWith(prefix));
      });
      return;
    }
    case '-f':
      // The lab's packets are never fragments.
      headers.setFragment(at, neg);
      return;
  }
}

/** The checks iptables-restore makes on the target name before anything else. */
function checkTargetName(body: RuleBody, table: TableName, to: ChainRec | undefined): void {
  const t = body.target;
  if (!t || to) return;
  if ((BUILTIN_CHAINS[table] as readonly string[]).includes(t.name)) {
    fail(
      t.column,
      `cannot jump to built-in chain ${t.name}`,
      'Jump to a user-defined chain instead.',
    );
  }
  const ext = lookupTarget(t.name);
  if (!ext) {
    const looksLikeChain = /^[A-Z0-9-]+$/.test(t.name) && t.name.includes('-');
    fail(
      t.column,
      `no chain or target named '${t.name}' in table ${table}`,
      looksLikeChain
        ? `Declare the chain with a line ':${t.name} - [0:0]' in *${table}, above this rule.`
        : 'Check the spelling of the target.',
    );
  }
  const tables = ext.place?.tables;
  if (tables && !tables.includes(table))
    fail(t.column, `${t.name} is only valid in the ${tables.join('/')} table, not ${table}`);
}

/**
 * The operation of a target that is not a user chain (compileRule records a jump or goto to one
 * as the chain: its operation is made when a walk first takes it).
 */
function compileTarget(body: RuleBody, cx: RuleCx, to: ChainRec | undefined): TargetOp {
  const t = body.target;
  if (!t) return NO_TARGET;
  if (t.via === '-g' || to) {
    noOptions(t);
    if (!to) return fail(t.column, `-g needs a user-defined chain; '${t.name}' is not one`);
    return NO_TARGET;
  }
  const ext = lookupTarget(t.name);
  return ext ? ext.compile(t, cx) : { kind: 'unsupported', what: `target ${t.name}` };
}

export interface RulePlace {
  readonly table: TableRec;
  readonly chain: ChainRec;
  readonly family: 4 | 6;
  readonly index: number;
  readonly line: number;
  /** The rule's text is `source[textStart, textEnd)` of the input, unless `text` is given. */
  readonly textStart: number;
  readonly textEnd: number;
  readonly text: string | null;
  readonly counters: string | null;
}

/**
 * The user chain a target names, if declared so far: iptables-restore resolves a jump then. "So
 * far" is by line: a deferred chain's rule (ParseOptions.deferChains), compiled after the whole
 * text was read, does not see a chain declared below it.
 */
function userChain(table: TableRec, name: string, line: number): ChainRec | undefined {
  // A target's name is never a chain's (the reader refuses such a chain): for most rules of a
  // dump (DNAT, MARK, RETURN) the small table of targets answers, not the 50,000 chains.
  if (lookupTarget(name) !== undefined) return undefined;
  const c = table.chains.get(name);
  return c && !c.builtin && c.line <= line ? c : undefined;
}

/**
 * Compiles a rule read without syntax errors into its table (TableRec.setRule); its id, or a
 * diagnostic for a value iptables-restore refuses.
 */
export function compileRule(body: RuleBody, at: RulePlace): number | Diagnostic {
  const table = at.table;
  const headers = table.headers;
  const slot = headers.add();
  const id = slot / HEADER_STRIDE;
  const t = body.target;
  const to = t ? userChain(table, t.name, at.line) : undefined;
  table.cols.set(id, at.line, at.index, at.textStart, at.textEnd, at.text, at.counters);
  const cx = scratch;
  cx.reset(slot, at);
  try {
    checkTargetName(body, table.name, to);
    let stateful = false;
    for (const item of body.items) {
      if (item.kind === 'core') {
        compileCore(item, cx, headers, slot);
        continue;
      }
      const ext = item.ext;
      if (isStatefulModule(item.name, ext)) stateful = true;
      if (!ext || !ext.supported) cx.add({ unsupported: `match module '${item.name}'` });
      else ext.compile(item, cx);
    }
    const op = compileTarget(body, cx, to);
    // A jump names its chain by the chain's own string (the word read is a slice of the line).
    const goto = t?.via === '-g';
    table.setRule(id, at.chain, cx.takeMatches(), to ?? null, goto, op, t?.name ?? null);
    table.cols.setProbability(id, cx.probability);
    table.cols.setTarget(id, t?.column ?? 1, t?.via ?? null, stateful);
    return id;
  } catch (e) {
    headers.dropLast(slot);
    if (!(e instanceof RuleError)) throw e;
    return e.hint === undefined
      ? { severity: 'error', line: at.line, column: e.column, message: e.message }
      : { severity: 'error', line: at.line, column: e.column, message: e.message, hint: e.hint };
  }
}
