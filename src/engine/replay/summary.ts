/**
 * What the rule-level and the stage-level replays say of an alignment, the same way: where the
 * first disagreement is and how many rows agree; and which of the run's host/packet alignments
 * is the trace's (a trace names neither the node it was taken on nor the packet).
 */

export interface Summary<R> {
  readonly host: string;
  readonly packetId: number;
  readonly rows: readonly R[];
  /** Index in `rows` of the first disagreement, or null: the traces agree. */
  readonly first: number | null;
  readonly same: number;
  readonly disagreements: number;
}

export function summarise<R extends { readonly status: string }>(
  host: string,
  packetId: number,
  rows: readonly R[],
  disagrees: (s: R['status']) => boolean,
): Summary<R> {
  const first = rows.findIndex((r) => disagrees(r.status));
  return {
    host,
    packetId,
    rows,
    first: first < 0 ? null : first,
    same: rows.filter((r) => r.status === 'same').length,
    disagreements: rows.filter((r) => disagrees(r.status)).length,
  };
}

/** The alignment with the most rows in common, then the fewest disagreements. */
export function better<R>(a: Summary<R>, best: Summary<R> | null): boolean {
  return (
    !best || a.same > best.same || (a.same === best.same && a.disagreements < best.disagreements)
  );
}
