/**
 * The coarser replay, for a trace of kernel functions (pwru; Retis without its nft collector):
 * the hooks and stages the real packet passed beside the lab's, the first disagreement said in
 * one sentence, and a plain note that such a trace cannot show rules.
 */
import { useTranslation } from 'react-i18next';
import { AlignedTable } from './AlignedTable.tsx';
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
  return (
    <AlignedTable
      a={a}
      label={t('replay.stages.rows')}
      className="replay-table replay-stages"
      verdict={(show) => <StageVerdict a={a} onShow={show} />}
      rowClass={(r) =>
        `status-${r.status === 'unseen' ? 'optional' : r.status}${DISAGREE.has(r.status) ? ' disagree' : ''}`
      }
      onPick={onPick}
      cells={(r) => (
        <>
          <td className="side" title={r.real?.funcs.join('\n') || undefined}>
            {r.real && (
              <>
                <span className="line muted">{r.real.line}:</span> {labels.real(r.real)}
              </>
            )}
          </td>
          <td className="side">{r.sim && labels.sim(r.sim)}</td>
          <td className="status">{t(`replay.stageStatus.${r.status}`)}</td>
        </>
      )}
    />
  );
}
