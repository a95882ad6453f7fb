import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type * as Monaco from 'monaco-editor/editor/editor.api.js';
import { MANIFESTS_URI, onTabFocusChange, setupMonaco, tabMovesFocus } from './monaco-setup.ts';
import type { EditorProps } from './types.ts';
import { tabToggleKey } from './keys.ts';
import './editor.css';

/** Monaco on the manifests: Kubernetes schema through monaco-yaml, lab diagnostics as markers. */
export default function MonacoEditor({
  value,
  onChange,
  diagnostics,
  theme,
  label,
  reveal,
  readOnly = false,
}: EditorProps) {
  const { t } = useTranslation();
  const host = useRef<HTMLDivElement>(null);
  const [tabFocus, setTabFocus] = useState(tabMovesFocus);
  const ed = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const onChangeRef = useRef(onChange);
  useEffect(() => {
    onChangeRef.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const monaco = setupMonaco();
    const uri = monaco.Uri.parse(MANIFESTS_URI);
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(value, 'yaml', uri);
    model.setValue(value);
    const editor = monaco.editor.create(el, {
      model,
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      lineNumbersMinChars: 3,
      scrollBeyondLastLine: false,
      tabSize: 2,
      ariaLabel: label,
      renderLineHighlight: 'line',
      quickSuggestions: { other: true, comments: false, strings: true },
      readOnly,
    });
    ed.current = editor;
    const sub = model.onDidChangeContent(() => onChangeRef.current(model.getValue()));
    const tab = onTabFocusChange(setTabFocus);
    return () => {
      tab.dispose();
      sub.dispose();
      editor.dispose();
      model.dispose();
      ed.current = null;
    };
    // The editor is created once; later values arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const model = ed.current?.getModel();
    // Only external changes (reset, another scenario): typing already updated the model.
    if (model && model.getValue() !== value) model.setValue(value);
  }, [value]);

  useEffect(() => {
    ed.current?.updateOptions({ readOnly });
  }, [readOnly]);

  useEffect(() => {
    const monaco = setupMonaco();
    monaco.editor.setTheme(theme === 'dark' ? 'vs-dark' : 'vs');
  }, [theme]);

  useEffect(() => {
    const monaco = setupMonaco();
    const model = ed.current?.getModel();
    if (!model) return;
    const lines = model.getLineCount();
    monaco.editor.setModelMarkers(
      model,
      'hookpath',
      diagnostics.map((d) => {
        const line = Math.min(Math.max(d.line, 1), lines);
        return {
          severity:
            d.severity === 'error' ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
          message: d.path ? `${d.message}\n(${d.path})` : d.message,
          startLineNumber: line,
          startColumn: Math.max(d.column, 1),
          endLineNumber: Math.min(Math.max(d.endLine, line), lines),
          endColumn: d.endColumn > 0 ? d.endColumn : model.getLineMaxColumn(line),
          source: 'hookpath',
        };
      }),
    );
  }, [diagnostics, value]);

  useEffect(() => {
    const editor = ed.current;
    if (!editor || !reveal) return;
    editor.revealLineInCenter(reveal.line);
    editor.setPosition({
      lineNumber: Math.max(1, reveal.line),
      column: Math.max(1, reveal.column),
    });
    editor.focus();
  }, [reveal]);

  return (
    <div className="monaco-wrap">
      <div className="monaco-host" ref={host} data-testid="editor-monaco" />
      <p className="editor-hint" data-testid="editor-tab-hint" data-tab-focus={tabFocus}>
        {t(tabFocus ? 'editor.tabMoves' : 'editor.tabIndents', { key: tabToggleKey() })}
      </p>
    </div>
  );
}
