/**
 * The replay's table, rule by rule or stage by stage: the real trace beside the lab's, the
 * first disagreement scrolled into view once laid out, each row's number a button that moves the
 * lab to that row's step (a row the lab has no step for moves it to the lab's step before it).
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { scrollWithin } from '../components/scroll.ts';

export interface AlignedRow {
  readonly sim?: { readonly seq: number } | null;
}

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function AlignedTable<R extends AlignedRow>({
  a,
  label,
  className,
  verdict,
  rowClass,
  cells,
  onPick,
}: {
  a: { readonly rows: readonly R[]; readonly first: number | null; readonly host: string };
  /** The region's accessible name. */
  label: string;
  className: string;
  /** The sentence above the table; `show` brings the first disagreement into view. */
  verdict: (show: () => void) => ReactNode;
  rowClass: (r: R) => string;
  /** The real, simulated and status cells of a row; `seq`: the lab step it moves to. */
  cells: (r: R, seq: number | null) => ReactNode;
  onPick: (seq: number) => void;
}) {
  const { t } = useTranslation();
  const body = useRef<HTMLDivElement>(null);
  const row = (i: number) => body.current?.querySelector<HTMLElement>(`[data-row="${i}"]`);
  const show = (i: number) => {
    const el = row(i);
    if (body.current && el) scrollWithin(body.current, el, 'center');
    el?.querySelector<HTMLButtonElement>('button')?.focus();
  };
  // After the frame's layout: the rows and the panel's new height are settled by then.
  useEffect(() => {
    if (a.first === null) return;
    const id = requestAnimationFrame(() => {
      const el = row(a.first as number);
      if (body.current && el) scrollWithin(body.current, el, 'center');
    });
    return () => cancelAnimationFrame(id);
  }, [a]);
  let lastSeq: number | null = null;
  const seqs = a.rows.map((r) => (lastSeq = r.sim?.seq ?? lastSeq));
  return (
    <>
      {verdict(() => a.first !== null && show(a.first))}
      <div
        className="replay-body"
        ref={body}
        tabIndex={0}
        role="region"
        aria-label={label}
        data-testid="replay-rows"
      >
        <table className={className}>
          <thead>
            <tr>
              <th>{t('replay.col.n')}</th>
              <th>{t('replay.col.real')}</th>
              <th>{t('replay.col.sim', { host: a.host })}</th>
              <th>{t('replay.col.status')}</th>
            </tr>
          </thead>
          <tbody>
            {a.rows.map((r, i) => {
              const seq = seqs[i] ?? null;
              const first = i === a.first;
              return (
                <tr
                  key={i}
                  data-row={i}
                  data-testid={`replay-row-${i}`}
                  className={`${rowClass(r)}${first ? ' first' : ''}`}
                  aria-current={first ? 'true' : undefined}
                >
                  <td className="num">
                    {seq !== null ? (
                      <button
                        type="button"
                        className="text"
                        onClick={() => onPick(seq)}
                        aria-label={t('replay.goto', { n: i + 1 })}
                      >
                        {i + 1}
                      </button>
                    ) : (
                      i + 1
                    )}
                  </td>
                  {cells(r, seq)}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
