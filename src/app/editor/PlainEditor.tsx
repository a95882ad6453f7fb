import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent } from 'react';
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

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * A textarea: the `?editor=plain` mode (e2e tests, very old browsers) and Monaco's stand-in while
 * it loads. Its line numbers are drawn for the visible lines only, so a 100,000-line manifest does
 * not put 100,000 elements on the page.
 */
export function PlainEditor({
  value,
  onChange,
  diagnostics,
  label,
  reveal,
  readOnly = false,
}: EditorProps) {
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

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const text = e.clipboardData.getData('text/plain');
    if (text.length < BIG_PASTE) return;
    e.preventDefault();
    const ta = e.currentTarget;
    const next = ta.value.slice(0, ta.selectionStart) + text + ta.value.slice(ta.selectionEnd);
    caret.current = ta.selectionStart + text.length;
    onChange(next);
  };

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
