import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { browserLang, createI18n, type Lang } from './i18n/index.ts';
import { SCENARIOS } from './scenario/catalog.ts';
import { readFlags } from './boot.ts';
import { browserStorage, loadPref } from './store/persist.ts';
import { initialTheme } from './components/prefs.tsx';
import './styles/base.css';
import './styles/lab.css';
import './styles/diagram.css';

const saved = loadPref(browserStorage(), 'lang');
const lang: Lang = saved === 'en' || saved === 'zh' ? saved : browserLang();
// Set before the first paint so the page never flashes the other theme.
document.documentElement.dataset.theme = initialTheme();
const flags = readFlags(location.search, location.hash);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App i18n={createI18n(lang)} lang={lang} scenarios={SCENARIOS} flags={flags} />
    </StrictMode>,
  );
}
