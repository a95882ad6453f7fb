import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePrefs } from '../components/prefs.tsx';
import { groupByTopic } from './card.ts';
import { useExercise } from './context.tsx';
import type { ExerciseController } from './controller.ts';
import { ProgressFile } from './ProgressFile.tsx';
import { ShareExercise } from './ShareExercise.tsx';
import { progressOf } from './store.ts';

/** The exercise list, a modal dialog: grouped by topic, completion marks, overall progress. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function ExerciseList({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const { lang } = usePrefs();
  const catalog = useExercise(c, (s) => s.catalog);
  const progress = useExercise(c, (s) => s.progress);
  const current = useExercise(c, (s) => s.active?.card.id ?? null);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal?.();
    return () => d?.close?.();
  }, []);
  const cards = catalog ?? [];
  const done = cards.filter((x) => progressOf({ progress }, x.id).done).length;
  return (
    <dialog
      ref={ref}
      className="exercise-list"
      aria-labelledby="exercise-list-title"
      data-testid="exercise-list"
      onClose={() => c.hideList()}
      // The lab's shortcuts (arrows, space) stay out of the dialog.
      onKeyDown={(e) => e.nativeEvent.stopPropagation()}
    >
      <header className="exercise-list-head">
        <h2 id="exercise-list-title">{t('list.title')}</h2>
        <span className="grow" />
        <button
          type="button"
          className="text"
          onClick={() => c.hideList()}
          data-testid="exercise-list-close"
        >
          {t('list.close')}
        </button>
      </header>
      <p className="muted">{t('list.intro')}</p>
      {catalog === null ? (
        <p role="status">{t('list.loading')}</p>
      ) : (
        <>
          <div className="exercise-progress">
            <progress max={cards.length} value={done} aria-labelledby="exercise-progress-label" />
            <span id="exercise-progress-label" data-testid="exercise-progress">
              {t('list.progress', { done, total: cards.length })}
            </span>
          </div>
          {groupByTopic(cards).map((g) => (
            <section key={g.topic} className="exercise-group" aria-labelledby={`topic-${g.topic}`}>
              <h3 id={`topic-${g.topic}`}>{t(`topic.${g.topic}`)}</h3>
              <ul>
                {g.cards.map((card) => {
                  const p = progressOf({ progress }, card.id);
                  return (
                    <li key={card.id}>
                      <button
                        type="button"
                        className={`exercise-item${p.done ? ' done' : ''}`}
                        onClick={() => void c.open(card.id)}
                        aria-current={current === card.id ? 'true' : undefined}
                        data-testid={`exercise-item-${card.id}`}
                        data-done={p.done}
                      >
                        <span className="mark" aria-hidden="true">
                          {p.done ? '✓' : '○'}
                        </span>
                        <span className="name">{card.title[lang]}</span>
                        <span className="meta">
                          {p.done && <span className="sr-only">{t('list.done')}, </span>}
                          {t(`difficulty.${card.difficulty}`)} ·{' '}
                          {t('list.minutes', { minutes: card.minutes })}
                          {p.solutionShown && ` · ${t('list.solutionSeen')}`}
                          {current === card.id && ` · ${t('list.current')}`}
                        </span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            </section>
          ))}
        </>
      )}
      <ProgressFile c={c} />
      <ShareExercise c={c} />
    </dialog>
  );
}
