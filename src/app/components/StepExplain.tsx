import { useTranslation } from 'react-i18next';
import { useLab } from './context.tsx';
import { stepsOf } from '../store/lab-store.ts';
import { insightOf } from '../model/insight.ts';

/** The current step in plain language, and why it matters when there is a lesson in it. */
export function StepExplain({ label }: { label?: string } = {}) {
  const { t } = useTranslation();
  const steps = useLab(stepsOf);
  const step = useLab((s) => s.doc.step);
  const cluster = useLab((s) => s.result?.cluster ?? null);
  const cur = steps[step];
  if (!cur) return <div className="explain" data-testid="step-explain" />;
  const e = cur.event.explain;
  const sentence = t(`explain:${e.key}`, { ...e.params, defaultValue: e.key });
  const insight = insightOf(steps, step, cluster);
  return (
    // Focusable: a long explanation scrolls inside its fixed height, by keyboard too.
    <div
      className="explain"
      data-testid="step-explain"
      role="region"
      tabIndex={0}
      aria-label={label ?? t('explain.title')}
    >
      <p className="explain-main">
        <span className="explain-host">{cur.host}</span>
        {sentence}
      </p>
      {/* Screen readers hear each step's sentence once, politely; the rest is there to read. */}
      <p className="sr-only" aria-live="polite" data-testid="step-announce">
        {`${cur.host}: ${sentence}`}
      </p>
      {insight && (
        <p className="explain-insight" data-testid="step-insight">
          <strong>{t('explain.why')}:</strong> {t(insight.key, insight.params ?? {})}
        </p>
      )}
    </div>
  );
}
