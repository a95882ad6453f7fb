import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { usePrefs } from './prefs.tsx';

/** The scenario's variants; what picking one loads is the caller's (the full lab's saved edits). */
export function VariantSelect({
  onPick,
  className,
}: {
  onPick: (id: string | null) => void;
  className?: string;
}) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const scenario = useLab((s) => s.scenario);
  const variant = useLab((s) => s.doc.variant);
  if (!scenario || scenario.variants.length === 0) return null;
  return (
    <label className={className}>
      <span className="sr-only">{t('variant.label')}</span>
      {/* No variant chosen means the first one (runLab's rule), so it is shown as selected. */}
      <select
        value={variant ?? scenario.variants[0]?.id ?? ''}
        onChange={(e) => onPick(e.target.value || null)}
        data-testid="variant-picker"
      >
        {scenario.variants.map((v) => (
          <option key={v.id} value={v.id}>
            {v.title[lang]}
          </option>
        ))}
      </select>
    </label>
  );
}
