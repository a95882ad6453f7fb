/**
 * Compiles the statements of one nft rule, left to right, as nft's parser reads them
 * (nftables src/parser_bison.y, stmt and relational_expr): a key expression (payload, meta,
 * ct, fib, numgen; concatenated with ` . `), optionally masked (`mark and 0x4000`), then a
 * comparison with a value, a set (`@name`, `{ ... }`), a verdict map lookup (`vmap`), or a
 * `set` that writes it; or a statement (verdict, NAT, reject, counter, log, ...).
 */
import { fail, unsupported, UnsupportedError, type Cursor, type RuleCtx } from './cursor.ts';
import { inInterval, keyString, type DataType, type Interval, type Val } from './datatypes.ts';
import { textFrom } from './expr/family.ts';
import { keyFamily, stmtFamily } from './expr/registry.ts';
import { lookup } from './sets.ts';
import type { KeyExpr, NftSet, SetRef, Stmt } from './types.ts';
import type { NftCtx } from './context.ts';

const OPS: Readonly<Record<string, string>> = {
  '==': '==',
  eq: '==',
  '!=': '!=',
  ne: '!=',
  '<': '<',
  lt: '<',
  '>': '>',
  gt: '>',
  '<=': '<=',
  le: '<=',
  '>=': '>=',
  ge: '>=',
};

const BINOPS: Readonly<Record<string, 'and' | 'or' | 'xor' | 'lshift' | 'rshift'>> = {
  '&': 'and',
  and: 'and',
  '|': 'or',
  or: 'or',
  '^': 'xor',
  xor: 'xor',
  lshift: 'lshift',
  rshift: 'rshift',
};

export interface CompiledRule {
  readonly stmts: Stmt[];
  readonly stateful: boolean;
}

/** Compiles tokens [c.i, c.end) of a rule. Throws RuleError on invalid syntax. */
export function compileStatements(c: Cursor, r: RuleCtx, src: string): CompiledRule {
  const stmts: Stmt[] = [];
  let stateful = false;
  while (!c.atEnd()) {
    const t = c.peek();
    if (t?.kind === 'word' && t.text === 'comment') {
      const s = c.peek(1);
      if (!s || (s.kind !== 'string' && s.kind !== 'word'))
        fail(c.peek(1) ?? t, "'comment' needs a quoted text");
      r.comment = s.text;
      c.i += 2;
      continue;
    }
    const from = c.i;
    try {
      const s = statement(c, r, src);
      if (s.kind === 'update' || s.kind === 'write') stateful = true;
      if (s.kind === 'vmap' && s.key.some((k) => k.stateful)) stateful = true;
      stmts.push(s);
    } catch (e) {
      if (!(e instanceof UnsupportedError)) throw e;
      c.i = from;
      const text = textFrom(new CursorAtEnd(c), from, src);
      stmts.push({ kind: 'unsupported', text, what: e.what });
      r.diagnostics.push({
        severity: 'warning',
        line: e.tok?.line ?? 0,
        column: e.tok?.column ?? 0,
        message: `the lab cannot evaluate ${e.what}; a packet that reaches it stops there`,
      });
      stateful = true;
      break;
    }
  }
  return { stmts, stateful };
}

/** A view of a cursor positioned at its end, for the text of the rest of a rule. */
class CursorAtEnd {
  readonly toks: Cursor['toks'];
  readonly i: number;
  readonly end: number;
  constructor(c: Cursor) {
    this.toks = c.toks;
    this.i = c.end;
    this.end = c.end;
  }
}

function statement(c: Cursor, r: RuleCtx, src: string): Stmt {
  const t = c.peek();
  const w = c.word();
  if (w === undefined) return fail(t, `unexpected '${t?.text ?? ''}' here`);
  if ((w === 'update' || w === 'add') && c.word(1)?.startsWith('@')) return update(c, r, src);
  const sf = stmtFamily(w);
  if (sf) return sf.parse(c, r);
  if (!keyFamily(w)) return unsupported(t, `'${w}'`);
  const from = c.i;
  const keys = keyList(c, r);
  const next = c.word();
  if (next === 'set') return write(c, r, keys, from, src);
  if (next === 'vmap') {
    c.i++;
    const set = setOperand(c, r, keys, 'verdict');
    return { kind: 'vmap', text: textFrom(c, from, src), key: keys, set };
  }
  if (next === 'map') return unsupported(c.peek(), 'a data map lookup in a match');
  return relational(c, r, keys, from, src);
}

