import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
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
import { EditNotices, EditsProvider } from './EditNotices.tsx';
import type { EditChoices } from '../store/controller.ts';
import type { LabStore } from '../store/lab-store.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import { ExercisePanel } from '../exercise/ExercisePanel.tsx';
import { FixedParts } from '../exercise/FixedParts.tsx';

export interface LabProps {
  readonly store: LabStore;
  readonly scenarios: readonly ScenarioEntry[];
  readonly editor: 'monaco' | 'plain';
  readonly embed: boolean;
  /** The choices the edit notices offer (absent in tests that mount a bare store). */
  readonly edits?: EditChoices;
}

/** One lab: the layout; every panel reads the lab's own store. */
export function Lab({ store, scenarios, editor, embed, edits }: LabProps) {
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
  const stage = useRef<HTMLDivElement>(null);
  useStageHeight(root, stage);
  const editorToggle = (
    <button
      type="button"
      className="text editor-toggle"
      onClick={() => setShowEditor(!showEditor)}
      data-testid="editor-toggle"
      aria-pressed={showEditor}
    >
      {showEditor ? t('editor.hide') : t('editor.show')}
    </button>
  );
  return (
    <LabProvider store={store}>
      <EditsProvider value={edits ?? null}>
        <div
          className={`lab${embed ? ' lab-embed' : ''}${showEditor ? '' : ' no-editor'}`}
          ref={root}
          data-testid="lab"
        >
          <Header scenarios={scenarios} embed={embed} />
          <EditNotices />
          <VerdictBanner />
          <div className="lab-grid">
            {showEditor && (
              <div className="lab-editor">
                <ErrorBoundary label="Exercise">
                  <ExercisePanel />
                </ErrorBoundary>
                <ErrorBoundary label="Editor">
                  <EditorPane mode={editor} ready={editorReady} />
                </ErrorBoundary>
                <FixedParts />
              </div>
            )}
            <main className="lab-main">
              <div className="lab-stage" ref={stage}>
                <ErrorBoundary label="Diagram">
                  <DiagramPanel lead={<PathPicker />} trail={editorToggle} />
                </ErrorBoundary>
                <Controls />
                <StepExplain />
              </div>
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
      </EditsProvider>
    </LabProvider>
  );
}

/**
 * The first screen belongs to the diagram: the stage (toolbar, diagram, controls, explanation)
 * fills the window below the header and the verdict, whatever their height; the trace and the
 * rules follow below the fold. Written as a CSS variable the editor column uses too.
 */
function useStageHeight(
  root: RefObject<HTMLElement | null>,
  stage: RefObject<HTMLElement | null>,
): void {
  useLayoutEffect(() => {
    const r = root.current;
    const el = stage.current;
    if (!r || !el) return;
    const measure = () => {
      const top = el.getBoundingClientRect().top + globalThis.scrollY;
      const h = Math.max(420, Math.floor(globalThis.innerHeight - top - 10));
      r.style.setProperty('--stage-h', `${h}px`);
      r.style.setProperty('--stage-top', `${Math.round(top)}px`);
    };
    measure();
    const ro = new ResizeObserver(measure);
    for (const child of r.children) if (!child.contains(el)) ro.observe(child);
    globalThis.addEventListener('resize', measure);
    return () => {
      ro.disconnect();
      globalThis.removeEventListener('resize', measure);
    };
  }, [root, stage]);
}
