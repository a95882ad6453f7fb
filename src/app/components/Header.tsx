import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab, useLabStore } from './context.tsx';
import { usePrefs } from './prefs.tsx';
import type { ScenarioEntry } from '../scenario/entry.ts';
import { browserStorage, readEdit, type EditRecord } from '../store/persist.ts';
import { encodeShare, SHARE_PARAM } from '../store/share.ts';
import type { Lang } from '../i18n/index.ts';
import { Icon } from './Icon.tsx';
import { useMediaQuery } from './useMediaQuery.ts';

/** Where lab.css shows the header's actions as icons, and the language by its short name. */
export const COMPACT_HEADER = '(max-width: 1599px)';
import { ExerciseLauncher } from '../exercise/ExerciseLauncher.tsx';
import { useExercises } from '../exercise/context.tsx';
import { EmbedButton } from '../embed/EmbedDialog.tsx';
import { VariantSelect } from './VariantSelect.tsx';
import { ModeSelect } from './ModeSelect.tsx';
import { CompareSelect } from '../compare/CompareParts.tsx';

const goodOf = (e: EditRecord | null) => (e ? (e.valid ? e.text : e.good) : null);

// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function Header({ scenarios }: { scenarios: readonly ScenarioEntry[] }) {
  const { t } = useTranslation();
  const { lang, setLang, theme, setTheme } = usePrefs();
  const scenario = useLab((s) => s.scenario);
  const variant = useLab((s) => s.doc.variant);
  const a = useActions();
  const store = useLabStore();
  const exercises = useExercises();
  const [copied, setCopied] = useState(false);
  const [more, setMore] = useState(false);
  const descId = useId();
  const compact = useMediaQuery(COMPACT_HEADER);
  const pick = (id: string) => {
    const s = scenarios.find((x) => x.id === id);
    if (!s) return;
    const edit = readEdit(browserStorage(), s.id, null);
    a.loadScenario(s, edit !== null ? { manifests: edit.text } : {}, { lastGood: goodOf(edit) });
  };
  const pickVariant = (v: string | null) => {
    const edit = scenario ? readEdit(browserStorage(), scenario.id, v) : null;
    a.setVariant(v, edit?.text, goodOf(edit));
  };
  const shareUrl = () => {
    // Inside an exercise the link opens the exercise again, with this answer, path and step.
    const inExercise = exercises?.shareLink();
    if (inExercise) return inExercise;
    const s = store.getState();
    const url = new URL(globalThis.location.href);
    url.hash = `${SHARE_PARAM}=${encodeShare(s.doc, s.original, {
      everyRule: !s.hideMisses,
      compare: s.compare,
      view: s.view,
    })}`;
    url.searchParams.delete('scenario');
    return url.toString();
  };
  const share = async () => {
    const url = shareUrl();
    globalThis.history?.replaceState(null, '', url);
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // No clipboard permission (iframes, http): the address bar has the link now.
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1800);
  };
  const title = scenario ? scenario.title[lang] : '';
  const description = scenario
    ? variant
      ? (scenario.variants.find((v) => v.id === variant)?.description?.[lang] ??
        scenario.description[lang])
      : scenario.description[lang]
    : '';

  return (
    <header className="lab-header">
      <div className="brand">
        <span className="logo" aria-hidden="true">
          ⤳
        </span>
        <h1 className="name">Hookpath</h1>
        <span className="tagline">{t('app.tagline')}</span>
      </div>
      <div className="scenario-picker">
        <label>
          <span className="sr-only">{t('scenario.label')}</span>
          <select
            value={scenario?.id ?? ''}
            onChange={(e) => pick(e.target.value)}
            data-testid="scenario-picker"
            title={title}
          >
            {/* A scenario not in the catalog (an exercise's) is shown as what it is. */}
            {scenario && !scenarios.some((s) => s.id === scenario.id) && (
              <option value={scenario.id}>{scenario.title[lang]}</option>
            )}
            {scenarios.map((s) => (
              <option key={s.id} value={s.id}>
                {s.title[lang]}
              </option>
            ))}
          </select>
        </label>
        <VariantSelect onPick={pickVariant} />
        <ModeSelect className="mode-picker" />
        <CompareSelect />
      </div>
      <div className="header-actions">
        <ExerciseLauncher />
        {description && (
          <button
            type="button"
            className="text about"
            aria-expanded={more}
            aria-controls={descId}
            onClick={() => setMore(!more)}
            title={more ? t('scenario.less') : t('scenario.more')}
            data-testid="scenario-more"
          >
            <Icon name="info" />{' '}
            <span className="action-label">{more ? t('scenario.less') : t('scenario.more')}</span>
          </button>
        )}
        <button
          type="button"
          className="text"
          onClick={() => void share()}
          title={t('share.title')}
          data-testid="share"
        >
          <Icon name={copied ? 'check' : 'link'} />{' '}
          <span className={copied ? undefined : 'action-label'}>
            {copied ? t('share.copied') : t('share.copy')}
          </span>
        </button>
        {/* An embed names its scenario by id: an exercise's own scenario has none a page knows. */}
        {scenario && scenarios.some((s) => s.id === scenario.id) && <EmbedButton />}
        <select
          value={lang}
          onChange={(e) => setLang(e.target.value as Lang)}
          aria-label={t('lang.label')}
          data-testid="lang"
        >
          <option value="en" lang="en">
            {compact ? 'EN' : 'English'}
          </option>
          <option value="zh" lang="zh">
            中文
          </option>
        </select>
        <button
          type="button"
          className="icon"
          onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
          title={t('theme.toggle')}
          aria-label={t('theme.toggle')}
          data-testid="theme"
        >
          <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
        </button>
      </div>
      {description && (
        <div className={`scenario-about${more ? ' open' : ''}`}>
          <p className="scenario-description" id={descId} data-testid="scenario-description">
            {description}
          </p>
        </div>
      )}
    </header>
  );
}
