/**
 * The lab's stage: the toolbar with the Diagram/Matrix switch, then the diagram (two, side by
 * side, when comparing) or the probe matrix, the transport controls and the step's explanation.
 */
import { useRef, type ReactNode, type Ref } from 'react';
import { useLab } from '../components/context.tsx';
import { DiagramPanel } from '../components/DiagramPanel.tsx';
import { PathPicker } from '../components/PathPicker.tsx';
import { Controls } from '../components/Controls.tsx';
import { StepExplain } from '../components/StepExplain.tsx';
import { ErrorBoundary } from '../components/ErrorBoundary.tsx';
import { MatrixView } from '../matrix/MatrixView.tsx';
import { OwnHostView } from '../own-host/OwnHostView.tsx';
import { CompareHead, ComparePane, ViewSwitch } from './CompareParts.tsx';
import '../styles/views.css';

export function LabStage({ stageRef, trail }: { stageRef: Ref<HTMLDivElement>; trail: ReactNode }) {
  const view = useLab((s) => s.view);
  const comparing = useLab((s) => s.compare !== null && s.view === 'diagram');
  const switchRef = useRef<HTMLDivElement>(null);
  if (view === 'host')
    return (
      <div className="lab-stage is-host" ref={stageRef}>
        <ErrorBoundary label="Your host">
          <OwnHostView lead={<ViewSwitch />} />
        </ErrorBoundary>
      </div>
    );
  return (
    <div
      className={`lab-stage${view === 'matrix' ? ' is-matrix' : ''}${comparing ? ' is-comparing' : ''}`}
      ref={stageRef}
    >
      <ErrorBoundary label="Diagram">
        <DiagramPanel
          lead={
            <>
              <div ref={switchRef} className="view-switch-wrap">
                <ViewSwitch />
              </div>
              <PathPicker />
            </>
          }
          trail={trail}
        />
      </ErrorBoundary>
      {comparing && <CompareHead />}
      {comparing && (
        <ErrorBoundary label="Compare">
          <ComparePane />
        </ErrorBoundary>
      )}
      {view === 'matrix' && (
        <ErrorBoundary label="Matrix">
          <MatrixView
            // The traced cell's view is gone: the focus goes to the switch, not to the page.
            onTraced={() =>
              requestAnimationFrame(() =>
                switchRef.current?.querySelector<HTMLElement>('[aria-pressed=true]')?.focus(),
              )
            }
          />
        </ErrorBoundary>
      )}
      <Controls />
      <StepExplain />
    </div>
  );
}
