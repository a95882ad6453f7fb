import { useEffect, useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import type { i18n } from 'i18next';
import { Lab } from './components/Lab.tsx';
import { PrefsProvider } from './components/prefs.tsx';
import type { Lang } from './i18n/index.ts';
import type { ScenarioEntry } from './scenario/entry.ts';
import { createLabStore, type LabStore } from './store/lab-store.ts';
import { createLabController } from './store/controller.ts';
import { browserStorage } from './store/persist.ts';
import { startingPoint, type UrlFlags } from './boot.ts';
import { createBrowserClient } from './worker/browser-client.ts';

/** Creates one lab's store, worker client and controller; ends them when the lab unmounts. */
function useLabInstance(scenarios: readonly ScenarioEntry[], flags: UrlFlags): LabStore {
  const [store] = useState(() => createLabStore());
  useEffect(() => {
    const client = createBrowserClient();
    const controller = createLabController(store, client, { storage: browserStorage() });
    const start = startingPoint(scenarios, flags, browserStorage());
    if (start) store.actions.loadScenario(start.entry, start.restore);
    return () => {
      controller.dispose();
      client.dispose();
    };
  }, [store, scenarios, flags]);
  return store;
}

export function App(props: {
  i18n: i18n;
  lang: Lang;
  scenarios: readonly ScenarioEntry[];
  flags: UrlFlags;
}) {
  const store = useLabInstance(props.scenarios, props.flags);
  return (
    <I18nextProvider i18n={props.i18n}>
      <PrefsProvider i18n={props.i18n} initialLang={props.lang}>
        <Lab
          store={store}
          scenarios={props.scenarios}
          editor={props.flags.editor}
          embed={props.flags.embed}
        />
      </PrefsProvider>
    </I18nextProvider>
  );
}
