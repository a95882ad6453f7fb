import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { LabProvider } from './context.tsx';
import { Header } from './Header.tsx';
import { TracePanel } from './TracePanel.tsx';
import { RulesPanel } from './RulesPanel.tsx';
import { EditorPane } from './EditorPane.tsx';
import { Icon } from './Icon.tsx';
import { useShortcuts } from './useShortcuts.ts';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import { EditNotices, EditsProvider } from './EditNotices.tsx';
import type { EditChoices } from '../store/controller.ts';
import type { LabStore } from '../store/lab-store.ts';
import type { ScenarioEntry } from '../scenario/entry.ts';
import { ExercisePanel } from '../exercise/ExercisePanel.tsx';
import { FixedParts } from '../exercise/FixedParts.tsx';
import { EmbedLab } from '../embed/EmbedLab.tsx';
import { GatedVerdict } from '../embed/GatedVerdict.tsx';
import { ParamNotes } from '../embed/ParamNotes.tsx';
import { createNotesStore, type NotesStore } from '../embed/notes.ts';
import { NO_PARAMS, type EditorMode, type LinkParams } from '../embed/params.ts';
import { LabStage } from '../compare/LabStage.tsx';
import { ViewsProvider } from '../compare/views.tsx';
import { useStore } from 'zustand';

export interface LabProps {
  readonly store: LabStore;
  readonly scenarios: readonly ScenarioEntry[];
  readonly editor: 'monaco' | 'plain';
  readonly embed: boolean;
  /** The choices the edit notices offer (absent in tests that mount a bare store). */
  readonly edits?: EditChoices;
  /** `editor=hidden|readonly|edit`; the layout's default when absent. */
  readonly editorMode?: EditorMode;
  /** The readable parameters of the address (embed/params.ts). */
  readonly params?: LinkParams;
  /** What of the address could not be used. */
  readonly notes?: NotesStore;
}

/** One lab: the full layout, or the embed's (embed/EmbedLab.tsx); every panel reads its store. */
export function Lab(props: LabProps) {
  const [notes] = useState(() => props.notes ?? createNotesStore());
  const params = props.params ?? NO_PARAMS;
  if (props.embed)
    return (
      <EmbedLab
        store={props.store}
        editor={props.editor}
        editorMode={props.editorMode ?? 'hidden'}
        params={params}
        notes={notes}
        edits={props.edits ?? null}
      />
    );
  return <FullLab {...props} params={params} notes={notes} />;
}

function FullLab({
  store,
  scenarios,
  editor,
  edits,
  editorMode = 'edit',
  params,
  notes,
}: LabProps & { params: LinkParams; notes: NotesStore }) {
  const { t } = useTranslation();
  const root = useRef<HTMLDivElement>(null);
  const [editorOn, setShowEditor] = useState(editorMode !== 'hidden');
  // Your host has its own inputs and trace: the scenario's editor and panels make way.
  const ownHost = useStore(store, (s) => s.view === 'host');
  const showEditor = editorOn && !ownHost;
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
      onClick={() => setShowEditor(!editorOn)}
      data-testid="editor-toggle"
      aria-pressed={showEditor}
      title={showEditor ? t('editor.hide') : t('editor.show')}
    >
      <Icon name="sidebar" />{' '}
      <span className="action-label">{showEditor ? t('editor.hide') : t('editor.show')}</span>
    </button>
  );
  return (
    <LabProvider store={store}>
      <ViewsProvider store={store}>
        <EditsProvider value={edits ?? null}>
          <div className={`lab${showEditor ? '' : ' no-editor'}`} ref={root} data-testid="lab">
            <Header scenarios={scenarios} />
            <ParamNotes notes={notes} />
            <EditNotices />
            {!ownHost && <GatedVerdict after={params.verdictAfter} />}
            <div className="lab-grid">
              {showEditor && (
                <div className="lab-editor">
                  <ErrorBoundary label="Exercise">
                    <ExercisePanel />
                  </ErrorBoundary>
                  <ErrorBoundary label="Editor">
                    <EditorPane
                      mode={editor}
                      ready={editorReady}
                      readOnly={editorMode === 'readonly'}
                    />
                  </ErrorBoundary>
                  <FixedParts />
                </div>
              )}
              <main className="lab-main">
                <LabStage stageRef={stage} trail={editorToggle} />
                {!ownHost && (
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
      </ViewsProvider>
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
