/**
 * The path picker's senders and destinations as the worker keeps them: one string per column
 * (the values joined by a separator no name holds), not one object per choice, so the result
 * cache stores and reads a few strings. A 400-Service x 100-replica cluster offers 80,000 choices:
 * even as ten strings (9.7 MB) their structured clone held the page's main thread for ~50 ms, so
 * they stay in the worker (choice-server.ts). The page gets the options the picker shows (at most
 * PICKER_MAX per list, see ChoicesSummary) and asks the worker for the matches of a filter
 * (filtering 80,000 choices is a few `indexOf` over one string).
 */
import type { DestinationChoice, PathChoices, SenderChoice } from '../../cluster/types.ts';

/** Options a picker lists at most; past that a filter narrows them (a native select stays fast). */
export const PICKER_MAX = 150;

/** Between two values of a column; Kubernetes names and addresses cannot hold it. */
const SEP = '\u0001';

/** A column: its values joined by SEP, or (a value holds SEP after all) the values themselves. */
type Column = string | readonly string[];

/** Choices of one kind as columns (plain data: it crosses the worker boundary). */
export interface PackedList<T> {
  readonly count: number;
  readonly columns: { readonly [K in keyof T]: Column };
  /** Columns whose values are numbers (written in decimal). */
  readonly numeric: readonly (keyof T)[];
}

export interface PackedChoices {
  readonly senders: PackedList<SenderChoice>;
  readonly destinations: PackedList<DestinationChoice>;
}

function packList<T extends object>(
  items: readonly T[],
  keys: readonly (keyof T)[],
  numeric: readonly (keyof T)[] = [],
): PackedList<T> {
  const columns = {} as { [K in keyof T]: Column };
  for (const k of keys) {
    const values = items.map((x) => String(x[k]));
    columns[k] = values.some((v) => v.includes(SEP)) ? values : values.join(SEP);
  }
  return { count: items.length, columns, numeric };
}

const SENDER_KEYS: readonly (keyof SenderChoice)[] = ['id', 'kind', 'label', 'host'];
const DEST_KEYS: readonly (keyof DestinationChoice)[] = [
  'id',
  'kind',
  'label',
  'address',
  'port',
  'proto',
];

export function packChoices(c: PathChoices): PackedChoices {
  return {
    senders: packList(c.senders, SENDER_KEYS),
    destinations: packList(c.destinations, DEST_KEYS, ['port']),
  };
}

/** The choices as the picker reads them: a count, and the options to show for a filter. */
export interface ChoiceList<T> {
  readonly length: number;
  /**
   * The options matching `filter` (in the id or the label, ignoring case), at most `max`, plus
   * the chosen one wherever it is among the matches; `more`: matches left out.
   */
  bounded(filter: string, chosen: string, max: number): { shown: T[]; more: number };
}

/** Row boundaries of a joined column, computed once per column. */
class ColumnIndex {
  private starts: Int32Array | null = null;
  private lower: string | null = null;
  constructor(
    private readonly col: Column,
    private readonly count: number,
  ) {}

  value(i: number): string {
    if (typeof this.col !== 'string') return this.col[i] as string;
    const s = this.rowStarts();
    const end = i + 1 < this.count ? (s[i + 1] as number) - 1 : this.col.length;
    return this.col.slice(s[i], end);
  }

  /** Rows whose value contains `f` (already lower case), in order, into `into`. */
  matches(f: string, into: Set<number>): void {
    if (typeof this.col !== 'string') {
      this.col.forEach((v, i) => v.toLowerCase().includes(f) && into.add(i));
      return;
    }
    this.lower ??= this.col.toLowerCase();
    const s = this.rowStarts();
    for (let p = this.lower.indexOf(f); p >= 0;) {
      const row = this.rowAt(p);
      into.add(row);
      // The next match starts after this row: one row is listed once.
      const next = row + 1 < this.count ? (s[row + 1] as number) : this.lower.length;
      p = this.lower.indexOf(f, Math.max(p + 1, next));
    }
  }

  /** The row whose value is `v`, or -1. */
  find(v: string): number {
    if (typeof this.col !== 'string') return this.col.indexOf(v);
    const col = this.col;
    for (let p = col.indexOf(v); p >= 0; p = col.indexOf(v, p + 1)) {
      const end = p + v.length;
      if ((p === 0 || col[p - 1] === SEP) && (end === col.length || col[end] === SEP))
        return this.rowAt(p);
    }
    return -1;
  }

