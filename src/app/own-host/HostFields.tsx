/** What the dumps do not say, asked for: addresses without ip -j addr, a gateway without ip -j route; and what listens, and two sysctls. */
import { useTranslation } from 'react-i18next';
import { useOwn, useOwnStore } from './context.tsx';
import { Field, useProblem } from './Field.tsx';

/** Before the first answer: nothing is known, both fields are asked for. */
const NOTHING_GIVEN = { addresses: true, routes: true } as const;

export function HostFields() {
  const { t } = useTranslation();
  const { actions } = useOwnStore();
  const extras = useOwn((s) => s.extras);
  const missing = useOwn((s) => s.result?.missing ?? NOTHING_GIVEN);
  const hostProblem = useProblem('host');
  return (
    <section className="own-host-fields" aria-labelledby="own-host-title">
      <h3 id="own-host-title">{t('own.host')}</h3>
      {missing.addresses && (
        <Field label={t('own.addresses')} field="addresses">
          {(p) => (
            <input
              {...p}
              type="text"
              data-testid="own-addresses"
              placeholder="192.168.50.38/24, 192.168.50.100/32"
              value={extras.addresses}
              onChange={(e) => actions.setExtras({ addresses: e.target.value })}
            />
          )}
        </Field>
      )}
      {missing.routes && (
        <Field label={t('own.gateway')} field="gateway">
          {(p) => (
            <input
              {...p}
              type="text"
              data-testid="own-gateway"
              placeholder="192.168.50.1"
              value={extras.gateway}
              onChange={(e) => actions.setExtras({ gateway: e.target.value })}
            />
          )}
        </Field>
      )}
      <Field label={t('own.listeners')} field="listeners">
        {(p) => (
          <textarea
            {...p}
            rows={2}
            spellCheck={false}
            data-testid="own-listeners"
            value={extras.listeners}
            onChange={(e) => actions.setExtras({ listeners: e.target.value })}
          />
        )}
      </Field>
      <div className="own-row">
        <label className="own-check">
          <input
            type="checkbox"
            checked={extras.ipForward}
            onChange={(e) => actions.setExtras({ ipForward: e.target.checked })}
          />{' '}
          <code>{t('own.ipForward')}</code>
        </label>
        <label className="own-check">
          <input
            type="checkbox"
            checked={extras.routeLocalnet}
            onChange={(e) => actions.setExtras({ routeLocalnet: e.target.checked })}
          />{' '}
          <code>{t('own.routeLocalnet')}</code>
        </label>
      </div>
      {hostProblem && (
        <p className="own-problem" data-testid="own-problem-host">
          {hostProblem}
        </p>
      )}
    </section>
  );
}