function keyList(c: Cursor, r: RuleCtx): KeyExpr[] {
  const keys = [masked(c, r, key(c, r))];
  while (c.isPunct('.') && keyFamily(c.word(1) ?? '')) {
    c.i++;
    keys.push(masked(c, r, key(c, r)));
  }
  return keys;
}

function key(c: Cursor, r: RuleCtx): KeyExpr {
  const w = c.word() ?? '';
  const kf = keyFamily(w);
  if (!kf) return fail(c.here(), `'${w}' cannot be read from a packet`);
  return kf.parse(c, r);
}

/** `mark and 0x4000`, `tcp flags & (syn | ack)`: bitwise operations on a key. */
function masked(c: Cursor, r: RuleCtx, k: KeyExpr): KeyExpr {
  let out = k;
  for (;;) {
    const t = c.peek();
    const op = t && (t.kind === 'word' || t.kind === 'punct') ? BINOPS[t.text] : undefined;
    if (!op) return out;
    c.i++;
    const operand = maskValue(c, r, out.type);
    const inner = out;
    const apply = (v: number): number => {
      switch (op) {
        case 'and':
          return (v & operand) >>> 0;
        case 'or':
          return (v | operand) >>> 0;
        case 'xor':
          return (v ^ operand) >>> 0;
        case 'lshift':
          return (v << operand) >>> 0;
        case 'rshift':
          return v >>> operand;
      }
    };
    out = {
      text: `${inner.text} ${op} ${operand}`,
      type: inner.type,
      get: (x) => {
        const v = inner.get(x);
        return typeof v === 'number' ? apply(v) : null;
      },
      ...(inner.stateful ? { stateful: true } : {}),
    };
  }
}

function maskValue(c: Cursor, r: RuleCtx, type: DataType): number {
  let n = 0;
  const one = () => {
    const iv = r.value(c, type);
    if (typeof iv.lo !== 'number' || iv.lo !== iv.hi) fail(c.last(), 'a mask is a single number');
    n = (n | iv.lo) >>> 0;
  };
  if (c.isPunct('(')) {
    c.i++;
    one();
    while (c.isPunct('|')) {
      c.i++;
      one();
    }
    if (!c.isPunct(')')) fail(c.here(), "this '(' has no closing ')'");
    c.i++;
  } else one();
  return n;
}

/** `@name` or `{ ... }` after a key, typed by the key (concatenations give several fields). */
function setOperand(
  c: Cursor,
  r: RuleCtx,
  keys: readonly KeyExpr[],
  data: 'verdict' | null,
): SetRef {
  const t = c.peek();
  if (t?.kind === 'word' && t.text.startsWith('@')) {
    c.i++;
    return r.setRef(
      t.text.slice(1),
      t,
      keys.map((k) => k.type),
      data ? 'vmap' : 'lookup',
    );
  }
  if (c.isPunct('{')) {
    const set = r.anonymous(
      c,
      keys.map((k) => k.type),
      data,
    );
    return { name: set.name, set };
  }
  return fail(t ?? c.last(), data ? "'vmap' needs @map or { key : verdict, ... }" : 'a set here');
}

function lookupTest(ref: SetRef, keys: readonly KeyExpr[], negate: boolean) {
  return (x: NftCtx): boolean => {
    const vals: Val[] = [];
    for (const k of keys) {
      const v = k.get(x);
      if (v === null) return false;
      vals.push(v);
    }
    const hit = lookup(ref.set as NftSet, vals, x) !== null;
    return negate ? !hit : hit;
  };
}

