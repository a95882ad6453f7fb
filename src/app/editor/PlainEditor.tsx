import { useEffect, useRef } from 'react';
import type { EditorProps } from './types.ts';

/** A textarea: the `?editor=plain` mode (e2e tests, very old browsers) and Monaco's stand-in while it loads. */
export function PlainEditor({ value, onChange, diagnostics, label, reveal }: EditorProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const errorLines = new Set(diagnostics.filter((d) => d.line > 0).map((d) => d.line));
  useEffect(() => {
    const ta = ref.current;
    if (!ta || !reveal) return;
    const lines = ta.value.split('\n');
    const pos =
      lines.slice(0, reveal.line - 1).reduce((n, l) => n + l.length + 1, 0) +
      Math.max(0, reveal.column - 1);
    ta.focus();
    ta.setSelectionRange(pos, pos);
  }, [reveal]);
  return (
    <div className="plain-editor">
      <div className="gutter" aria-hidden="true">
        {value.split('\n').map((_, i) => (
          <div key={i} className={errorLines.has(i + 1) ? 'err' : undefined}>
            {i + 1}
          </div>
        ))}
      </div>
      <textarea
        ref={ref}
        data-testid="editor-plain"
        aria-label={label}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onScroll={(e) => {
          const g = e.currentTarget.previousElementSibling as HTMLElement | null;
          if (g) g.scrollTop = e.currentTarget.scrollTop;
        }}
      />
    </div>
  );
}
