import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { usePrefs } from '../components/prefs.tsx';
import type { ExerciseCard } from './card.ts';
import { useExercise } from './context.tsx';
import type { ExerciseController } from './controller.ts';

/** Every goal holds: the take-away, and the way to the next exercise. */
export function SuccessView({ c, card }: { c: ExerciseController; card: ExerciseCard }) {
  const { t } = useTranslation('exercise');
  const { lang } = usePrefs();
  // Re-render when the catalog arrives (the next exercise is taken from it).
  useExercise(c, (s) => s.catalog);
  const next = c.next();
  const ref = useRef<HTMLElement>(null);
  // Brought into view when it appears (the panel may be scrolled to the hints); focus stays where
  // the learner is typing.
  // (A statement, not the arrow's value: newer Chromium returns a promise from scrollIntoView, and
  // React would take it for the effect's cleanup.)
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  return (
    <section ref={ref} className="success" aria-labelledby="success-title" data-testid="success">
      <h4 id="success-title">
        <span aria-hidden="true">✓</span> {t('success.title')}
      </h4>
      <p className="success-label">{t('success.takeaway')}</p>
      <p data-testid="success-takeaway">{card.takeaway[lang]}</p>
      <div className="row">
        {next && next.id !== card.id ? (
          <button
            type="button"
            className="primary"
            onClick={() => void c.open(next.id)}
            data-testid="success-next"
          >
            {t('success.next', { title: next.title[lang] })}
          </button>
        ) : (
          <p className="muted">{t('success.allDone')}</p>
        )}
      </div>
    </section>
  );
}
