/**
 * i18next for the lab: UI strings (ui), the engine's explanations (explain), the trace readers'
 * errors (replayErrors) and the "your host" importers' messages (ownHostErrors) in English and
 * Chinese. Templates use the engine's `{param}` syntax in every namespace.
 */
import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { EXPLAIN_EN } from '../../engine/explain.ts';
import { UI_EN } from './en.ts';
import { UI_ZH } from './zh.ts';
import { EXPLAIN_ZH } from './explain-zh.ts';
import { REPLAY_ERRORS_EN } from '../../engine/replay-errors.ts';
import { REPLAY_ERRORS_ZH } from './replay-errors-zh.ts';
import { OWN_HOST_ERRORS_EN } from '../worker/own-host-protocol.ts';
import { OWN_HOST_ERRORS_ZH } from './own-host-errors-zh.ts';

export type Lang = 'en' | 'zh';
export const LANGS: readonly Lang[] = ['en', 'zh'];

/** The browser's preferred language, if we speak it; English otherwise. */
export function browserLang(
  languages: readonly string[] = globalThis.navigator?.languages ?? [],
): Lang {
  for (const l of languages) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'zh' || base === 'en') return base;
  }
  return 'en';
}

/**
 * The language a page starts in: `?lang=en|zh` of its address (a blog post in Chinese embeds the
 * lab in Chinese), then the user's saved choice, then the browser's.
 */
export function initialLang(
  search: string,
  saved: string | null,
  languages: readonly string[] = globalThis.navigator?.languages ?? [],
): Lang {
  const param = new URLSearchParams(search).get('lang');
  if (param === 'en' || param === 'zh') return param;
  if (saved === 'en' || saved === 'zh') return saved;
  return browserLang(languages);
}

export function createI18n(lang: Lang): i18n {
  const inst = i18next.createInstance();
  void inst.use(initReactI18next).init({
    lng: lang,
    fallbackLng: 'en',
    ns: ['ui', 'explain', 'replayErrors', 'ownHostErrors'],
    defaultNS: 'ui',
    // Synchronous init: resources are bundled, the first render must already have its text.
    initAsync: false,
    resources: {
      en: {
        ui: UI_EN,
        explain: EXPLAIN_EN,
        replayErrors: REPLAY_ERRORS_EN,
        ownHostErrors: OWN_HOST_ERRORS_EN,
      },
      zh: {
        ui: UI_ZH,
        explain: EXPLAIN_ZH,
        replayErrors: REPLAY_ERRORS_ZH,
        ownHostErrors: OWN_HOST_ERRORS_ZH,
      },
    },
    // Keys are flat (`rule.dnat`), as the engine writes them.
    keySeparator: false,
    interpolation: { prefix: '{', suffix: '}', escapeValue: false },
    returnNull: false,
    // No advertisement in the console of every page that embeds the lab.
    showSupportNotice: false,
  });
  return inst;
}
