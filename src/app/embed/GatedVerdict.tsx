import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLab } from '../components/context.tsx';
import { VerdictBanner } from '../components/VerdictBanner.tsx';
import { Icon } from '../components/Icon.tsx';
import { stepsOf, type LabState } from '../store/lab-store.ts';

/** What the verdict is about: once the packet has arrived for it, it stays shown. */
const questionOf = (s: LabState) =>
  `${s.doc.scenarioId}\n${s.doc.variant ?? ''}\n${s.doc.mode ?? ''}\n${s.doc.path?.from ?? ''}\n${s.doc.path?.to ?? ''}\n${s.doc.run}\n${s.doc.manifests.length}`;

/**
 * The verdict, or with `verdict=after` a line saying it comes when the packet arrives: a blog
 * post's reader plays the trace before learning the ending.
 */
export function GatedVerdict({ after }: { after: boolean }) {
  const { t } = useTranslation();
  const question = useLab(questionOf);
  const arrived = useLab((s) => {
    const n = stepsOf(s).length;
    return n > 0 && s.doc.step >= n - 1;
  });
  const [seen, setSeen] = useState<string | null>(null);
  // Remembered during render (React's "state from the previous render" pattern): rewinding after
  // the end keeps the verdict.
  if (after && arrived && seen !== question) setSeen(question);
  if (!after || arrived || seen === question) return <VerdictBanner />;
  return (
    <div className="verdict verdict-none verdict-later" data-testid="verdict-later" role="status">
      {/* The verdict's own place, holding what to press until the answer comes. */}
      <span className="verdict-icon" aria-hidden="true">
        <Icon name="play" size={12} />
      </span>
      {t('embed.verdictLater')}
    </div>
  );
}
