import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { conntrackAt, ctState, ctTouchOf } from '../model/conntrack.ts';
import { visibleSteps } from '../model/timeline.ts';
import { tupleLine } from '../diagram/ct-entry.ts';
import type { Tuple } from '../../engine/conntrack.ts';

/**
 * The conntrack table of one host at the current step, as `conntrack -L` would list it: the
 * entries the probe created, their tuples, NAT and state, and whether confirm has entered them
 * in the table yet.
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function ConntrackTable({
  hosts,
  focus,
  onClose,
}: {
  /** Hosts that have a conntrack table in the drawing (nodes on the path). */
  hosts: readonly string[];
  focus: string;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const everyRule = useLab((s) => !s.hideMisses);
  const [picked, setPicked] = useState<string | null>(null);
  const all = conntrackAt(steps, step);
  const fallback = hosts.includes(focus) ? focus : (all[0]?.host ?? hosts[0] ?? '');
  const host = picked && hosts.includes(picked) ? picked : fallback;
  const entries = all.filter((e) => e.host === host);
  const touched = ctTouchOf(steps, step)?.entry;
  const confirmedAt = (host: string, id: number) =>
    steps.findIndex(
      (s) =>
        s.host === host &&
        s.index <= step &&
        s.event.type === 'conntrack' &&
        s.event.action === 'confirm' &&
        s.event.connId === id,
    );
  return (
    <section className="ct-table" data-testid="ct-table" aria-label={t('cttable.title')}>
      <header className="panel-head">
        <h2>{t('cttable.title')}</h2>
        <label className="ct-host">
          <span className="sr-only">{t('cttable.host')}</span>
          <select
            value={host}
            onChange={(e) => setPicked(e.target.value)}
            data-testid="ct-table-host"
          >
            {hosts.map((h) => (
              <option key={h} value={h}>
                {h}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="icon ct-close"
          onClick={onClose}
          aria-label={t('cttable.close')}
          title={t('cttable.close')}
        >
          ✕
        </button>
      </header>
      <p className="ct-note">{t('cttable.note', { host })}</p>
      {entries.length === 0 ? (
        <p className="ct-none" data-testid="ct-table-empty">
          {t('cttable.none', { host })}
        </p>
      ) : (
        <div className="ct-scroll" tabIndex={0} aria-label={t('cttable.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('cttable.col.id')}</th>
                <th scope="col">{t('cttable.col.state')}</th>
                <th scope="col">{t('cttable.col.orig')}</th>
                <th scope="col">{t('cttable.col.reply')}</th>
                <th scope="col">{t('cttable.col.nat')}</th>
                <th scope="col">{t('cttable.col.table')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => {
                const at = confirmedAt(e.host, e.id);
                const nat = [e.dnat && 'DNAT', e.snat && 'SNAT'].filter(Boolean).join(' + ');
                return (
                  <tr
                    key={e.id}
                    className={touched?.host === e.host && touched.id === e.id ? 'current' : ''}
                    data-testid={`ct-row-${e.id}`}
                  >
                    <td>{e.id}</td>
                    <td>{ctState(e)}</td>
                    <td className="mono">
                      <TupleCell t={e.orig} />
                    </td>
                    <td className="mono">
                      <TupleCell t={e.reply} />
                    </td>
                    <td>{nat || '—'}</td>
                    <td>
                      {e.confirmed
                        ? at >= 0
                          ? t('cttable.confirmed', {
                              n: visibleSteps(steps, everyRule, step).indexOf(at) + 1,
                            })
                          : '✓'
                        : t('cttable.unconfirmed')}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A tuple that wraps only at its arrow, never inside an address. */
function TupleCell({ t }: { t: Tuple }) {
  const [src, dst] = tupleLine(t).split(' → ');
  return (
    <>
      <span className="nw">
        {t.proto} {src}
      </span>{' '}
      <span className="nw">→ {dst}</span>
    </>
  );
}
