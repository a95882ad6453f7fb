// @vitest-environment jsdom
/**
 * The rules panel of an IPVS-mode node shows, under its iptables rules, ipvsadm -Ln, the
 * kube-ipvs0 addresses and the ipsets, marked as modelled and deprecated; an iptables-mode node
 * shows none of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { runLab } from '../../cluster/lab.ts';
import { LabProvider } from './context.tsx';
import { RulesPanel } from './RulesPanel.tsx';
import { createLabStore } from '../store/lab-store.ts';
import { createI18n } from '../i18n/index.ts';
import { readScenario } from '../scenario/entry.ts';
import { labView } from '../worker/view.ts';

const FILE = join(import.meta.dirname, '../../../scenarios/ipvs-local-lb-from-inside.yaml');
const text = readFileSync(FILE, 'utf8');

function show(variant: string, lang: 'en' | 'zh' = 'en') {
  const store = createLabStore();
  store.actions.loadScenario(readScenario('ipvs-local-lb-from-inside', text));
  const result = labView(
    runLab({ scenario: text, variant, path: { from: 'client/office-pc', to: 'lb/nginx:80' } }),
  );
  store.actions.receive({ kind: 'result', result, ms: 1 });
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <LabProvider store={store}>
        <RulesPanel />
      </LabProvider>
    </I18nextProvider>,
  );
}

afterEach(cleanup);

describe('rules panel of an IPVS-mode node', () => {
  it('shows ipvsadm -Ln with the real servers, marked as modelled and deprecated', () => {
    show('ipvs');
    const box = screen.getByTestId('rules-ipvs');
    expect(box.textContent).toContain('not checked on a kernel');
    expect(box.textContent).toContain('KEP-5495');
    expect(screen.getByTestId('ipvsadm').textContent).toMatch(
      /TCP {2}10\.34\.251\.210:80 rr\n {2}-> 10\.244\.1\.10:80/,
    );
    expect(box.textContent).toContain('inet 10.96.0.80/32 scope global kube-ipvs0');
    expect(box.textContent).toContain('add KUBE-LOAD-BALANCER-LOCAL 10.34.251.210,tcp:80');
  });

  it('speaks Chinese', () => {
    show('ipvs', 'zh');
    expect(screen.getByTestId('rules-ipvs').textContent).toContain('没有在真实内核上验证');
  });

  it('is absent in iptables mode', () => {
    show('iptables');
    expect(screen.queryByTestId('rules-ipvs')).toBeNull();
  });
});
