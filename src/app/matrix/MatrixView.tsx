/**
 * The probe matrix beside the diagram: senders down, exposed addresses across, each cell one
 * probe (icon, word and colour: never colour alone), the scenario's expectation marked ✓/✗, the
 * cells that differ in the compared variant marked ≠. Enter or a click on a cell traces its path
 * in the diagram; arrow keys move between cells; the cell in focus is described below the table.
 */
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from '../components/context.tsx';
import { useMatrix } from '../compare/views.tsx';
import { usePrefs } from '../components/prefs.tsx';
import type { MatrixCell } from '../worker/matrix-protocol.ts';
import type { MatrixSide } from './controller.ts';
import { cellSummary, compareTitle, differs, shortResponder } from './cells.ts';
import { CellDetail, MatrixStatus } from './MatrixParts.tsx';

const ICON: Record<MatrixCell['outcome'], string> = {
  answered: '●',
  refused: '⊘',
  timeout: '◌',
  split: '◐',
  unsupported: '?',
  error: '!',
};

/** `row:col` → cell, for one side. */
function cellMap(side: MatrixSide | null): Map<string, MatrixCell> {
  const m = new Map<string, MatrixCell>();
  for (const c of side?.cells ?? []) if (c) m.set(`${c.from}|${c.to}`, c);
  return m;
}

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function MatrixView({ onTraced }: { onTraced?: () => void }) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const a = useMatrix((s) => s.a);
  const b = useMatrix((s) => s.b);
  const scenario = useLab((s) => s.scenario);
  const compare = useLab((s) => s.compare);
  const actions = useActions();
  const [focus, setFocus] = useState<string | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const other = compare ? compareTitle(compare, scenario, lang, t) : null;
  const bCells = useMemo(() => cellMap(b), [b]);
  const layout = a?.layout ?? null;
  const byPos = useMemo(() => {
    const m = new Map<string, MatrixCell>();
    for (const c of a?.cells ?? []) if (c) m.set(`${c.row}:${c.col}`, c);
    return m;
  }, [a]);
  const applicable = useMemo(
    () => new Set(layout?.pairs.map((p) => `${p.row}:${p.col}`) ?? []),
    [layout],
  );
  const differing = useMemo(() => {
    if (!b || b.status !== 'done' || !a) return null;
    return (a.cells.filter(Boolean) as MatrixCell[]).filter((c) => {
      const o = bCells.get(`${c.from}|${c.to}`);
      return !o || differs(c, o);
    }).length;
  }, [a, b, bCells]);

  if (!scenario) return <p className="matrix-status">{t('matrix.empty')}</p>;

  const trace = (c: MatrixCell) => {
    actions.setPath({ from: c.from, to: c.to, proto: c.proto });
    actions.setView('diagram');
    onTraced?.();
  };

  // Arrow keys move between cells (the lab's own arrow keys step the hidden diagram otherwise).
  const onKey = (e: KeyboardEvent<HTMLTableElement>) => {
    const el = e.target instanceof HTMLElement ? e.target.closest<HTMLElement>('[data-row]') : null;
    if (!el || !layout) return;
    const d: Record<string, [number, number]> = {
      ArrowRight: [0, 1],
      ArrowLeft: [0, -1],
      ArrowDown: [1, 0],
      ArrowUp: [-1, 0],
    };
    const step = d[e.key];
    if (!step) return;
    e.preventDefault();
    let row = Number(el.dataset.row);
    let col = Number(el.dataset.col);
    for (;;) {
      row += step[0];
      col += step[1];
      if (row < 0 || col < 0 || row >= layout.senders.length || col >= layout.columns.length)
        return;
      const next = table.current?.querySelector<HTMLElement>(
        `[data-row="${row}"][data-col="${col}"]`,
      );
      if (next) {
        next.focus();
        return;
      }
    }
  };

  const focused = focus ? (a?.cells.find((c) => c && `${c.row}:${c.col}` === focus) ?? null) : null;
  return (
    <section
      className={`matrix-view${a?.status === 'invalid' ? ' is-stale' : ''}`}
      aria-label={t('matrix.region')}
      data-testid="matrix"
      data-status={a?.status ?? 'none'}
    >
      <MatrixStatus side={a} other={other} differing={differing} />
      {layout && (
        <div className="matrix-scroll">
          <table className="matrix-table" ref={table} onKeyDown={onKey}>
            <thead>
              <tr>
                <th scope="col" className="matrix-corner">
                  {t('matrix.corner')}
                </th>
                {layout.columns.map((col) => (
                  <th scope="col" key={col.id} title={col.label}>
                    <span className="matrix-col-id">{breakable(col.id)}</span>
                    <span className="matrix-col-addr">
                      {col.ownNode ? t('matrix.ownNode') : `${col.address}:${col.port}`}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {layout.senders.map((s, row) => (
                <tr key={s.id}>
                  <th scope="row" title={s.label}>
                    <span className="matrix-row-id">{s.id}</span>
                  </th>
                  {layout.columns.map((col, ci) => {
                    const c = byPos.get(`${row}:${ci}`);
                    if (!applicable.has(`${row}:${ci}`))
                      return (
                        <td key={col.id} className="matrix-na" title={t('matrix.na')}>
                          <span aria-label={t('matrix.na')}>·</span>
                        </td>
                      );
                    if (!c)
                      return (
                        <td key={col.id} className="matrix-pending">
                          <span aria-hidden="true">…</span>
                        </td>
                      );
                    const o = compare ? (bCells.get(`${c.from}|${c.to}`) ?? null) : null;
                    return (
                      <td key={col.id}>
                        <CellButton
                          cell={c}
                          other={o}
                          otherTitle={other}
                          onTrace={trace}
                          onFocus={() => setFocus(`${row}:${ci}`)}
                        />
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CellDetail
        cell={focused}
        layout={layout}
        other={focused ? (bCells.get(`${focused.from}|${focused.to}`) ?? null) : null}
        otherTitle={other}
      />
    </section>
  );
}

/** `nodeport/web@core-1` with places to wrap after `/` and `@`. */
function breakable(id: string) {
  return id.split(/(?<=[/@])/).map((part, i) => (
    <span key={i}>
      {part}
      <wbr />
    </span>
  ));
}

function CellButton({
  cell: c,
  other,
  otherTitle,
  onTrace,
  onFocus,
}: {
  cell: MatrixCell;
  other: MatrixCell | null;
  otherTitle: string | null;
  onTrace: (c: MatrixCell) => void;
  onFocus: () => void;
}) {
  const { t } = useTranslation();
  const word = t(`matrix.outcome.${c.outcome}`);
  const who = shortResponder(c.answeredBy);
  const diff = other !== null && differs(c, other);
  const summary = cellSummary(c, t);
  const label = [
    t('matrix.cellLabel', { from: c.from, to: c.to, summary }),
    diff && other && otherTitle
      ? t('matrix.other', { other: otherTitle, outcome: cellSummary(other, t) })
      : '',
  ]
    .filter(Boolean)
    .join('. ');
  return (
    <button
      type="button"
      className={`matrix-cell o-${c.outcome}${c.matches === false ? ' is-bad' : ''}${diff ? ' is-diff' : ''}`}
      data-row={c.row}
      data-col={c.col}
      data-testid={`cell-${c.from}>${c.to}`}
      data-outcome={c.outcome}
      data-matches={c.matches === null ? '' : String(c.matches)}
      data-differs={diff ? 'true' : undefined}
      aria-label={label}
      title={label}
      onClick={() => onTrace(c)}
      onFocus={onFocus}
      onMouseEnter={onFocus}
    >
      <span className="cell-line">
        <span className="cell-icon" aria-hidden="true">
          {ICON[c.outcome]}
        </span>
        <span className="cell-word">{word}</span>
        {c.partial && (
          <span className="cell-mark" aria-hidden="true">
            *
          </span>
        )}
        {c.matches !== null && (
          <span className={`cell-mark ${c.matches ? 'ok' : 'bad'}`} aria-hidden="true">
            {c.matches ? '✓' : '✗'}
          </span>
        )}
        {diff && (
          <span className="cell-mark diff" aria-hidden="true">
            ≠
          </span>
        )}
      </span>
      {who && <span className="cell-who">{who}</span>}
    </button>
  );
}
