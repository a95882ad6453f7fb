import { useTranslation } from 'react-i18next';
import { useExercise, useExercises } from './context.tsx';
import { ExerciseList } from './ExerciseList.tsx';
import type { ExerciseController } from './controller.ts';

/** The header's "Exercises" button (with how many are done) and the list it opens. */
export function ExerciseLauncher() {
  const c = useExercises();
  return c ? <Launcher c={c} /> : null;
}

function Launcher({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const open = useExercise(c, (s) => s.listOpen);
  const done = useExercise(c, (s) => Object.values(s.progress).filter((p) => p.done).length);
  return (
    <>
      <button
        type="button"
        className="text exercise-launcher"
        aria-haspopup="dialog"
        aria-expanded={open}
        title={t('launcher.title')}
        onClick={() => c.showList()}
        data-testid="exercises-open"
      >
        <span aria-hidden="true">✎</span> <span className="action-label">{t('launcher.open')}</span>
        {done > 0 && (
          <span className="done-count" data-testid="exercises-done-count">
            ✓ {done}
          </span>
        )}
      </button>
      {open && <ExerciseList c={c} />}
    </>
  );
}
