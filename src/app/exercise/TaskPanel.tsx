import { useTranslation } from 'react-i18next';
import { usePrefs } from '../components/prefs.tsx';
import { useExercise } from './context.tsx';
import type { ExerciseController } from './controller.ts';
import { GoalList } from './GoalList.tsx';
import { HintsAndSolution } from './HintsAndSolution.tsx';
import type { ActiveExercise } from './store.ts';
import { SuccessView } from './SuccessView.tsx';

/** The open exercise: task, what may change, the success view, live goals, hints, solution. */
export function TaskPanel({ c, active }: { c: ExerciseController; active: ActiveExercise }) {
  const { t } = useTranslation('exercise');
  const { lang } = usePrefs();
  const solved = useExercise(c, (s) => !s.stale && (s.report?.solved ?? false));
  const card = active.card;
  const parts = active.opened.editable
    .map((e) => t(`task.part.${e}`))
    .join(lang === 'zh' ? '、' : ', ');
  return (
    <section className="panel task-panel" aria-labelledby="task-title" data-testid="task-panel">
      <header className="panel-head">
        <h2>
          {card.source === 'url' ? `${t('task.label')} · ${t('task.fromLink')}` : t('task.label')}
        </h2>
        <span className="grow" />
        <button type="button" className="text" onClick={() => c.showList()} data-testid="task-list">
          {t('task.list')}
        </button>
        <button type="button" className="text" onClick={() => c.leave()} data-testid="task-leave">
          {t('task.leave')}
        </button>
      </header>
      <div className="task-body">
        <h3 id="task-title" className="task-title" data-testid="task-title">
          {card.title[lang]}
        </h3>
        <p className="muted task-meta">
          {t(`difficulty.${card.difficulty}`)} · {t('list.minutes', { minutes: card.minutes })} ·{' '}
          {card.topics.map((x) => t(`topic.${x}`)).join(' · ')}
        </p>
        {solved && <SuccessView c={c} card={card} />}
        <details className="task-details" open>
          <summary>{t('task.task')}</summary>
          <p className="task-text" data-testid="task-text">
            {card.task[lang]}
          </p>
          <p className="muted task-editable">{t('task.editable', { parts })}</p>
        </details>
        <GoalList c={c} />
        <HintsAndSolution c={c} card={card} />
      </div>
    </section>
  );
}
