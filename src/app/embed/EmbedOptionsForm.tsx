import { useTranslation } from 'react-i18next';
import type { EmbedOptions } from './urls.ts';

type SelectKey = 'step' | 'theme' | 'lang' | 'editor';
type CheckKey = 'autoplay' | 'verdictAfter' | 'pickers';

/** The choices of each select, in order; their labels are `embedDialog.KEY.VALUE`. */
const SELECTS: readonly { key: SelectKey; values: readonly string[] }[] = [
  { key: 'step', values: ['start', 'current', 'end'] },
  { key: 'theme', values: ['auto', 'light', 'dark'] },
  { key: 'lang', values: ['en', 'zh'] },
  { key: 'editor', values: ['hidden', 'readonly', 'edit'] },
];
const CHECKS: readonly CheckKey[] = ['autoplay', 'verdictAfter', 'pickers'];
const LANGS: Readonly<Record<string, string>> = { en: 'English', zh: '中文' };

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
  const checked = (k: CheckKey) => (k === 'pickers' ? o.pickers !== 'none' : o[k]);
  const check = (k: CheckKey, on: boolean): EmbedOptions =>
    k === 'pickers' ? { ...o, pickers: on ? 'path' : 'none' } : { ...o, [k]: on };
  return (
    <form
      className="embed-options"
      onSubmit={(e) => e.preventDefault()}
      data-testid="embed-options"
    >
      <div className="embed-selects">
        {SELECTS.map(({ key, values }) => (
          <label key={key}>
            {t(`embedDialog.${key}`)}
            <select
              value={o[key]}
              // The values are the option list's own: the cast only names their type.
              onChange={(e) => onChange({ ...o, [key]: e.target.value } as EmbedOptions)}
              data-testid={`embed-${key}`}
            >
              {values.map((v) => (
                <option key={v} value={v}>
                  {LANGS[v] ?? t(`embedDialog.${key}.${v}`, { n: current ?? '—' })}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      {CHECKS.map((k) => (
        <label className="check" key={k}>
          <input
            type="checkbox"
            checked={checked(k)}
            onChange={(e) => onChange(check(k, e.target.checked))}
            data-testid={`embed-${k === 'verdictAfter' ? 'verdict-after' : k}`}
          />
          {t(`embedDialog.${k}`)}
        </label>
      ))}
    </form>
  );
}
