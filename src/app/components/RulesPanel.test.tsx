// @vitest-environment jsdom
/**
 * Whose rules the panel shows: on a scenario node, kube-proxy's nftables table; in Your host, the
 * ruleset the user pasted — the heading must not claim kube-proxy wrote it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { runLab } from '../../cluster/lab.ts';
import { pastedVip22 } from '../testing/own-host-fixtures.ts';
import type { LabResult } from '../../cluster/types.ts';
import { LabProvider } from './context.tsx';
import { RulesPanel } from './RulesPanel.tsx';
import { createLabStore } from '../store/lab-store.ts';
import { createI18n } from '../i18n/index.ts';
import { readScenario } from '../scenario/entry.ts';
import { labView } from '../worker/view.ts';

const ROOT = join(import.meta.dirname, '../../..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const VIP22 = read('scenarios/vip22-sshd-or-service.yaml');

function show(result: LabResult, source: 'scenario' | 'pasted', lang: 'en' | 'zh' = 'en') {
  const store = createLabStore();
  store.actions.loadScenario(readScenario('vip22-sshd-or-service', VIP22));
  store.actions.receive({ kind: 'result', result: labView(result), ms: 1 });
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <LabProvider store={store}>
        <RulesPanel source={source} />
      </LabProvider>
    </I18nextProvider>,
  );
}

const pasted = () =>
  pastedVip22(['nft-ruleset.txt', 'iptables-save.txt', 'ip-addr.json', 'ip-route.json']);

afterEach(cleanup);

describe('rules panel headings', () => {
  it('a scenario node in nftables mode: kube-proxy’s table', () => {
    show(runLab({ scenario: VIP22, mode: 'nftables' }), 'scenario');
    expect(screen.getByTestId('rules-nft').getAttribute('aria-label')).toBe(
      'kube-proxy’s nftables table (nft -f), nftables mode',
    );
  });

  it('Your host: the pasted ruleset and iptables rules, named as the user’s', () => {
    show(pasted(), 'pasted');
    const nft = screen.getByTestId('rules-nft');
    expect(nft.getAttribute('aria-label')).toBe(
      'Your nftables ruleset (nft list ruleset, as pasted)',
    );
    expect(nft.textContent).not.toContain('kube-proxy’s nftables table');
    expect(screen.getByRole('heading', { level: 3 }).textContent).toBe(
      'Your iptables rules (iptables-save, as pasted)',
    );
  });

  it('in Chinese too', () => {
    show(pasted(), 'pasted', 'zh');
    expect(screen.getByTestId('rules-nft').getAttribute('aria-label')).toBe(
      '你粘贴的 nftables 规则集（nft list ruleset）',
    );
  });
});
