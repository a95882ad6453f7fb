import { Fragment, memo, useDeferredValue, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { headerText } from '../model/packet.ts';
import type { Step } from '../model/timeline.ts';
import { detailOf, verdictOfEvent, whereOf } from './trace-text.ts';
import { PacketDetails } from './PacketDetails.tsx';
import { scrollWithin } from './scroll.ts';
import { ReplayPanel } from '../replay/ReplayPanel.tsx';

/** The event list, as Packet Tracer's simulation mode shows it, synchronised with the token. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function TracePanel() {
  const { t } = useTranslation();
  // Deferred: the diagram commits first, the long lists follow in a background render.
  const steps = useDeferredValue(useLab(stepsOf));
  const step = useLab((s) => s.doc.step);
  const hideMisses = useLab((s) => s.hideMisses);
  const { setStep, setHideMisses } = useActions();
  const body = useRef<HTMLDivElement>(null);
  // The real trace replayed beside this one takes the panel's place while open.
  const [replay, setReplay] = useState(false);
  const hidden = hideMisses ? steps.filter((s) => s.miss).length : 0;
  const firstReply = steps.findIndex((s) => s.direction === 'reply');

  useEffect(() => {
    const row = body.current?.querySelector<HTMLElement>('tr.current');
    if (body.current && row) scrollWithin(body.current, row, 'nearest');
  }, [step, hideMisses]);

  return (
    <section
      className={`panel trace-panel${replay ? ' replaying' : ''}`}
      data-testid="trace-panel"
      aria-label={t('trace.title')}
    >
      <header className="panel-head">
        <h2>{replay ? t('replay.title') : t('trace.title')}</h2>
        <button
          type="button"
          className="text replay-toggle"
          onClick={() => setReplay(!replay)}
          aria-expanded={replay}
          data-testid="replay-toggle"
        >
          {replay ? t('replay.close') : t('replay.open')}
        </button>
        {!replay && (
          <label className="toggle">
            <input
              type="checkbox"
              checked={hideMisses}
              onChange={(e) => setHideMisses(e.target.checked)}
              data-testid="trace-matched-only"
            />
            {t('trace.matchedOnly')}
            {hidden > 0 && <span className="muted"> ({t('trace.hidden', { count: hidden })})</span>}
          </label>
        )}
      </header>
      {replay && <ReplayPanel />}
      {/* Focusable, so a keyboard user can scroll the steps with the arrow keys. */}
      <div
        className="panel-body trace-body"
        hidden={replay}
        ref={body}
        tabIndex={0}
        role="region"
        aria-label={t('trace.steps')}
        data-testid="trace-body"
      >
        <table className="trace-table">
          <colgroup>
            <col style={{ width: 34 }} />
            <col style={{ width: 78 }} />
            <col />
            <col style={{ width: 112 }} />
            <col style={{ width: 168 }} />
          </colgroup>
          <thead>
            <tr>
              <th>{t('trace.col.n')}</th>
              <th>{t('trace.col.host')}</th>
              <th>{t('trace.col.what')}</th>
              <th>{t('trace.col.verdict')}</th>
              <th>{t('trace.col.packet')}</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s) =>
              hideMisses && s.miss && s.index !== step ? null : (
                <Fragment key={s.index}>
                  {s.index === firstReply && (
                    <tr className="divider">
                      <td colSpan={5}>↩ {t('trace.replyDivider')}</td>
                    </tr>
                  )}
                  <TraceRow
                    s={s}
                    state={s.index === step ? 'current' : s.index < step ? 'past' : 'future'}
                    onPick={setStep}
                  />
                </Fragment>
              ),
            )}
          </tbody>
        </table>
      </div>
      {!replay && <PacketDetails />}
    </section>
  );
}

/**
 * One row, memoised: while the packet plays only the two rows whose state changed re-render,
 * which keeps the animation smooth on long traces.
 */
const TraceRow = memo(function TraceRow({
  s,
  state,
  onPick,
}: {
  s: Step;
  state: 'past' | 'current' | 'future';
  onPick: (i: number) => void;
}) {
  const { t } = useTranslation();
  const e = s.event;
  const { src, dst } = headerText(e.packet);
  const ch = new Set(s.changed);
  const where = whereOf(e);
  const detail = detailOf(e);
  return (
    <tr
      className={`${state} type-${e.type}${s.end ? ' end' : ''}${s.changed.length ? ' rewrite' : ''}`}
      data-testid={`trace-row-${s.index}`}
      aria-current={state === 'current' ? 'step' : undefined}
      onClick={() => onPick(s.index)}
    >
      <td className="num">{s.index + 1}</td>
      <td>{e.host}</td>
      <td className="what">
        <span className={`tag tag-${e.type}`}>{t(`trace.type.${e.type}`)}</span>
        {where && <span className="where"> {where}</span>}
        {detail && (
          <code className="detail" title={detail}>
            {detail}
          </code>
        )}
      </td>
      <td className="verdict-cell">{verdictOfEvent(e)}</td>
      <td className="pkt">
        <span className={ch.has('src') || ch.has('sport') ? 'changed' : ''}>{src}</span>
        <wbr />
        {' → '}
        <span className={ch.has('dst') || ch.has('dport') ? 'changed' : ''}>{dst}</span>
        {ch.has('mark') && <span className="changed"> mark 0x{e.packet.mark.toString(16)}</span>}
      </td>
    </tr>
  );
});
