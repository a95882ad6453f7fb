import {
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ClipboardEvent,
  type RefObject,
} from 'react';
import { flushSync } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { EditorProps } from './types.ts';

/** Must match `.plain-editor` in lab.css (13px/19px, 6px padding). */
const LINE = 19;
const PAD = 6;
/** Line numbers drawn beyond the visible ones, above and below. */
const OVERSCAN = 20;
/**
 * Pastes at least this big are inserted by the lab rather than by the browser: Chromium's own
 * insertion into a textarea grows with the square of the pasted lines (about 15 s for 1,600 lines,
 * minutes for 5,000 Services). The lab's insertion keeps the caret; the browser's undo does not
 * see it.
 */
export const BIG_PASTE = 4_000;
/**
 * Text the textarea holds at most. Past that the browser's own layout of the textarea costs more
 * than 100 ms (0.5 MB: 100-600 ms per keystroke, 2.3 MB: 0.3-1.7 s; the 0.19 MB of 400 Services x
 * 100 replicas: a 3.2 s layout-and-paint task after the paste at load 6.8x the cores, ~0.5 s
 * alone; measured in Chromium), so the plain editor says so and offers the full editor
 * (virtualised) instead. 50 KB is ten times a scenario's manifests.
 */
export const PLAIN_MAX = 50_000;
/** Lines of a too-long text shown read-only, so the user sees what the lab holds. */
const PREVIEW_LINES = 40;

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function sizeText(chars: number): string {
  return chars >= 1024 * 1024
    ? `${(chars / 1024 / 1024).toFixed(1)} MB`
    : `${Math.round(chars / 1024)} KB`;
}

export interface PlainEditorProps extends EditorProps {
  /** Shown while Monaco loads: a long text says it is loading instead of offering a switch. */
  readonly standIn?: boolean;
  /** Switches this pane to the full editor (a text too long for the textarea). */
  readonly onFullEditor?: () => void;
  /** Saves the text as a file. */
  readonly onDownload?: () => void;
}

/**
 * A textarea: the `?editor=plain` mode (e2e tests, very old browsers) and Monaco's stand-in while
 * it loads. Its line numbers are drawn for the visible lines only. A text longer than PLAIN_MAX is
 * not put in the textarea at all (see PLAIN_MAX): the pane says why and offers the full editor.
 */
export function PlainEditor(props: PlainEditorProps) {
  if (props.value.length > PLAIN_MAX) return <TooLong {...props} />;
  return <TextareaEditor {...props} />;
}

