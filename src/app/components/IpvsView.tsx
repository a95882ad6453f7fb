import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';

/**
 * What kube-proxy's IPVS proxier programmed on an IPVS-mode node, under its rules: `ipvsadm -Ln`,
 * the kube-ipvs0 addresses and the ipsets. Marked as modelled (no kernel check) and deprecated.
 * The listings scroll sideways in a narrow panel, so each is focusable (keyboard scrolling).
 */
export function IpvsView({ host }: { host: string }) {
  const { t } = useTranslation();
  const view = useLab((s) => s.result?.ipvs?.[host]);
  if (!view) return null;
  return (
    <div className="rules-table rules-ipvs" data-testid="rules-ipvs">
      <div className="rules-table-name">{t('rules.ipvs.title')}</div>
      <p className="muted rules-ipvs-note">{t('rules.ipvs.modelled')}</p>
      <p className="muted rules-ipvs-note">{t('rules.ipvs.deprecated')}</p>
      <details open>
        <summary>ipvsadm -Ln</summary>
        <pre data-testid="ipvsadm" tabIndex={0} aria-label="ipvsadm -Ln">
          {view.ipvsadm}
        </pre>
      </details>
      <details>
        <summary>{t('rules.ipvs.addresses', { count: view.dummyAddresses.length })}</summary>
        <pre>
          {view.dummyAddresses.map((a) => `inet ${a}/32 scope global kube-ipvs0`).join('\n')}
        </pre>
      </details>
      <details>
        <summary>{t('rules.ipvs.ipsets')}</summary>
        <pre tabIndex={0} aria-label="ipset save">
          {view.ipsets}
        </pre>
      </details>
    </div>
  );
}
