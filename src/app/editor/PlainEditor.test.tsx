// @vitest-environment jsdom
/**
 * The plain editor's big paste: it reaches the lab in a task after the paste event's (so the
 * page's update is not added to the event's task), yet nothing typed in between goes into the
 * text from before the paste; and the pane of a text too long for the textarea.
 */
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { createI18n } from '../i18n/index.ts';
import { BIG_PASTE, PLAIN_MAX, PlainEditor } from './PlainEditor.tsx';

afterEach(cleanup);

const nextTask = () => act(() => new Promise((r) => setTimeout(r, 0)));

function show(initial: string) {
  const seen: string[] = [];
  function Host() {
    const [value, setValue] = useState(initial);
    return (
      <PlainEditor
        value={value}
        onChange={(v) => {
          seen.push(v);
          setValue(v);
        }}
        onFullEditor={() => {}}
        diagnostics={[]}
        theme="light"
        label="Manifests"
        reveal={null}
      />
    );
  }
  render(
    <I18nextProvider i18n={createI18n('en')}>
      <Host />
    </I18nextProvider>,
  );
  return seen;
}

const textarea = () => screen.getByTestId('editor-plain') as HTMLTextAreaElement;

function paste(ta: HTMLTextAreaElement, text: string, from: number, to: number): boolean {
  ta.focus();
  ta.setSelectionRange(from, to);
  return fireEvent.paste(ta, { clipboardData: { getData: () => text } });
}

describe('a big paste in the plain editor', () => {
  const big = 'x: 1\n'.repeat(BIG_PASTE / 5 + 1);

  it('reaches the lab in a later task, inserted at the selection', async () => {
    const seen = show('a: 1\nb: 2\n');
    const notPrevented = paste(textarea(), big, 5, 10);
    expect(notPrevented).toBe(false);
    expect(seen).toEqual([]);
    await nextTask();
    expect(seen).toEqual([`a: 1\n${big}`]);
    expect(textarea().value).toBe(`a: 1\n${big}`);
    expect(textarea().selectionStart).toBe(5 + big.length);
  });

  it('is applied before a keystroke that comes first, and only once', async () => {
    const seen = show('a: 1\n');
    paste(textarea(), big, 5, 5);
    fireEvent(textarea(), new Event('beforeinput', { bubbles: true, cancelable: true }));
    expect(seen).toEqual([`a: 1\n${big}`]);
    expect(textarea().value).toBe(`a: 1\n${big}`);
    await nextTask();
    expect(seen).toHaveLength(1);
  });

  it('applies a pending paste before the next one', async () => {
    const seen = show('');
    paste(textarea(), big, 0, 0);
    paste(textarea(), `${big}y`, big.length, big.length);
    expect(seen).toEqual([big]);
    await nextTask();
    expect(seen).toEqual([big, `${big}${big}y`]);
  });

  it('leaves a small paste to the browser', () => {
    const seen = show('a: 1\n');
    expect(paste(textarea(), 'b: 2\n', 5, 5)).toBe(true);
    expect(seen).toEqual([]);
  });
});

describe('a text too long for the textarea', () => {
  it('shows its size and first 40 lines, and offers the full editor', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `line${i}: ${i}`).join('\n');
    expect(text.length).toBeGreaterThan(PLAIN_MAX);
    show(text);
    expect(screen.queryByTestId('editor-plain')).toBeNull();
    const pane = screen.getByTestId('editor-too-long');
    expect(pane.textContent).toContain(`These manifests are ${Math.round(text.length / 1024)} KB`);
    const preview = pane.querySelector('pre')!.textContent!;
    expect(preview.split('\n')).toHaveLength(40);
    expect(preview.startsWith('line0: 0\nline1: 1\n')).toBe(true);
    expect(screen.getByTestId('editor-open-full')).toBeTruthy();
  });

  it('gives the focus to the full editor button once the pasted-over textarea is gone', async () => {
    show('a: 1\n');
    const ta = textarea();
    const huge = 'k: v\n'.repeat(PLAIN_MAX / 5 + 10);
    paste(ta, huge, 0, 5);
    await nextTask();
    expect(screen.getByTestId('editor-too-long')).toBeTruthy();
    // Not in the paste's task: after the next frame is laid out.
    expect(document.activeElement).not.toBe(screen.getByTestId('editor-open-full'));
    await act(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    await nextTask();
    expect(document.activeElement).toBe(screen.getByTestId('editor-open-full'));
  });
});
