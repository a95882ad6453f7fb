/** The trace of the packet through the host, with the lab's own verdict, step, trace and rules panels. */
import { useTranslation } from 'react-i18next';
import { useStore } from 'zustand';
import { LabProvider } from '../components/context.tsx';
import { VerdictBanner } from '../components/VerdictBanner.tsx';
import { Controls } from '../components/Controls.tsx';
import { StepExplain } from '../components/StepExplain.tsx';
import { TracePanel } from '../components/TracePanel.tsx';
import { RulesPanel } from '../components/RulesPanel.tsx';
import { ErrorBoundary } from '../components/ErrorBoundary.tsx';
import { useOwn, useOwnStore } from './context.tsx';

export function OwnTrace() {
  const { t } = useTranslation();
  const own = useOwnStore();
  const running = useOwn((s) => s.running);
  const failure = useOwn((s) => s.failure);
  const blocked = useOwn(
    (s) => s.result !== null && s.result.lab === null && s.packet.dst.trim() !== '',
  );
  const traced = useStore(own.lab, (s) => s.result !== null);
  const stale = useStore(own.lab, (s) => s.stale);
  return (
    <section className="own-trace" aria-labelledby="own-trace-title" data-testid="own-trace">
      <h3 id="own-trace-title">{t('own.result')}</h3>
      <p className="own-status" role="status">
        {running
          ? t('own.running')
          : failure
            ? t('own.error', { message: failure })
            : blocked
              ? `${t('own.fix')}${stale ? ` ${t('own.stale')}` : ''}`
              : ''}
      </p>
      {traced && (
        <LabProvider store={own.lab}>
          <VerdictBanner />
          <div className="own-stage">
            <Controls />
            <StepExplain />
          </div>
          <div className="lab-panels">
            <ErrorBoundary label="Trace">
              <TracePanel />
            </ErrorBoundary>
            <ErrorBoundary label="Rules">
              <RulesPanel source="pasted" />
            </ErrorBoundary>
          </div>
        </LabProvider>
      )}
    </section>
  );
}
