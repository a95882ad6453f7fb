import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type * as Monaco from 'monaco-editor/editor/editor.api.js';
import { MANIFESTS_URI, onTabFocusChange, setupMonaco, tabMovesFocus } from './monaco-setup.ts';
import type { EditorProps } from './types.ts';
import { tabToggleKey } from './keys.ts';
import './editor.css';

/**
 * Past this many characters Monaco drops the features that redo work over the whole text on every
 * keystroke: bracket-pair colours and guides (a parse of the document), folding (ranges for every
 * map from monaco-yaml's worker), occurrence highlights. Measured at 5,000 Services (2.3 MB): these
 * cost the page's main thread 0.2-0.3 s after each keystroke.
 */
export const MONACO_BIG = 200_000;

function sizeOptions(chars: number) {
  const big = chars > MONACO_BIG;
  return {
    folding: !big,
    bracketPairColorization: { enabled: !big },
    // Monaco's defaults for a text of ordinary size.
    guides: { bracketPairs: false, indentation: !big },
    matchBrackets: big ? ('never' as const) : ('always' as const),
    occurrencesHighlight: big ? ('off' as const) : ('singleFile' as const),
  };
}

/** Monaco on the manifests: Kubernetes schema through monaco-yaml, lab diagnostics as markers. */
// eslint-disable-next-line max-lines-per-function -- a React component: its hooks, handlers and one JSX tree, read top to bottom
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
  /** The text the model last gave the lab: the value prop comes back as this very string. */
  const emitted = useRef(value);
  const diagnosticsRef = useRef(diagnostics);
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
      ...sizeOptions(value.length),
    });
    ed.current = editor;
    let big = value.length > MONACO_BIG;
    const sub = model.onDidChangeContent(() => {
      const text = model.getValue();
      emitted.current = text;
      if (text.length > MONACO_BIG !== big) {
        big = !big;
        editor.updateOptions(sizeOptions(text.length));
      }
      onChangeRef.current(text);
    });
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
    const editor = ed.current;
    const model = editor?.getModel();
    // Only external changes (reset, another scenario, a paste the lab inserted): typing already
    // updated the model, and its text comes back as the same string (no 2 MB comparison).
    if (!editor || !model || value === emitted.current) return;
    emitted.current = value;
    editor.updateOptions(sizeOptions(value.length));
    model.setValue(value);
    setMarkers(model, diagnosticsRef.current);
  }, [value]);

  useEffect(() => {
    ed.current?.updateOptions({ readOnly });
  }, [readOnly]);

  useEffect(() => {
    const monaco = setupMonaco();
    monaco.editor.setTheme(theme === 'dark' ? 'vs-dark' : 'vs');
  }, [theme]);

  useEffect(() => {
    diagnosticsRef.current = diagnostics;
    const model = ed.current?.getModel();
    // Markers move with the text as it is edited: set again when the diagnostics change only.
    if (model) setMarkers(model, diagnostics);
  }, [diagnostics]);

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

function setMarkers(
  model: Monaco.editor.ITextModel,
  diagnostics: EditorProps['diagnostics'],
): void {
  const monaco = setupMonaco();
  const lines = model.getLineCount();
  monaco.editor.setModelMarkers(
    model,
    'hookpath',
    diagnostics.map((d) => {
      const line = Math.min(Math.max(d.line, 1), lines);
      return {
        severity:
          d.severity === 'error' ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
        message: d.field ? `${d.message}\n(${d.field})` : d.message,
        startLineNumber: line,
        startColumn: Math.max(d.column, 1),
        endLineNumber: Math.min(Math.max(d.endLine ?? line, line), lines),
        endColumn:
          d.endColumn !== undefined && d.endColumn > 0 ? d.endColumn : model.getLineMaxColumn(line),
        source: 'hookpath',
      };
    }),
  );
}
