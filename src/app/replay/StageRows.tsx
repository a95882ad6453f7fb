/**
 * The coarser replay, for a trace of kernel functions (pwru; Retis without its nft collector):
 * the hooks and stages the real packet passed beside the lab's, the first disagreement said in
 * one sentence, and a plain note that such a trace cannot show rules.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { scrollWithin } from '../components/scroll.ts';
import type { StageAlignment, StageRow } from '../worker/replay-protocol.ts';

const DISAGREE = new Set(['missing', 'extra']);
/** Functions shown per stage; the rest are in the cell's title. */
const SHOWN = 3;

type Real = NonNullable<StageRow['real']>;

function useStageLabels() {
  const { t } = useTranslation();
  const name = (s: Real['stage']) => t(`replay.stage.${s}`);
  const real = (r: Real) => {
    const funcs = r.funcs.slice(0, SHOWN).join(' · ') + (r.funcs.length > SHOWN ? ' …' : '');
    const why = r.stage === 'drop' && r.reason ? ` (${r.reason})` : '';
    const tables = r.tables ? ` · ${t('replay.stages.tables')}` : '';
    return `${name(r.stage)}${why}: ${funcs}${tables}`;
  };
  const sim = (s: NonNullable<StageRow['sim']>) =>
    `${name(s.stage)}${s.reason ? ` (${s.reason})` : ''}`;
  return { name, real, sim };
}

function StageVerdict({ a, onShow }: { a: StageAlignment; onShow: () => void }) {
  const { t } = useTranslation();
  const { name } = useStageLabels();
  const row = a.first === null ? null : a.rows[a.first];
  if (!row)
    return (
      <p className="replay-verdict agrees" role="status" data-testid="replay-verdict">
        {t('replay.stages.agrees', { same: a.same, host: a.host, packet: a.packetId })}
      </p>
    );
  const n = (a.first ?? 0) + 1;
  let text: string;
  if (row.real?.stage === 'drop')
    text = t('replay.stages.first.drop', { row: n, reason: row.real.reason ?? '?' });
  else if (row.real)
    text = t('replay.stages.first.extra', {
      row: n,
      stage: name(row.real.stage),
      funcs: row.real.funcs.slice(0, SHOWN).join(', '),
    });
  else
    text = t('replay.stages.first.missing', { row: n, stage: row.sim ? name(row.sim.stage) : '' });
  return (
    <div className="replay-verdict disagrees" role="status" data-testid="replay-verdict">
      <span>{text}</span>{' '}
      <span className="muted">{t('replay.count', { count: a.disagreements })}</span>{' '}
      <button type="button" className="text" onClick={onShow}>
        {t('replay.show')}
      </button>
    </div>
  );
}

export function StageRows({ a, onPick }: { a: StageAlignment; onPick: (seq: number) => void }) {
  const { t } = useTranslation();
  const labels = useStageLabels();
  const body = useRef<HTMLDivElement>(null);
  const show = (i: number) => {
    const el = body.current?.querySelector<HTMLElement>(`[data-row="${i}"]`);
    if (body.current && el) scrollWithin(body.current, el, 'center');
    el?.querySelector<HTMLButtonElement>('button')?.focus();
  };
  useEffect(() => {
    if (a.first === null) return;
    const id = requestAnimationFrame(() => {
      const el = body.current?.querySelector<HTMLElement>(`[data-row="${a.first}"]`);
      if (body.current && el) scrollWithin(body.current, el, 'center');
    });
    return () => cancelAnimationFrame(id);
  }, [a]);
  let lastSeq: number | null = null;
  const seqs = a.rows.map((r) => (lastSeq = r.sim?.seq ?? lastSeq));
  return (
    <>
      <StageVerdict a={a} onShow={() => a.first !== null && show(a.first)} />
      <div
        className="replay-body"
        ref={body}
        tabIndex={0}
        role="region"
        aria-label={t('replay.stages.rows')}
        data-testid="replay-rows"
      >
        <table className="replay-table replay-stages">
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
                  className={`status-${r.status === 'unseen' ? 'optional' : r.status}${DISAGREE.has(r.status) ? ' disagree' : ''}${first ? ' first' : ''}`}
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
                  <td className="side" title={r.real?.funcs.join('\n') || undefined}>
                    {r.real && (
                      <>
                        <span className="line muted">{r.real.line}:</span> {labels.real(r.real)}
                      </>
                    )}
                  </td>
                  <td className="side">{r.sim && labels.sim(r.sim)}</td>
                  <td className="status">{t(`replay.stageStatus.${r.status}`)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
