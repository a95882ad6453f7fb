import { useTranslation } from 'react-i18next';
import { usePrefs } from '../components/prefs.tsx';
import { useExercise } from './context.tsx';
import type { ExerciseController } from './controller.ts';

/** How many failing pairs a goal lists before "and N more". */
const SHOWN_PAIRS = 2;

/** The goals with live ✓/✗; a failing goal says what the packet did instead. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function GoalList({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const { lang } = usePrefs();
  const card = useExercise(c, (s) => s.active?.card);
  const report = useExercise(c, (s) => s.report);
  const stale = useExercise(c, (s) => s.stale);
  const checking = useExercise(c, (s) => s.checking);
  const error = useExercise(c, (s) => s.checkError);
  const all = useExercise(c, (s) => s.diagnostics);
  const diagnostics = all.filter((d) => d.severity === 'error');
  if (!card) return null;
  const goals = report?.goals ?? [];
  const held = goals.filter((g) => g.pass).length;
  return (
    <section className="goals" aria-labelledby="goals-title" data-testid="goals" data-stale={stale}>
      <h4 id="goals-title">
        {t('task.goals')}{' '}
        <span className="muted" role="status" data-testid="goals-summary">
          {report
            ? t('task.goalsDone', { done: held, total: goals.length })
            : checking
              ? t('task.checking')
              : ''}
        </span>
      </h4>
      {stale && (
        <p className="goals-stale" data-testid="goals-stale">
          ⚠ {t('task.stale')}
        </p>
      )}
      {stale && diagnostics.length > 0 && (
        <ul className="exercise-diagnostics" data-testid="goals-diagnostics">
          {diagnostics.slice(0, 3).map((d, i) => (
            <li key={i}>
              {d.line > 0 && <span className="diag-line">{`${d.line}:${d.column}`}</span>}{' '}
              {d.message}
            </li>
          ))}
        </ul>
      )}
      {error && <p className="status-error">{t('task.checkFailed', { message: error })}</p>}
      <ul className="goal-list">
        {card.goals.map((g) => {
          const r = goals.find((x) => x.id === g.id);
          const state = r ? (r.pass ? 'pass' : 'fail') : 'unknown';
          return (
            <li
              key={g.id}
              className={`goal goal-${state}`}
              data-testid={`goal-${g.id}`}
              data-state={state}
            >
              <span className="goal-mark" aria-hidden="true">
                {state === 'pass' ? '✓' : state === 'fail' ? '✗' : '…'}
              </span>
              <div className="goal-text">
                <span>{g.text[lang]}</span>
                {r && (
                  <span className="sr-only"> — {r.pass ? t('task.pass') : t('task.fail')}</span>
                )}
                {r && !r.pass && (
                  <ul className="goal-failures">
                    {r.failures.slice(0, SHOWN_PAIRS).map((f, i) => (
                      <li key={i} data-testid="goal-failure">
                        <code className="pair">
                          {f.from} → {f.to}
                        </code>
                        <span className="why">{f.why[lang]}</span>
                        <span className="instead" data-testid="goal-instead">
                          <strong>{t('task.instead')}</strong> {f.instead[lang]}
                        </span>
                      </li>
                    ))}
                    {r.failures.length > SHOWN_PAIRS && (
                      <li className="muted">
                        {t('task.morePairs', { count: r.failures.length - SHOWN_PAIRS })}
                      </li>
                    )}
                  </ul>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
