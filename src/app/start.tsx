import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { createI18n, initialLang, type Lang } from './i18n/index.ts';
import { SCENARIOS } from './scenario/catalog.ts';
import type { UrlFlags } from './boot.ts';
import { createLabInstance } from './instance.ts';
import { browserStorage, loadPref } from './store/persist.ts';
import { themeChoice } from './components/prefs.tsx';
import type { LabClient } from './worker/client.ts';
import { registerServiceWorker } from './pwa/register.ts';
import './styles/base.css';
import './styles/lab.css';
import './styles/diagram.css';
import './styles/embed.css';

/** Mounts the lab; `client` is the worker main.tsx already started. */
export function start(flags: UrlFlags, client: LabClient): void {
  performance.mark('hookpath:app');
  const lab = createLabInstance(SCENARIOS, flags, client);
  // Preferences are the reader's own too: an embed follows its address and the system only.
  const kv = flags.embed ? null : browserStorage();
  const lang: Lang = initialLang(location.search, loadPref(kv, 'lang'));
  document.documentElement.dataset.theme = themeChoice(location.search, kv).theme;
  const root = document.getElementById('root');
  if (!root) return;
  // Offline use and updates are for the full lab; an embed in a blog post caches nothing.
  const updates = flags.embed ? undefined : registerServiceWorker();
  createRoot(root).render(
    <StrictMode>
      <App
        i18n={createI18n(lang)}
        lang={lang}
        storage={kv}
        scenarios={SCENARIOS}
        flags={flags}
        lab={lab}
        updates={updates}
      />
    </StrictMode>,
  );
}
