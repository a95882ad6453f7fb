// @vitest-environment jsdom
/**
 * The path picker of a big cluster: the page holds only the options it shows; what the user
 * types in the filter is searched where the choices are (the worker; here a server in this
 * thread, as the in-thread fallback has it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import type { SenderChoice } from '../../cluster/types.ts';
import { createI18n } from '../i18n/index.ts';
import { readScenario } from '../scenario/entry.ts';
import { createLabStore } from '../store/lab-store.ts';
import { sshdWorkerView } from '../testing/lab-fixtures.ts';
import { createChoiceServer } from '../worker/choice-server.ts';
import { PICKER_MAX, packChoices } from '../worker/choices.ts';
import { LabProvider } from './context.tsx';
import { PathPicker } from './PathPicker.tsx';

function show(lang: 'en' | 'zh' = 'en') {
  const server = createChoiceServer();
  const base = sshdWorkerView();
  const senders: SenderChoice[] = Array.from({ length: 5000 }, (_, i) => ({
    id: `pod/app-${i}`,
    kind: 'pod',
    label: `app-${i}`,
    host: 'worker-1',
  }));
  const choices = packChoices({ senders, destinations: [] });
  const queries: string[] = [];
  const store = createLabStore({
    findChoices: async (q) => (queries.push(q.filter), server.answer(q)),
  });
  store.actions.loadScenario(readScenario('s', 'title: { en: S, zh: S }\nmanifests: "a: 1"\n'));
  const result = server.forPage({ ...base, choices });
  store.actions.receive({ kind: 'result', result, ms: 1 });
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <LabProvider store={store}>
        <PathPicker />
      </LabProvider>
    </I18nextProvider>,
  );
  return { queries };
}

const senderIds = () =>
  [...(screen.getByTestId('path-from') as HTMLSelectElement).options]
    .filter((o) => !o.disabled)
    .map((o) => o.value);

afterEach(cleanup);

describe('the path picker of 5,000 senders', () => {
  it('lists the first ones, says how many more, and finds the rest through the filter', async () => {
    const { queries } = show();
    // The run's own sender (not among these) first, then the first PICKER_MAX.
    await waitFor(() => expect(senderIds()).toHaveLength(PICKER_MAX + 1));
    expect(senderIds()[1]).toBe('pod/app-0');
    expect(screen.getByTestId('path-from').textContent).toContain(
      `${5000 - PICKER_MAX} more: type in the filter to find them`,
    );
    fireEvent.change(screen.getByTestId('path-filter'), { target: { value: 'app-4999' } });
    await waitFor(() => expect(senderIds()).toEqual(['client/client', 'pod/app-4999']));
    expect(queries).toEqual(['app-4999']);
    expect(screen.getByTestId('path-from').textContent).not.toContain('more');
    // Cleared: the first ones again, with nothing asked.
    fireEvent.change(screen.getByTestId('path-filter'), { target: { value: '' } });
    await waitFor(() => expect(senderIds()).toHaveLength(PICKER_MAX + 1));
    expect(queries).toEqual(['app-4999']);
  });

  it('in Chinese too', async () => {
    show('zh');
    await waitFor(() =>
      expect(screen.getByTestId('path-from').textContent).toContain(`还有 ${5000 - PICKER_MAX} 项`),
    );
    fireEvent.change(screen.getByTestId('path-filter'), { target: { value: 'APP-1234' } });
    await waitFor(() => expect(senderIds()).toEqual(['client/client', 'pod/app-1234']));
  });
});