/** What the pane shows for a text too long for the textarea; nothing is lost, nothing frozen. */
function TooLong({ value, standIn, onFullEditor, onDownload, label }: PlainEditorProps) {
  const { t } = useTranslation();
  const first = useRef<HTMLButtonElement>(null);
  // Only the first lines are looked at: counting all of them (135,000 at 5,000 Services) took
  // 8-25 ms of the paste's task on the main thread, for a figure the size already conveys.
  const preview = useMemo(() => {
    let end = 0;
    for (let i = 0; i < PREVIEW_LINES && end >= 0; i++) end = value.indexOf('\n', end + 1);
    return end < 0 ? value : value.slice(0, end);
  }, [value]);
  const size = sizeText(value.length);
  useEffect(() => {
    // The textarea that had the focus (a paste) is gone: the next thing to do takes it, once the
    // page is laid out. Focusing now would lay the page out inside the paste's task (30 ms of
    // style and layout at 5,000 Services) rather than in the frame that does it anyway.
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => {
        if (document.activeElement === document.body) first.current?.focus();
      }, 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  return (
    <div className="plain-editor plain-too-long" data-testid="editor-too-long" aria-label={label}>
      <p className="too-long-note" role="status">
        {standIn ? t('editor.tooLongLoading', { size }) : t('editor.tooLong', { size })}
      </p>
      {!standIn && (
        <p className="too-long-actions">
          {onFullEditor && (
            <button type="button" ref={first} onClick={onFullEditor} data-testid="editor-open-full">
              {t('editor.openFull')}
            </button>
          )}
          {onDownload && (
            <button type="button" onClick={onDownload} data-testid="editor-download">
              {t('editor.download')}
            </button>
          )}
        </p>
      )}
      <pre className="too-long-preview" aria-label={t('editor.preview', { lines: PREVIEW_LINES })}>
        {preview}
      </pre>
    </div>
  );
}

/**
 * A big paste reaches the lab in a task of its own, after the paste event's: the page's update
 * for it (at 5,000 Services the textarea replaced, the lab's panels rendered again) is then not
 * added to the event's task, which together held the main thread for up to 155 ms of CPU on a
 * loaded machine. Until it is applied the textarea still shows the text before the paste, so
 * anything typed or pasted next applies it first (nothing is typed into stale text).
 */
function useBigPaste(
  ref: RefObject<HTMLTextAreaElement | null>,
  caret: RefObject<number | null>,
  onChange: (text: string) => void,
) {
  const pending = useRef<{ readonly text: string; readonly timer: number } | null>(null);
  const latest = useRef(onChange);
  latest.current = onChange;
  const applyPaste = () => {
    const p = pending.current;
    if (!p) return;
    clearTimeout(p.timer);
    pending.current = null;
    flushSync(() => latest.current(p.text));
  };
  useEffect(() => {
    const ta = ref.current;
    if (!ta) return;
    ta.addEventListener('beforeinput', applyPaste);
    return () => ta.removeEventListener('beforeinput', applyPaste);
  });

  return (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const text = e.clipboardData.getData('text/plain');
    if (text.length < BIG_PASTE) return;
    e.preventDefault();
    applyPaste();
    const ta = e.currentTarget;
    const next = ta.value.slice(0, ta.selectionStart) + text + ta.value.slice(ta.selectionEnd);
    caret.current = ta.selectionStart + text.length;
    const timer = window.setTimeout(() => {
      pending.current = null;
      latest.current(next);
    }, 0);
    pending.current = { text: next, timer };
  };
}

function TextareaEditor({
  value,
  onChange,
  diagnostics,
  label,
  reveal,
  readOnly = false,
}: PlainEditorProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const caret = useRef<number | null>(null);
  const [view, setView] = useState({ top: 0, height: 800 });
  const errorLines = new Set(diagnostics.filter((d) => d.line > 0).map((d) => d.line));
  const total = countLines(value);
  const first = Math.max(0, Math.floor((view.top - PAD) / LINE) - OVERSCAN);
  const last = Math.min(total, Math.ceil((view.top + view.height) / LINE) + OVERSCAN);

  useEffect(() => {
    const ta = ref.current;
    if (!ta || !reveal) return;
    let pos = 0;
    for (let l = 1; l < reveal.line && pos >= 0; l++) pos = ta.value.indexOf('\n', pos) + 1;
    pos = Math.max(0, pos) + Math.max(0, reveal.column - 1);
    ta.focus();
    ta.setSelectionRange(pos, pos);
  }, [reveal]);

  useLayoutEffect(() => {
    const ta = ref.current;
    if (!ta || caret.current === null) return;
    ta.setSelectionRange(caret.current, caret.current);
    caret.current = null;
  }, [value]);

  const onPaste = useBigPaste(ref, caret, onChange);

  return (
    <div className="plain-editor">
      <div className="gutter" aria-hidden="true">
        <div style={{ transform: `translateY(${first * LINE - view.top}px)` }}>
          {Array.from({ length: Math.max(0, last - first) }, (_, k) => {
            const n = first + k + 1;
            return (
              <div key={n} className={errorLines.has(n) ? 'err' : undefined}>
                {n}
              </div>
            );
          })}
        </div>
      </div>
      <textarea
        ref={ref}
        data-testid="editor-plain"
        aria-label={label}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        value={value}
        readOnly={readOnly}
        onChange={(e) => onChange(e.target.value)}
        onPaste={onPaste}
        onScroll={(e) =>
          setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })
        }
      />
    </div>
  );
}
