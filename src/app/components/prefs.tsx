/**
 * Page-wide preferences (theme, language): shared by every lab on the page, saved in
 * localStorage; defaults come from the system (prefers-color-scheme, browser language). A link or
 * an embed can set the theme with `?theme=light|dark|auto` (auto: the system's, followed live).
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { i18n } from 'i18next';
import { browserStorage, loadPref, savePref, type KeyValue } from '../store/persist.ts';
import { LANGS, type Lang } from '../i18n/index.ts';

export type Theme = 'light' | 'dark';

interface Prefs {
  theme: Theme;
  lang: Lang;
  setTheme(t: Theme): void;
  setLang(l: Lang): void;
}

const PrefsContext = createContext<Prefs | null>(null);

const DARK = '(prefers-color-scheme: dark)';

const systemTheme = (): Theme => (globalThis.matchMedia?.(DARK).matches ? 'dark' : 'light');

/**
 * The theme a page starts with, and whether it follows the system: the address's `theme`
 * parameter first, then the user's saved choice, then the system's.
 */
export function themeChoice(
  search: string = globalThis.location?.search ?? '',
  kv: KeyValue | null = browserStorage(),
  system: () => Theme = systemTheme,
): { theme: Theme; followSystem: boolean } {
  const param = new URLSearchParams(search).get('theme');
  if (param === 'light' || param === 'dark') return { theme: param, followSystem: false };
  const saved = param === 'auto' ? null : loadPref(kv, 'theme');
  if (saved === 'light' || saved === 'dark') return { theme: saved, followSystem: false };
  return { theme: system(), followSystem: true };
}

export function initialTheme(): Theme {
  return themeChoice().theme;
}

export function PrefsProvider({
  i18n,
  initialLang,
  storage = browserStorage(),
  children,
}: {
  i18n: i18n;
  initialLang: Lang;
  /** Where choices are saved; null keeps them for this page only (an embed). */
  storage?: KeyValue | null;
  children: ReactNode;
}) {
  const [start] = useState(() => themeChoice(undefined, storage));
  const [theme, setThemeState] = useState<Theme>(start.theme);
  const [followSystem, setFollowSystem] = useState(start.followSystem);
  const [lang, setLangState] = useState<Lang>(initialLang);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    const m = followSystem ? globalThis.matchMedia?.(DARK) : undefined;
    if (!m) return;
    const follow = () => setThemeState(m.matches ? 'dark' : 'light');
    m.addEventListener('change', follow);
    return () => m.removeEventListener('change', follow);
  }, [followSystem]);
  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    void i18n.changeLanguage(lang);
  }, [lang, i18n]);
  const value = useMemo<Prefs>(
    () => ({
      theme,
      lang,
      setTheme(t) {
        savePref(storage, 'theme', t);
        setFollowSystem(false);
        setThemeState(t);
      },
      setLang(l) {
        if (!LANGS.includes(l)) return;
        savePref(storage, 'lang', l);
        setLangState(l);
      },
    }),
    [theme, lang, storage],
  );
  return <PrefsContext.Provider value={value}>{children}</PrefsContext.Provider>;
}

export function usePrefs(): Prefs {
  const p = useContext(PrefsContext);
  if (!p) throw new Error('usePrefs outside PrefsProvider');
  return p;
}