  /** The row holding offset `p` (binary search over the row starts). */
  private rowAt(p: number): number {
    const s = this.rowStarts();
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((s[mid] as number) <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private rowStarts(): Int32Array {
    if (this.starts) return this.starts;
    const col = this.col as string;
    const s = new Int32Array(this.count);
    let p = 0;
    for (let i = 0; i < this.count; i++) {
      s[i] = p;
      p = col.indexOf(SEP, p) + 1;
    }
    return (this.starts = s);
  }
}

function listOf<T extends { id: string; label: string }>(p: PackedList<T>): ChoiceList<T> {
  const keys = Object.keys(p.columns) as (keyof T)[];
  const index = new Map(keys.map((k) => [k, new ColumnIndex(p.columns[k], p.count)]));
  const col = (k: keyof T) => index.get(k) as ColumnIndex;
  const row = (i: number): T => {
    const o = {} as Record<keyof T, unknown>;
    for (const k of keys) {
      const v = col(k).value(i);
      o[k] = p.numeric.includes(k) ? Number(v) : v;
    }
    return o as T;
  };
  return {
    length: p.count,
    bounded(filter, chosen, max) {
      const f = filter.trim().toLowerCase();
      const shown: T[] = [];
      if (!f) {
        for (let i = 0; i < Math.min(max, p.count); i++) shown.push(row(i));
        // The chosen option stays listed, however far down it is.
        const at = p.count > max && chosen ? col('id').find(chosen) : -1;
        if (at >= max) shown.push(row(at));
        return { shown, more: p.count - shown.length };
      }
      const hit = new Set<number>();
      col('label').matches(f, hit);
      col('id').matches(f, hit);
      const rows = [...hit].sort((a, b) => a - b);
      for (const i of rows.slice(0, max)) shown.push(row(i));
      if (rows.length > max && chosen) {
        const at = rows.slice(max).find((i) => col('id').value(i) === chosen);
        if (at !== undefined) shown.push(row(at));
      }
      return { shown, more: rows.length - shown.length };
    },
  };
}

const lists = new WeakMap<
  PackedChoices,
  { senders: ChoiceList<SenderChoice>; destinations: ChoiceList<DestinationChoice> }
>();

/** The page's view of a result's choices; made once per result. */
export function choiceLists(c: PackedChoices): {
  readonly senders: ChoiceList<SenderChoice>;
  readonly destinations: ChoiceList<DestinationChoice>;
} {
  let l = lists.get(c);
  if (!l) lists.set(c, (l = { senders: listOf(c.senders), destinations: listOf(c.destinations) }));
  return l;
}

/** Options of one list as the picker shows them: at most `max`, and how many matches are left out. */
export interface Bounded<T> {
  readonly shown: readonly T[];
  readonly more: number;
}

/** What the picker asks the worker for: the options of the result `key` matching `filter`. */
export interface ChoicesQuery {
  /** Which result's choices (ChoicesSummary.key). */
  readonly key: number;
  readonly filter: string;
  /** The chosen sender and destination: listed among the matches wherever they are. */
  readonly from: string;
  readonly to: string;
}

/** The options matching a query's filter (the query comes back with them). */
export interface ShownChoices {
  readonly query: ChoicesQuery;
  readonly senders: Bounded<SenderChoice>;
  readonly destinations: Bounded<DestinationChoice>;
}

/**
 * A result's choices as the page gets them: how many there are, and the options shown with no
 * filter for the sender and destination the run took (with at most PICKER_MAX per list, that is
 * every choice of an ordinary scenario).
 */
export interface ChoicesSummary {
  readonly key: number;
  readonly senders: number;
  readonly destinations: number;
  readonly unfiltered: ShownChoices;
}

/** The options of `lists` for a query (the picker's search, run where the choices are). */
export function showChoices(
  lists: ReturnType<typeof choiceLists>,
  query: ChoicesQuery,
  max = PICKER_MAX,
): ShownChoices {
  return {
    query,
    senders: lists.senders.bounded(query.filter, query.from, max),
    destinations: lists.destinations.bounded(query.filter, query.to, max),
  };
}
