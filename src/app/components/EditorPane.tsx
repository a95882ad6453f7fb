import { lazy, Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useActions, useLab } from './context.tsx';
import { PlainEditor } from '../editor/PlainEditor.tsx';
import type { EditorProps } from '../editor/types.ts';
import { usePrefs } from './prefs.tsx';
import { downloadText } from './EditNotices.tsx';

// Monaco is big: its own chunk, loaded after the diagram is up. Until then the textarea works.
const MonacoEditor = lazy(() => import('../editor/MonacoEditor.tsx'));

/**
 * `ready` false: Monaco is not wanted yet (the diagram draws first); the textarea stands in. A text
 * too long for the textarea may switch a plain pane to Monaco.
 */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
export function EditorPane({
  mode,
  ready = true,
  readOnly = false,
}: {
  mode: 'monaco' | 'plain';
  ready?: boolean;
  /** `editor=readonly`: shown, not edited (no reset either). */
  readOnly?: boolean;
}) {
  const { t } = useTranslation();
  const [full, setFull] = useState(false);
  const scenarioId = useLab((s) => s.doc.scenarioId);
  const variant = useLab((s) => s.doc.variant);
  const { theme } = usePrefs();
  const manifests = useLab((s) => s.doc.manifests);
  const original = useLab((s) => s.original);
  const all = useLab((s) => s.diagnostics);
  const stale = useLab((s) => s.stale);
  const running = useLab((s) => s.running);
  const failure = useLab((s) => s.failure);
  const ms = useLab((s) => s.lastMs);
  const cached = useLab((s) => s.lastCached);
  const { setManifests, resetManifests } = useActions();
  const [reveal, setReveal] = useState<EditorProps['reveal']>(null);
  const diagnostics = all.filter((d) => d.source === 'manifests');
  const other = all.filter((d) => d.source !== 'manifests');
  const edited = manifests !== original;
  // The status never says "simulated" beside an error: it agrees with the list below.
  const hasErrors = all.some((d) => d.severity === 'error');
  const onChange = useCallback((v: string) => setManifests(v), [setManifests]);
  const plain = {
    onFullEditor: () => setFull(true),
    onDownload: () => downloadText(manifests, `${scenarioId}${variant ? `-${variant}` : ''}.yaml`),
  };

  const props: EditorProps = {
    value: manifests,
    onChange,
    diagnostics,
    theme,
    label: t('editor.title'),
    reveal,
    readOnly,
  };
  return (
    <section className="panel editor-pane" data-testid="editor-pane" aria-label={t('editor.title')}>
      <header className="panel-head">
        <h2>{t('editor.title')}</h2>
        {edited && (
          <span className="badge" data-testid="edited-badge" title={t('editor.saved')}>
            {t('editor.modified')}
          </span>
        )}
        <span className="grow" />
        {!readOnly && (
          <button
            type="button"
            className="text"
            disabled={!edited}
            data-testid="editor-reset"
            onClick={() => {
              if (globalThis.confirm?.(t('editor.resetConfirm')) ?? true) resetManifests();
            }}
          >
            {t('editor.reset')}
          </button>
        )}
      </header>
      <div
        className={`editor-status${stale ? ' stale' : ''}`}
        data-testid="editor-status"
        role="status"
      >
        {failure ? (
          <span className="status-error" data-testid="status-failure">
            {t(`status.${failure.reason}`, { message: failure.message })}
          </span>
        ) : stale ? (
          <span data-testid="stale-banner">⚠ {t('status.stale')}</span>
        ) : hasErrors ? (
          <span className="status-error" data-testid="status-errors">
            ✗ {t('status.errors')}
          </span>
        ) : running ? (
          <span className="muted">{t('status.running')}</span>
        ) : ms !== null ? (
          <span className="muted" data-testid="status-ms">
            ✓ {t(cached ? 'status.cached' : 'status.ms', { ms: Math.max(1, Math.round(ms)) })}
          </span>
        ) : null}
      </div>
      <div className="editor-body">
        {!ready ? (
          <PlainEditor {...props} standIn={mode === 'monaco'} {...plain} />
        ) : mode === 'plain' && !full ? (
          <PlainEditor {...props} {...plain} />
        ) : (
          <Suspense fallback={<PlainEditor {...props} standIn />}>
            <MonacoEditor {...props} />
          </Suspense>
        )}
      </div>
      {(diagnostics.length > 0 || other.length > 0) && (
        <ul
          className="diagnostics"
          data-testid="diagnostics"
          aria-label={t('editor.problems', { count: diagnostics.length + other.length })}
        >
          {[...diagnostics, ...other].map((d, i) => (
            <li
              key={i}
              className={`diag diag-${d.severity}`}
              data-testid="diagnostic"
              data-line={d.line}
            >
              <button
                type="button"
                className="text"
                disabled={d.source !== 'manifests' || d.line < 1}
                onClick={() => setReveal({ line: d.line, column: d.column, nonce: Date.now() })}
              >
                {d.line > 0 && d.source === 'manifests' ? (
                  <span className="diag-line">{t('editor.line', { line: d.line })}</span>
                ) : null}
                <span className="diag-msg">{d.message}</span>
                {d.field && <span className="muted"> · {d.field}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
