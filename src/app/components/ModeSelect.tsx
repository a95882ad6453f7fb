import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import type { KubeProxyMode } from '../../cluster/scenario.ts';

/**
 * kube-proxy's mode, for a scenario that runs in more than one (`kubeProxyModes`). The manifests
 * and the path stay: only the rules kube-proxy writes change, so the same question is answered
 * again in the other mode.
 */
/** One empty list: a selector must return the same value for the same state (zustand). */
const NO_MODES: readonly KubeProxyMode[] = [];

export function ModeSelect({ className }: { className?: string }) {
  const { t } = useTranslation();
  const modes = useLab((s) => s.scenario?.modes ?? NO_MODES);
  const mode = useLab((s) => s.doc.mode);
  const { setMode } = useActions();
  if (modes.length < 2) return null;
  return (
    <label className={className}>
      <span className="sr-only">{t('mode.label')}</span>
      {/* No mode chosen means the first of kubeProxyModes (runLab's rule): shown as selected. */}
      <select
        value={mode ?? modes[0]}
        onChange={(e) => setMode(e.target.value as KubeProxyMode)}
        data-testid="mode-picker"
      >
        {modes.map((m) => (
          <option key={m} value={m}>
            {t(`mode.${m}`)}
          </option>
        ))}
      </select>
    </label>
  );
}
