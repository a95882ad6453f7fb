// @vitest-environment jsdom
/**
 * Two labs on one page: each has its own store behind its own Context, so stepping or editing
 * in one never moves the other (the embed case: several iframes-free labs in one blog post).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { LabProvider } from './context.tsx';
import { TracePanel } from './TracePanel.tsx';
import { VerdictBanner } from './VerdictBanner.tsx';
import { createLabStore } from '../store/lab-store.ts';
import { createI18n } from '../i18n/index.ts';
import { podResult, sshdResult } from '../testing/lab-fixtures.ts';
import { readScenario } from '../scenario/entry.ts';

const entry = readScenario('s', 'title: { en: S, zh: S }\nmanifests: "a: 1"\n');

function mount(result: ReturnType<typeof podResult>, id: string) {
  const store = createLabStore();
  store.actions.loadScenario(entry);
  store.actions.receive({ kind: 'result', result, ms: 1 });
  return {
    store,
    ui: (
      <div data-testid={id}>
        <LabProvider store={store}>
          <VerdictBanner />
          <TracePanel />
        </LabProvider>
      </div>
    ),
  };
}

afterEach(cleanup);

describe('two labs on one page', () => {
  it('keep their own answers and their own step', async () => {
    const i18n = createI18n('en');
    const a = mount(podResult(), 'lab-a');
    const b = mount(sshdResult(), 'lab-b');
    render(
      <I18nextProvider i18n={i18n}>
        {a.ui}
        {b.ui}
      </I18nextProvider>,
    );
    const labA = within(screen.getByTestId('lab-a'));
    const labB = within(screen.getByTestId('lab-b'));
    expect(labA.getByTestId('verdict-text').textContent).toContain('pod nettest');
    expect(labB.getByTestId('verdict-text').textContent).toContain('sshd on node cp-1');

    fireEvent.click(await labA.findByTestId('trace-row-3'));
    expect(a.store.getState().doc.step).toBe(3);
    expect(b.store.getState().doc.step).toBe(0);
    expect(labA.getByTestId('trace-row-3').getAttribute('aria-current')).toBe('step');
    expect(labB.getByTestId('trace-row-0').getAttribute('aria-current')).toBe('step');
  });

  it('hides the rules that did not match, and shows them on request', async () => {
    const a = mount(podResult(), 'lab-a');
    render(<I18nextProvider i18n={createI18n('en')}>{a.ui}</I18nextProvider>);
    const misses =
      a.store.getState().result?.runs[0]?.events.filter((e) => e.type === 'miss').length ?? 0;
    expect(misses).toBeGreaterThan(0);
    expect(screen.queryAllByText('no match')).toHaveLength(0);
    fireEvent.click(screen.getByTestId('trace-matched-only'));
    expect(await screen.findAllByText('no match')).toHaveLength(misses);
  });
});
