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
import type { MatrixCell, MatrixLayout } from '../worker/matrix-protocol.ts';
import type { MatrixSide } from './controller.ts';
import { cellSummary, compareTitle, differs, shortResponder } from './cells.ts';

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

function MatrixStatus({
  side,
  other,
  differing,
}: {
  side: MatrixSide | null;
  other: string | null;
  differing: number | null;
}) {
  const { t } = useTranslation();
  const l = side?.layout;
  const parts: string[] = [];
  if (l) parts.push(t('matrix.caption', { senders: l.senders.length, columns: l.columns.length }));
  return (
    <div className="matrix-status" role="status" data-testid="matrix-status">
      {parts.map((p) => (
        <span key={p}>{p}</span>
      ))}
      {side && l && side.status === 'running' && (
        <span className="matrix-progress">
          {t('matrix.progress', { done: side.done, total: l.pairs.length })}
        </span>
      )}
      {side?.status === 'invalid' && <span className="matrix-warn">{t('matrix.invalid')}</span>}
      {side?.status === 'error' && (
        <span className="matrix-warn">{t('matrix.error', { message: side.message ?? '' })}</span>
      )}
      {l?.limited && (
        <span className="matrix-warn" data-testid="matrix-limited">
          {t('matrix.limited', {
            senders: l.limited.senders.shown,
            sendersTotal: l.limited.senders.total,
            columns: l.limited.columns.shown,
            columnsTotal: l.limited.columns.total,
          })}
        </span>
      )}
      {other && differing !== null && (
        <span className="matrix-differs" data-testid="matrix-differs">
          {differing
            ? t('matrix.differs', { count: differing, other })
            : t('matrix.noDiffer', { other })}
        </span>
      )}
      {l && l.unplaced.length > 0 && (
        <span className="matrix-warn">
          {t('matrix.unplaced', {
            list: l.unplaced.map((u) => `${u.probe} (${u.error})`).join('; '),
          })}
        </span>
      )}
    </div>
  );
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

function CellDetail({
  cell: c,
  layout,
  other,
  otherTitle,
}: {
  cell: MatrixCell | null;
  layout: MatrixLayout | null;
  other: MatrixCell | null;
  otherTitle: string | null;
}) {
  const { t } = useTranslation();
  if (!c || !layout) return <div className="matrix-detail" aria-hidden="true" />;
  return (
    <div className="matrix-detail" data-testid="matrix-detail" aria-live="polite">
      <div className="matrix-detail-head">
        <code>{c.from}</code> → <code>{c.to}</code>
        {c.address && <span className="muted"> ({c.address})</span>}
        <span className={`matrix-pill o-${c.outcome}`}>{t(`matrix.outcome.${c.outcome}`)}</span>
      </div>
      <ul>
        {c.error && <li>{c.error}</li>}
        {c.branches.map((br, i) => (
          <li key={i}>
            {c.branches.length > 1 && <strong>{(br.share * 100).toFixed(1)}% </strong>}
            {br.responder
              ? [
                  t('matrix.by', { who: br.responder }),
                  br.srcSeen
                    ? t('matrix.src', {
                        src: `${br.srcSeen}${br.srcSeenAs ? ` (${br.srcSeenAs})` : ''}`,
                      })
                    : '',
                ]
                  .filter(Boolean)
                  .join(', ')
              : br.detail}
          </li>
        ))}
        {c.partial && (
          <li>{t('matrix.partial', { p: `${(c.partial.covered * 100).toFixed(1)}%` })}</li>
        )}
        {c.expected !== null && (
          <li className={c.matches ? 'ok' : 'bad'}>
            {c.matches ? '✓ ' : '✗ '}
            {t('matrix.expected', { expected: c.expected })} —{' '}
            {t(c.matches ? 'matrix.ok' : 'matrix.bad')}
            {c.diff.map((d) => (
              <div key={d} className="matrix-diff-line">
                {d}
              </div>
            ))}
          </li>
        )}
        {other && otherTitle && differs(c, other) && (
          <li className="diff">
            ≠ {t('matrix.other', { other: otherTitle, outcome: cellSummary(other, t) })}
          </li>
        )}
      </ul>
    </div>
  );
}
