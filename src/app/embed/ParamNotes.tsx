import { useStore } from 'zustand';
import { useTranslation } from 'react-i18next';
import { useLab } from '../components/context.tsx';
import { usePrefs } from '../components/prefs.tsx';
import type { NotesStore } from './notes.ts';
import type { ParamNote } from './params.ts';

/**
 * What the lab could not use of its address, one line each, in the full lab and in embeds alike:
 * a blog author sees the typo in their own preview instead of a lab that quietly did something
 * else.
 */
export function ParamNotes({ notes }: { notes: NotesStore }) {
  const { t } = useTranslation();
  const list = useStore(notes, (s) => s.notes);
  const text = useNoteText();
  if (list.length === 0) return null;
  return (
    <div
      className="param-notes"
      role="status"
      aria-label={t('param.region')}
      data-testid="param-notes"
    >
      {list.map((n, i) => (
        <div
          className="notice param-note"
          key={`${n.kind}-${n.param}-${i}`}
          data-testid="param-note"
          data-param={n.param}
        >
          <span className="notice-text">{text(n)}</span>
          <button type="button" className="text" onClick={() => notes.dismiss(i)}>
            {t('notice.dismiss')}
          </button>
        </div>
      ))}
    </div>
  );
}

function useNoteText(): (n: ParamNote) => string {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const scenario = useLab((s) => s.scenario);
  const variant = useLab((s) => s.doc.variant);
  return (n) => {
    switch (n.kind) {
      case 'invalid':
        return n.hint === 'text'
          ? t('param.empty', { param: n.param })
          : t('param.invalid', { param: n.param, value: n.value, hint: n.hint ?? '' });
      case 'scenario':
        return t('param.scenario', { value: n.value, title: scenario?.title[lang] ?? '' });
      case 'variant': {
        const v = scenario?.variants.find((x) => x.id === variant) ?? scenario?.variants[0];
        return t('param.variant', { value: n.value, title: v?.title[lang] ?? '' });
      }
      case 'step':
        return t('param.step', { value: n.value, total: n.hint ?? '' });
      default:
        return t(`param.${n.kind}`, { param: n.param });
    }
  };
}