function relational(c: Cursor, r: RuleCtx, keys: KeyExpr[], from: number, src: string): Stmt {
  const opTok = c.peek();
  let op = opTok?.kind === 'word' ? OPS[opTok.text] : undefined;
  const explicit = op !== undefined;
  if (explicit) c.i++;
  op ??= '==';
  const rhs = c.peek();
  if (!rhs)
    fail(c.last(), `'${keys.map((k) => k.text).join(' . ')}' needs a value to compare with`);
  if ((rhs.kind === 'word' && rhs.text.startsWith('@')) || c.isPunct('{')) {
    if (op !== '==' && op !== '!=') fail(rhs, `'${op}' cannot compare with a set`);
    const ref = setOperand(c, r, keys, null);
    return { kind: 'test', text: textFrom(c, from, src), test: lookupTest(ref, keys, op === '!=') };
  }
  // A concatenation compared with one concatenated value: an exact tuple.
  const values: Interval[] = [];
  keys.forEach((k, i) => {
    if (i > 0) {
      if (!c.isPunct('.')) fail(c.here(), `write ${keys.length} values joined by ' . '`);
      c.i++;
    }
    values.push(r.value(c, k.type));
  });
  const k0 = keys[0] as KeyExpr;
  if (keys.length === 1 && k0.type.kind === 'bitmask' && (!explicit || op === '!=')) {
    // `ct state established,related`: any of these bits (nft's implicit flag comparison).
    let mask = values[0]?.lo as number;
    while (c.isPunct(',')) {
      c.i++;
      mask = (mask | (r.value(c, k0.type).lo as number)) >>> 0;
    }
    const none = op === '!=';
    return {
      kind: 'test',
      text: textFrom(c, from, src),
      test: (x) => {
        const v = k0.get(x);
        if (typeof v !== 'number') return false;
        return ((v & mask) !== 0) !== none;
      },
    };
  }
  if (keys.length > 1) {
    const k = keyString(values.map((v) => v.lo));
    const exactTuple = values.every((v) => v.lo === v.hi);
    if (!exactTuple || (op !== '==' && op !== '!='))
      unsupported(rhs, 'a concatenation compared with ranges or by order');
    return {
      kind: 'test',
      text: textFrom(c, from, src),
      test: (x) => {
        const vals: Val[] = [];
        for (const kk of keys) {
          const v = kk.get(x);
          if (v === null) return false;
          vals.push(v);
        }
        return (keyString(vals) === k) === (op === '==');
      },
    };
  }
  const iv = values[0] as Interval;
  return { kind: 'test', text: textFrom(c, from, src), test: compare(k0, op, iv) };
}

function compare(k: KeyExpr, op: string, iv: Interval): (x: NftCtx) => boolean {
  switch (op) {
    case '==':
      return (x) => {
        const v = k.get(x);
        return v !== null && inInterval(v, iv);
      };
    case '!=':
      return (x) => {
        const v = k.get(x);
        return v !== null && typeof v === typeof iv.lo && !inInterval(v, iv);
      };
    case '<':
      return (x) => cmp(k.get(x), iv.lo, (a, b) => a < b);
    case '>':
      return (x) => cmp(k.get(x), iv.lo, (a, b) => a > b);
    case '<=':
      return (x) => cmp(k.get(x), iv.lo, (a, b) => a <= b);
    default:
      return (x) => cmp(k.get(x), iv.lo, (a, b) => a >= b);
  }
}

function cmp(v: Val | null, w: Val, f: (a: Val, b: Val) => boolean): boolean {
  return v !== null && typeof v === typeof w && f(v, w);
}

/** `mark set mark or 0x4000`, `ct mark set mark`, `meta nftrace set 1`. */
function write(c: Cursor, r: RuleCtx, keys: KeyExpr[], from: number, src: string): Stmt {
  const target = keys[0] as KeyExpr;
  if (keys.length > 1 || !target.writable)
    return unsupported(c.peek(), `writing '${keys.map((k) => k.text).join(' . ')}'`);
  c.i++;
  let value: (x: NftCtx) => number | null;
  const w = c.word() ?? '';
  if (keyFamily(w)) {
    const src2 = masked(c, r, key(c, r));
    value = (x) => {
      const v = src2.get(x);
      return typeof v === 'number' ? v : null;
    };
  } else {
    const iv = r.value(c, target.type);
    if (typeof iv.lo !== 'number') fail(c.last(), 'write a number here');
    const n = iv.lo;
    value = () => n;
  }
  return { kind: 'write', text: textFrom(c, from, src), what: target.writable, value };
}

/** `update @set { ip saddr [timeout 10s] }`: adds the key to a dynamic set (nft_dynset.c). */
function update(c: Cursor, r: RuleCtx, src: string): Stmt {
  const from = c.i;
  c.i++;
  const ref = c.next();
  if (!ref) return fail(c.last(), 'a set name @name here');
  if (!c.isPunct('{')) fail(c.here(), "the key to add goes in { }, e.g. '{ ip saddr }'");
  c.i++;
  const keys = keyList(c, r);
  const setRef = r.setRef(
    ref.text.slice(1),
    ref,
    keys.map((k) => k.type),
    'update',
  );
  while (c.word() === 'timeout' || c.word() === 'counter') c.i += c.word() === 'counter' ? 1 : 2;
  if (!c.isPunct('}')) fail(c.here(), "this '{' has no closing '}'");
  c.i++;
  return { kind: 'update', text: textFrom(c, from, src), set: setRef, key: keys };
}
