import { I18nextProvider } from 'react-i18next';
import type { i18n } from 'i18next';
import { Lab } from './components/Lab.tsx';
import { PrefsProvider } from './components/prefs.tsx';
import type { Lang } from './i18n/index.ts';
import type { ScenarioEntry } from './scenario/entry.ts';
import type { UrlFlags } from './boot.ts';
import type { LabInstance } from './instance.ts';
import { UpdatePrompt } from './pwa/UpdatePrompt.tsx';
import type { Updates } from './pwa/updates.ts';
import type { KeyValue } from './store/persist.ts';
import { ExerciseProvider } from './exercise/context.tsx';

export function App(props: {
  i18n: i18n;
  lang: Lang;
  scenarios: readonly ScenarioEntry[];
  flags: UrlFlags;
  lab: LabInstance;
  /** New versions of the site (absent in embeds, which register no service worker). */
  updates?: Updates | undefined;
  /** Where preferences are kept (null in an embed: it keeps nothing). */
  storage?: KeyValue | null;
}) {
  return (
    <I18nextProvider i18n={props.i18n}>
      <PrefsProvider
        i18n={props.i18n}
        initialLang={props.lang}
        {...(props.storage !== undefined ? { storage: props.storage } : {})}
      >
        {props.updates && <UpdatePrompt updates={props.updates} />}
        <ExerciseProvider controller={props.lab.exercises}>
          <Lab
            store={props.lab.store}
            scenarios={props.scenarios}
            editor={props.flags.editor}
            embed={props.flags.embed}
            edits={props.lab.edits}
            editorMode={props.flags.editorMode}
            params={props.flags.params}
            notes={props.lab.notes}
          />
        </ExerciseProvider>
      </PrefsProvider>
    </I18nextProvider>
  );
}
