/**
 * Page-wide preferences (theme, language): shared by every lab on the page, saved in
 * localStorage; defaults come from the system (prefers-color-scheme, browser language).
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { i18n } from 'i18next';
import { browserStorage, loadPref, savePref } from '../store/persist.ts';
import { LANGS, type Lang } from '../i18n/index.ts';

export type Theme = 'light' | 'dark';

interface Prefs {
  theme: Theme;
  lang: Lang;
  setTheme(t: Theme): void;
  setLang(l: Lang): void;
}

const PrefsContext = createContext<Prefs | null>(null);

export function initialTheme(): Theme {
  const saved = loadPref(browserStorage(), 'theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function PrefsProvider({
  i18n,
  initialLang,
  children,
}: {
  i18n: i18n;
  initialLang: Lang;
  children: ReactNode;
}) {
  const [theme, setThemeState] = useState<Theme>(initialTheme);
  const [lang, setLangState] = useState<Lang>(initialLang);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    void i18n.changeLanguage(lang);
  }, [lang, i18n]);
  const value = useMemo<Prefs>(
    () => ({
      theme,
      lang,
      setTheme(t) {
        savePref(browserStorage(), 'theme', t);
        setThemeState(t);
      },
      setLang(l) {
        if (!LANGS.includes(l)) return;
        savePref(browserStorage(), 'lang', l);
        setLangState(l);
      },
    }),
    [theme, lang],
  );
  return <PrefsContext.Provider value={value}>{children}</PrefsContext.Provider>;
}

export function usePrefs(): Prefs {
  const p = useContext(PrefsContext);
  if (!p) throw new Error('usePrefs outside PrefsProvider');
  return p;
}
