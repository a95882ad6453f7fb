import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LabProvider } from './context.tsx';
import { Header } from './Header.tsx';
import { VerdictBanner } from './VerdictBanner.tsx';
import { PathPicker } from './PathPicker.tsx';
import { DiagramPanel } from './DiagramPanel.tsx';
import { Controls } from './Controls.tsx';
import { StepExplain } from './StepExplain.tsx';
import { TracePanel } from './TracePanel.tsx';
import { RulesPanel } from './RulesPanel.tsx';
import { EditorPane } from './EditorPane.tsx';
import { useShortcuts } from './useShortcuts.ts';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import type { LabStore } from '../store/lab-store.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import { ExercisePanel } from '../exercise/ExercisePanel.tsx';
import { FixedParts } from '../exercise/FixedParts.tsx';

export interface LabProps {
  readonly store: LabStore;
  readonly scenarios: readonly ScenarioEntry[];
  readonly editor: 'monaco' | 'plain';
  readonly embed: boolean;
}

/** One lab: the layout; every panel reads the lab's own store. */
export function Lab({ store, scenarios, editor, embed }: LabProps) {
  const { t } = useTranslation();
  const root = useRef<HTMLDivElement>(null);
  const [showEditor, setShowEditor] = useState(!embed);
  // Monaco waits until the diagram is drawn: the first paint never waits for the editor.
  const [editorReady, setEditorReady] = useState(false);
  useEffect(() => {
    const id = requestAnimationFrame(() => setEditorReady(true));
    return () => cancelAnimationFrame(id);
  }, []);
  useShortcuts(root, store);
  return (
    <LabProvider store={store}>
      <div
        className={`lab${embed ? ' lab-embed' : ''}${showEditor ? '' : ' no-editor'}`}
        ref={root}
        data-testid="lab"
      >
        <Header scenarios={scenarios} embed={embed} />
        <VerdictBanner />
        <div className="lab-grid">
          {showEditor && (
            <div className="lab-editor">
              <ErrorBoundary label="Exercise">
                <ExercisePanel />
              </ErrorBoundary>
              <ErrorBoundary label="Editor">
                <EditorPane mode={editorReady ? editor : 'plain'} />
              </ErrorBoundary>
              <FixedParts />
            </div>
          )}
          <main className="lab-main">
            <div className="toolbar-row">
              <PathPicker />
              <button
                type="button"
                className="text editor-toggle"
                onClick={() => setShowEditor(!showEditor)}
                data-testid="editor-toggle"
                aria-pressed={showEditor}
              >
                {showEditor ? t('editor.hide') : t('editor.show')}
              </button>
            </div>
            <ErrorBoundary label="Diagram">
              <DiagramPanel />
            </ErrorBoundary>
            <Controls />
            <StepExplain />
            {!embed && (
              <div className="lab-panels">
                <ErrorBoundary label="Trace">
                  <TracePanel />
                </ErrorBoundary>
                <ErrorBoundary label="Rules">
                  <RulesPanel />
                </ErrorBoundary>
              </div>
            )}
          </main>
        </div>
      </div>
    </LabProvider>
  );
}
