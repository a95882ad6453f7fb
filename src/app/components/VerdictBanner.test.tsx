// @vitest-environment jsdom
/**
 * When the engine stopped following random branches at a limit, the banner says the shares are
 * lower bounds and how much was not computed, instead of a split that does not add up to 100%.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { runLab } from '../../cluster/lab.ts';
import { miniWith } from '../../cluster/testing/mini-scenario.ts';
import { createI18n } from '../i18n/index.ts';
import { partialNote } from '../model/verdict.ts';
import { readScenario } from '../scenario/entry.ts';
import { createLabStore } from '../store/lab-store.ts';
import { podResult } from '../testing/lab-fixtures.ts';
import { pastedVip22 } from '../testing/own-host-fixtures.ts';
import { labView, type LabView } from '../worker/view.ts';
import { LabProvider } from './context.tsx';
import { VerdictBanner } from './VerdictBanner.tsx';

/** Ten coin flips in cp-1's raw table: 1,024 branches, twice the limit. */
function partialResult(): LabView {
  const flips = Array.from(
    { length: 10 },
    () => '        -A PREROUTING -m statistic --mode random --probability 0.5',
  ).join('\n');
  return labView(
    runLab({ scenario: miniWith('        -A PREROUTING -p tcp --dport 22 -j ACCEPT', flips) }),
  );
}

function show(result: LabView, lang: 'en' | 'zh' = 'en') {
  const store = createLabStore();
  store.actions.loadScenario(readScenario('s', 'title: { en: S, zh: S }\nmanifests: "a: 1"\n'));
  store.actions.receive({ kind: 'result', result, ms: 1 });
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <LabProvider store={store}>
        <VerdictBanner />
      </LabProvider>
    </I18nextProvider>,
  );
}

afterEach(cleanup);

describe('verdict of a partial enumeration', () => {
  const result = partialResult();

  it('the model gives what was covered and what was not computed', () => {
    expect(partialNote(result)).toEqual({
      note: { key: 'verdict.partial', params: { count: 252, covered: '50', rest: '50' } },
      limit: { key: 'verdict.limit.branches', params: { count: 512 } },
    });
    expect(partialNote(podResult())).toBeNull();
  });

  it('the banner reads "at least" and names what is missing', () => {
    show(result);
    expect(screen.getByTestId('verdict-partial').textContent).toBe(
      'Not every branch was computed: the lab stopped at its limit of 512 branches. The outcomes shown cover 50% of the probability, so each share is a lower bound; at least 252 more branches (50% of the probability) were not computed.',
    );
    // Each chip is one branch, whose share is exact; 12 are shown, the rest on request.
    expect(screen.getByTestId('run-0').textContent).toMatch(/^0\.1% answered by /);
    expect(screen.getAllByRole('button', { pressed: false }).length).toBe(11);
    expect(screen.queryByTestId('run-12')).toBeNull();
    const more = screen.getByTestId('runs-toggle');
    expect(more.textContent).toBe('Show 500 more branches');
    fireEvent.click(more);
    expect(screen.getByTestId('run-511')).toBeTruthy();
    expect(more.getAttribute('aria-expanded')).toBe('true');
  });

  it('in Chinese too', () => {
    show(result, 'zh');
    expect(screen.getByTestId('verdict-partial').textContent).toContain('至少还有 252 个分支');
    expect(screen.getByTestId('runs-toggle').textContent).toBe('再显示 500 个分支');
  });

  it('a complete enumeration has no such note', () => {
    show(podResult());
    expect(screen.queryByTestId('verdict-partial')).toBeNull();
  });
});

describe('a packet that left the modelled network', () => {
  /** VIP:22 pasted on cp-1 alone: DNAT to the Service pod, which sits on another host. */
  const forwarded = () =>
    labView(pastedVip22(['iptables-save.txt', 'ip-addr.json', 'ip-route.json']));

  it('is neither a success nor a failure: the info tone, an arrow, the next hop named', () => {
    show(forwarded());
    const v = screen.getByTestId('verdict');
    expect(v.dataset.outcome).toBe('forwarded');
    expect(v.className).toContain('verdict-info');
    expect(v.className).not.toContain('verdict-bad');
    expect(v.querySelector('.verdict-icon')?.textContent).toBe('→');
    expect(screen.getByTestId('verdict-text').textContent).toMatch(
      /^The packet left \S+ through \S+ towards \S+, outside the modelled network\.$/,
    );
  });
});
