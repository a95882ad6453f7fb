/**
 * Sets and maps: elements as written (`{ 10.0.0.1 . tcp . 80 comment "x" : goto svc, ... }`),
 * and lookups. Exact keys are found by hash, as the kernel's hash set backend does
 * (nft_set_hash.c); prefixes and ranges by scan (nft_set_rbtree.c / nft_set_pipapo.c find the
 * same element, an interval containing the key).
 */
import type { NftCtx } from './context.ts';
import { fail, type Cursor, type RuleCtx } from './cursor.ts';
import { inInterval, keyString, type Interval, type Val } from './datatypes.ts';
import type { NftSet, SetElement } from './types.ts';

export function newSet(
  name: string,
  kind: 'set' | 'map',
  anonymous: boolean,
  line: number,
  column: number,
  handle: number,
): NftSet {
  return {
    name,
    kind,
    anonymous,
    line,
    column,
    handle,
    fields: [],
    data: null,
    flags: new Set(anonymous ? ['constant', 'anonymous'] : []),
    comment: null,
    timeout: 0,
    exact: new Map(),
    ranges: [],
    text: '',
  };
}

function isExact(iv: Interval): boolean {
  return iv.lo === iv.hi;
}

export function addElement(set: NftSet, e: SetElement): void {
  if (e.key.every(isExact)) set.exact.set(keyString(e.key.map((k) => k.lo)), e);
  else set.ranges.push(e);
}

export function deleteElement(set: NftSet, key: readonly Interval[]): boolean {
  if (key.every(isExact)) return set.exact.delete(keyString(key.map((k) => k.lo)));
  const i = set.ranges.findIndex((e) =>
    e.key.every((iv, k) => iv.lo === key[k]?.lo && iv.hi === key[k]?.hi),
  );
  if (i >= 0) set.ranges.splice(i, 1);
  return i >= 0;
}

export function elementCount(set: NftSet): number {
  return set.exact.size + set.ranges.length;
}

/** The element whose key holds `vals`, or null (nft_lookup_eval: NFT_BREAK on a miss). */
export function lookup(set: NftSet, vals: readonly Val[], c?: NftCtx): SetElement | null {
  const k = keyString(vals);
  const hit = set.exact.get(k);
  if (hit) return hit;
  for (const e of set.ranges) {
    if (e.key.every((iv, j) => inInterval(vals[j] as Val, iv))) return e;
  }
  if (c && set.flags.has('dynamic')) {
    const exp = c.dynamic.get(`${c.table} ${set.name}`)?.get(k);
    if (exp !== undefined && exp > c.now) return DYNAMIC_HIT;
  }
  return null;
}

const DYNAMIC_HIT: SetElement = { key: [], data: null, comment: null, line: 0 };

/**
 * Reads `{ element, element, ... }` at the cursor (on the `{`) into `set`, typed by its fields
 * and data. Newlines inside the braces were dropped by the caller.
 */
export function readElements(c: Cursor, set: NftSet, r: RuleCtx, into = true): SetElement[] {
  const open = c.next();
  if (!open || open.kind !== 'punct' || open.text !== '{') fail(open, "a set's elements go in { }");
  const out: SetElement[] = [];
  if (set.fields.length === 0) fail(open, `the type of ${set.name} must come before its elements`);
  for (;;) {
    if (c.isPunct('}')) {
      c.i++;
      return out;
    }
    if (c.atEnd()) fail(open, 'this { has no closing }');
    const first = c.peek();
    const key: Interval[] = [];
    set.fields.forEach((type, k) => {
      if (k > 0) {
        if (!c.isPunct('.'))
          fail(c.here(), `${set.name} has ${set.fields.length} key fields joined by ' . '`);
        c.i++;
      }
      key.push(r.value(c, type));
    });
    let comment: string | null = null;
    for (;;) {
      const w = c.word();
      if (w === 'comment' && c.peek(1)?.kind === 'string') {
        comment = c.peek(1)?.text ?? null;
        c.i += 2;
      } else if (w === 'timeout' || w === 'expires') c.i += 2;
      else if (w === 'counter') {
        c.i++;
        while (c.word() === 'packets' || c.word() === 'bytes') c.i += 2;
      } else break;
    }
    let data: SetElement['data'] = null;
    if (set.kind === 'map') {
      if (!c.isPunct(':')) fail(c.here(), `${set.name} is a map: write KEY : VALUE`);
      c.i++;
      data = set.data === 'verdict' ? r.verdict(c) : r.value(c, set.data ?? set.fields[0]!);
    }
    const e: SetElement = { key, data, comment, line: first?.line ?? 0 };
    out.push(e);
    if (into) addElement(set, e);
    if (c.isPunct(',')) c.i++;
    else if (!c.isPunct('}')) fail(c.here(), "elements are separated by ',' and closed by '}'");
  }
}
