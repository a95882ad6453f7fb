import { useTranslation } from 'react-i18next';
import type { EmbedOptions, StepChoice } from './urls.ts';
import type { EditorMode, ThemeParam } from './params.ts';

/** The embed's choices; every one is a readable parameter of the README's table. */
export function EmbedOptionsForm({
  options: o,
  onChange,
  current,
}: {
  options: EmbedOptions;
  onChange: (o: EmbedOptions) => void;
  /** The step the lab is at, as the counter says it (null: a rule that did not match). */
  current: number | null;
}) {
  const { t } = useTranslation();
  const set = (patch: Partial<EmbedOptions>) => onChange({ ...o, ...patch });
  const steps: StepChoice[] = ['start', 'current', 'end'];
  return (
    <form
      className="embed-options"
      onSubmit={(e) => e.preventDefault()}
      data-testid="embed-options"
    >
      <div className="embed-selects">
        <label>
          {t('embedDialog.step')}
          <select
            value={o.step}
            onChange={(e) => set({ step: e.target.value as StepChoice })}
            data-testid="embed-step"
          >
            {steps.map((s) => (
              <option key={s} value={s}>
                {t(`embedDialog.step.${s}`, { n: current ?? '—' })}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('embedDialog.theme')}
          <select
            value={o.theme}
            onChange={(e) => set({ theme: e.target.value as ThemeParam })}
            data-testid="embed-theme"
          >
            {(['auto', 'light', 'dark'] as const).map((v) => (
              <option key={v} value={v}>
                {t(`embedDialog.theme.${v}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('embedDialog.lang')}
          <select
            value={o.lang}
            onChange={(e) => set({ lang: e.target.value === 'zh' ? 'zh' : 'en' })}
            data-testid="embed-lang"
          >
            <option value="en">English</option>
            <option value="zh">中文</option>
          </select>
        </label>
        <label>
          {t('embedDialog.editor')}
          <select
            value={o.editor}
            onChange={(e) => set({ editor: e.target.value as EditorMode })}
            data-testid="embed-editor"
          >
            {(['hidden', 'readonly', 'edit'] as const).map((v) => (
              <option key={v} value={v}>
                {t(`embedDialog.editor.${v}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={o.autoplay}
          onChange={(e) => set({ autoplay: e.target.checked })}
          data-testid="embed-autoplay"
        />
        {t('embedDialog.autoplay')}
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={o.verdictAfter}
          onChange={(e) => set({ verdictAfter: e.target.checked })}
          data-testid="embed-verdict-after"
        />
        {t('embedDialog.verdictAfter')}
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={o.pickers !== 'none'}
          onChange={(e) => set({ pickers: e.target.checked ? 'path' : 'none' })}
          data-testid="embed-pickers"
        />
        {t('embedDialog.pickers')}
      </label>
    </form>
  );
}
