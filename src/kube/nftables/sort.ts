/**
 * kube-proxy's test helper `sortNFTablesTransaction` (pkg/proxy/nftables/helpers_test.go, read at
 * kubernetes/kubernetes@803d40a5; `assertNFTablesTransactionEqual` sorts both the expected text
 * and the fake's `Dump()` with it and compares): blank lines and `#` comments dropped, then a
 * stable sort by object type (table, chain, rule, set, map, element), then by object name (the
 * fifth word), rules of one chain kept in their order, other lines of one object by whole line.
 */
const OBJECT_ORDER: Readonly<Record<string, number>> = {
  table: 10,
  chain: 9,
  rule: 8,
  set: 7,
  map: 6,
  element: 5,
};

function compare(li: string, lj: string): number {
  const wi = li.split(' ');
  const wj = lj.split(' ');
  // Go's comparator answers "not less" for short lines: they keep their place.
  if (wi.length < 5 || wj.length < 5) return 0;
  const ti = wi[1] as string;
  const tj = wj[1] as string;
  if (ti !== tj) return (OBJECT_ORDER[tj] ?? 0) - (OBJECT_ORDER[ti] ?? 0);
  const ni = wi[4] as string;
  const nj = wj[4] as string;
  if (ni !== nj) return ni < nj ? -1 : 1;
  if (ti === 'rule') return 0;
  return li < lj ? -1 : li > lj ? 1 : 0;
}

/** The tests' normal form of an nftables transaction, lines joined with `\n`. */
export function sortNftablesTransaction(tx: string): string {
  const lines = tx.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  // Array.prototype.sort is stable, as Go's sort.SliceStable.
  return lines.sort(compare).join('\n');
}
