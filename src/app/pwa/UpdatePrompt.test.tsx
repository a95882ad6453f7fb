// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { createI18n } from '../i18n/index.ts';
import { UpdatePrompt } from './UpdatePrompt.tsx';
import { createUpdates } from './updates.ts';

afterEach(cleanup);

function mount(lang: 'en' | 'zh' = 'en') {
  const activate = vi.fn();
  const updates = createUpdates(activate);
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <UpdatePrompt updates={updates} />
    </I18nextProvider>,
  );
  return { updates, activate };
}

describe('update prompt', () => {
  it('stays hidden until a new version waits, then offers Reload', () => {
    const { updates, activate } = mount();
    expect(screen.queryByTestId('update-prompt')).toBeNull();
    act(() => updates.markWaiting());
    expect(screen.getByTestId('update-prompt').textContent).toContain(
      'A new version of Hookpath is available.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(activate).toHaveBeenCalledTimes(1);
  });

  it('announces itself through a live region that exists before it appears', () => {
    const { updates } = mount();
    const live = document.querySelector('[aria-live=polite]');
    expect(live).not.toBeNull();
    act(() => updates.markWaiting());
    expect(live?.contains(screen.getByTestId('update-prompt'))).toBe(true);
  });

  it('Later hides it for this page view without activating', () => {
    const { updates, activate } = mount();
    act(() => updates.markWaiting());
    fireEvent.click(screen.getByRole('button', { name: 'Later' }));
    expect(screen.queryByTestId('update-prompt')).toBeNull();
    expect(activate).not.toHaveBeenCalled();
  });

  it('speaks Chinese', () => {
    const { updates } = mount('zh');
    act(() => updates.markWaiting());
    expect(screen.getByRole('button', { name: '重新加载' })).toBeTruthy();
    expect(screen.getByTestId('update-prompt').textContent).toContain('Hookpath 有新版本可用');
  });
});
