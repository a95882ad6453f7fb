import { useTranslation } from 'react-i18next';
import { usePrefs } from '../components/prefs.tsx';
import type { ExerciseCard } from './card.ts';
import { useExercise } from './context.tsx';
import type { ExerciseController } from './controller.ts';
import { progressOf } from './store.ts';

/** Hints one at a time; the reference answers only after an explicit, recorded "show solution". */
export function HintsAndSolution({ c, card }: { c: ExerciseController; card: ExerciseCard }) {
  const { t } = useTranslation('exercise');
  const { lang } = usePrefs();
  const p = useExercise(c, (s) => progressOf(s, card.id));
  const shown = card.hints.slice(0, p.hints);
  const show = () => {
    if (globalThis.confirm?.(t('task.solutionConfirm')) ?? true) c.store.actions.showSolution();
  };
  return (
    <>
      <section className="hints" aria-labelledby="hints-title">
        <h4 id="hints-title">{t('task.hints')}</h4>
        {shown.length > 0 && (
          <ol className="hint-list" data-testid="hints">
            {shown.map((h, i) => (
              <li key={i} data-testid="hint">
                <span className="sr-only">{t('task.hint', { n: i + 1 })}: </span>
                <span className="hint-text">{h[lang]}</span>
              </li>
            ))}
          </ol>
        )}
        {p.hints < card.hints.length ? (
          <button
            type="button"
            onClick={() => c.store.actions.revealHint()}
            data-testid="hint-next"
          >
            {t('task.showHint', { n: p.hints + 1, total: card.hints.length })}
          </button>
        ) : (
          <p className="muted">{t('task.noMoreHints')}</p>
        )}
      </section>
      <section className="solution" aria-labelledby="solution-title">
        <h4 id="solution-title">{t('task.solution')}</h4>
        {!p.solutionShown ? (
          <button type="button" onClick={show} data-testid="solution-show">
            {t('task.showSolution')}
          </button>
        ) : (
          <>
            <p className="muted" data-testid="solution-recorded">
              {t('task.solutionRecorded')}
            </p>
            {card.solutions.map((s, i) => (
              <details key={i} className="solution-item" open={i === 0} data-testid="solution">
                <summary>{s.title[lang]}</summary>
                {s.why && <p>{s.why[lang]}</p>}
                <pre tabIndex={0}>{s.manifests}</pre>
                <button
                  type="button"
                  onClick={() => c.useSolution(i)}
                  data-testid={`solution-use-${i}`}
                >
                  {t('task.useSolution')}
                </button>
              </details>
            ))}
          </>
        )}
      </section>
    </>
  );
}
