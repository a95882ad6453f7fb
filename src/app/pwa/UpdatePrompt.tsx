import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { Updates } from './updates.ts';
import './pwa.css';

/**
 * "A new version is available — Reload": shown when a new deployment is installed and waiting.
 * The live region exists from the start so screen readers announce the message when it appears;
 * focus is never moved (the reader may be typing in the editor), and the prompt comes first in
 * the tab order.
 */
export function UpdatePrompt({ updates }: { updates: Updates }) {
  const { t } = useTranslation();
  const state = useSyncExternalStore(updates.subscribe, updates.get);
  const show = state.waiting && !state.dismissed;
  return (
    <div className="update-live" aria-live="polite">
      {show && (
        <aside className="update-prompt" aria-label={t('pwa.region')} data-testid="update-prompt">
          <span>{t('pwa.available')}</span>
          <button
            type="button"
            className="primary"
            onClick={updates.apply}
            data-testid="update-reload"
          >
            {t('pwa.reload')}
          </button>
          <button
            type="button"
            className="text"
            onClick={updates.dismiss}
            data-testid="update-later"
          >
            {t('pwa.later')}
          </button>
        </aside>
      )}
    </div>
  );
}
