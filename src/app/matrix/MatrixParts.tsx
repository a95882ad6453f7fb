/** Beside the matrix: its status line (progress, bounds, cells that differ) and the focused cell's detail. */
import { useTranslation } from 'react-i18next';
import type { MatrixCell, MatrixLayout } from '../worker/matrix-protocol.ts';
import type { MatrixSide } from './controller.ts';
import { cellSummary, differs } from './cells.ts';

export function MatrixStatus({
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

export function CellDetail({
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
