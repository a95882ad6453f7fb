// @vitest-environment jsdom
/**
 * The mode picker: shown only for a scenario with a mode switch, and harmless before any
 * scenario is loaded (an exercise opens with none: a selector giving a new list on every call
 * made React re-render until it gave up, and the page stayed blank).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { createI18n } from '../i18n/index.ts';
import { readScenario } from '../scenario/entry.ts';
import { createLabStore, type LabStore } from '../store/lab-store.ts';
import { LabProvider } from './context.tsx';
import { ModeSelect } from './ModeSelect.tsx';

function show(store: LabStore) {
  return render(
    <I18nextProvider i18n={createI18n('en')}>
      <LabProvider store={store}>
        <ModeSelect />
      </LabProvider>
    </I18nextProvider>,
  );
}

afterEach(cleanup);

describe('ModeSelect', () => {
  it('renders nothing, once, while no scenario is loaded', () => {
    const { container } = show(createLabStore());
    expect(container.innerHTML).toBe('');
  });

  it('renders nothing for a scenario without kubeProxyModes', () => {
    const store = createLabStore();
    store.actions.loadScenario(readScenario('s', 'title: { en: S, zh: S }\nmanifests: "a: 1"\n'));
    const { container } = show(store);
    expect(container.innerHTML).toBe('');
  });

  it('offers the scenario’s modes and switches the lab’s', () => {
    const store = createLabStore();
    store.actions.loadScenario(
      readScenario(
        's',
        'title: { en: S, zh: S }\nkubeProxyModes: [iptables, nftables]\nmanifests: "a: 1"\n',
      ),
    );
    show(store);
    const picker = screen.getByTestId('mode-picker') as HTMLSelectElement;
    expect([...picker.options].map((o) => o.textContent)).toEqual([
      'iptables mode',
      'nftables mode',
    ]);
    expect(picker.value).toBe('iptables');
    fireEvent.change(picker, { target: { value: 'nftables' } });
    expect(store.getState().doc.mode).toBe('nftables');
  });
});
