import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { LabProvider, useActions, useLab } from '../components/context.tsx';
import { VariantSelect } from '../components/VariantSelect.tsx';
import { ModeSelect } from '../components/ModeSelect.tsx';
import { usePrefs } from '../components/prefs.tsx';
import { DiagramPanel } from '../components/DiagramPanel.tsx';
import { Controls } from '../components/Controls.tsx';
import { StepExplain } from '../components/StepExplain.tsx';
import { PathPicker } from '../components/PathPicker.tsx';
import { EditorPane } from '../components/EditorPane.tsx';
import { ErrorBoundary } from '../components/ErrorBoundary.tsx';
import { EditNotices, EditsProvider } from '../components/EditNotices.tsx';
import { useShortcuts } from '../components/useShortcuts.ts';
import type { EditChoices } from '../store/controller.ts';
import type { LabStore } from '../store/lab-store.ts';
import { EmbedBar } from './EmbedBar.tsx';
import { GatedVerdict } from './GatedVerdict.tsx';
import { ParamNotes } from './ParamNotes.tsx';
import { useAutoHeight } from './useAutoHeight.ts';
import type { NotesStore } from './notes.ts';
import type { EditorMode, LinkParams } from './params.ts';

export interface EmbedLabProps {
  readonly store: LabStore;
  readonly editor: 'monaco' | 'plain';
  readonly editorMode: EditorMode;
  readonly params: LinkParams;
  readonly notes: NotesStore;
  readonly edits: EditChoices | null;
}

/**
 * The lab in a blog column (360-900 px): a thin bar, the diagram across the whole width, one row
 * of transport controls, the step's explanation, the verdict. Its height follows from its width
 * alone (never from the window: the iframe's height is set from it, see useAutoHeight).
 */
export function EmbedLab(p: EmbedLabProps) {
  return (
    <LabProvider store={p.store}>
      <EditsProvider value={p.edits}>
        <EmbedLayout {...p} />
      </EditsProvider>
    </LabProvider>
  );
}

function EmbedLayout(p: EmbedLabProps) {
  const { t } = useTranslation();
  const { lang } = usePrefs();
  const title = useLab((s) => s.scenario?.title[lang] ?? 'Hookpath');
  const { setVariant } = useActions();
  const root = useRef<HTMLDivElement>(null);
  useShortcuts(root, p.store);
  useAutoHeight(root);
  return (
    <div className="lab lab-embed" ref={root} data-testid="lab">
      <EmbedBar params={p.params} />
      <ParamNotes notes={p.notes} />
      <EditNotices />
      <main className="embed-main" aria-label={t('embed.frameTitle', { title })}>
        {p.params.pickers !== 'none' && (
          <div className="embed-pickers" data-testid="embed-pickers">
            {p.params.pickers === 'all' && (
              // Nothing is read from storage (an embed's rule): the variant's own manifests.
              <>
                <VariantSelect className="embed-variant-picker" onPick={setVariant} />
                <ModeSelect className="embed-variant-picker" />
              </>
            )}
            <PathPicker />
          </div>
        )}
        <ErrorBoundary label="Diagram">
          <DiagramPanel compact />
        </ErrorBoundary>
        <Controls compact />
        <StepExplain label={`${t('explain.title')} · ${title}`} />
        <GatedVerdict after={p.params.verdictAfter} />
        {p.editorMode !== 'hidden' && (
          <EmbedEditor mode={p.editor} readOnly={p.editorMode === 'readonly'} />
        )}
      </main>
    </div>
  );
}

/** The manifests below the lab, behind a disclosure (open: the author asked for them). */
function EmbedEditor({ mode, readOnly }: { mode: 'monaco' | 'plain'; readOnly: boolean }) {
  const { t } = useTranslation();
  return (
    <details className="embed-editor" open data-testid="embed-editor">
      <summary>{t('editor.title')}</summary>
      <div className="embed-editor-body">
        <ErrorBoundary label="Editor">
          {/* Read-only text needs no Monaco: the textarea is light and reads the same. */}
          <EditorPane mode={readOnly ? 'plain' : mode} readOnly={readOnly} />
        </ErrorBoundary>
      </div>
    </details>
  );
}
