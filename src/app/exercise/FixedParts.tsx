import { useTranslation } from 'react-i18next';
import { useExercise, useExercises } from './context.tsx';
import type { ExerciseController } from './controller.ts';
import type { ReadOnlyPart } from './open.ts';

/** Under the editor: the parts of the starting state the learner may read but not change. */
export function FixedParts() {
  const c = useExercises();
  return c ? <Parts c={c} /> : null;
}

function Parts({ c }: { c: ExerciseController }) {
  const { t } = useTranslation('exercise');
  const parts = useExercise(c, (s) => s.active?.opened.readOnly);
  if (!parts?.length) return null;
  const title = (p: ReadOnlyPart) =>
    p.kind === 'manifests'
      ? t('readonly.manifests')
      : p.kind === 'hostRules'
        ? t('readonly.hostRules', { node: p.node })
        : p.node
          ? t('readonly.kubeProxyNode', { node: p.node })
          : t('readonly.kubeProxy');
  return (
    <details className="panel fixed-parts" data-testid="fixed-parts">
      <summary>
        {t('readonly.title')} ({parts.length})
      </summary>
      {parts.map((p, i) => (
        <div key={i} className="fixed-part">
          <h3>{title(p)}</h3>
          <pre tabIndex={0}>{p.text}</pre>
        </div>
      ))}
    </details>
  );
}
