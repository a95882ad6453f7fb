import { useDeferredValue } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { hostPasses } from '../model/timeline.ts';
import { FIELDS, fieldValue } from '../model/packet.ts';

/** The packet as it entered and left the current host: every header field, changes marked. */
export function PacketDetails() {
  const { t } = useTranslation();
  // Deferred: the diagram commits first, the long lists follow in a background render.
  const steps = useDeferredValue(useLab(stepsOf));
  const step = useLab((s) => s.doc.step);
  const pass = hostPasses(steps).find((p) => p.firstStep <= step && step <= p.lastStep);
  if (!pass) return null;
  const cur = steps[step]?.event.packet ?? null;
  const inbound = pass.inbound;
  const outbound = pass.outbound ?? cur;
  return (
    <div className="packet-details" data-testid="packet-details">
      <h3>
        {t('trace.details')}: <strong>{pass.host}</strong>
      </h3>
      <table>
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">{t('trace.field')}</span>
            </th>
            <th scope="col">{t('trace.in')}</th>
            <th scope="col">{t('trace.out')}</th>
          </tr>
        </thead>
        <tbody>
          {FIELDS.map((f) => {
            const a = inbound ? fieldValue(inbound, f) : '—';
            const b = outbound ? fieldValue(outbound, f) : '—';
            const changed = inbound !== null && outbound !== null && a !== b;
            return (
              <tr key={f} className={changed ? 'changed' : ''} data-field={f}>
                <th scope="row">{t(`trace.field.${f}`)}</th>
                <td>{a}</td>
                <td>
                  {b}
                  {changed && <span className="change-note"> ← {t('trace.changedBy')}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
