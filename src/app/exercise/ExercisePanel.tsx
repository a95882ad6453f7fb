import { useTranslation } from 'react-i18next';
import './exercise.css';
import { useExercise, useExercises } from './context.tsx';
import type { ExerciseController } from './controller.ts';
import { TaskPanel } from './TaskPanel.tsx';

/** Beside the editor: the open exercise's task panel, or why an exercise did not open. */
export function ExercisePanel() {
  const c = useExercises();
  return c ? <Panel c={c} /> : null;
}

function Panel({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const active = useExercise(c, (s) => s.active);
  const opening = useExercise(c, (s) => s.opening);
  const error = useExercise(c, (s) => s.openError);
  if (opening)
    return (
      <section className="panel task-panel" aria-label={t('task.label')}>
        <p role="status" className="task-body muted">
          {t('task.opening')}
        </p>
      </section>
    );
  const task = active ? <TaskPanel c={c} active={active} /> : null;
  if (!error) return task;
  return (
    <>
      <section
        className="panel task-panel"
        aria-labelledby="exercise-open-error"
        data-testid="exercise-open-error"
      >
        <div className="task-body">
          <h2 id="exercise-open-error" className="task-title">
            {t('task.openFailed')}
          </h2>
          <p className="status-error">{error.message}</p>
          {error.diagnostics.length > 0 && (
            <ul className="exercise-diagnostics">
              {error.diagnostics.map((d, i) => (
                <li key={i}>
                  {d.line > 0 && <span className="diag-line">{`${d.line}:${d.column}`}</span>}{' '}
                  {d.field}: {d.message}
                </li>
              ))}
            </ul>
          )}
          <button type="button" onClick={() => c.showList()}>
            {t('task.list')}
          </button>
        </div>
      </section>
      {task}
    </>
  );
}
