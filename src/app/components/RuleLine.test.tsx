// @vitest-environment jsdom
/**
 * One rule line, shared by the iptables rules and the nft table: both mark the rules this packet
 * used and the current step's the same way (the panel scrolls `.rule-line.current` into view).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { createI18n } from '../i18n/index.ts';
import { NftRules } from './NftRules.tsx';
import { RuleLine } from './RuleLine.tsx';
import { digestNft } from '../model/nft-view.ts';

const wrap = (node: React.ReactNode, lang: 'en' | 'zh' = 'en') =>
  render(<I18nextProvider i18n={createI18n(lang)}>{node}</I18nextProvider>);

afterEach(cleanup);

describe('RuleLine', () => {
  it('an iptables rule: its number, text, and the matched and current marks', () => {
    const { container } = wrap(
      <RuleLine line={12} matched current>
        -A KUBE-SERVICES -j KUBE-NODEPORTS
      </RuleLine>,
    );
    const el = container.querySelector('.rule-line');
    expect(el?.className).toBe('rule-line matched current');
    expect(el?.getAttribute('data-line')).toBe('12');
    expect(el?.querySelector('.ln')?.textContent).toBe('12');
    expect(el?.querySelector('code')?.textContent).toBe('-A KUBE-SERVICES -j KUBE-NODEPORTS');
    expect(el?.getAttribute('title')).toBeTruthy();
  });

  it('an unmatched line has no mark and no tooltip', () => {
    const { container } = wrap(
      <RuleLine line={3} matched={false} current={false}>
        x
      </RuleLine>,
    );
    const el = container.querySelector('.rule-line');
    expect(el?.className).toBe('rule-line');
    expect(el?.hasAttribute('title')).toBe(false);
  });

  it('the nft table draws its lines with it, the matched one marked', () => {
    const text =
      'add table ip kube-proxy\nadd chain ip kube-proxy services\nadd rule ip kube-proxy services drop';
    const { container } = wrap(
      <NftRules title="t" view={digestNft(text, new Set([3]))} matchedKey="3" current={3} />,
      'zh',
    );
    const lines = [...container.querySelectorAll('.rule-line')];
    expect(lines.map((l) => l.getAttribute('data-line'))).toEqual(['1', '2', '3']);
    expect(lines[2]?.className).toBe('rule-line matched current');
    expect(lines[2]?.querySelector('.nft-verb')?.textContent).toBe('add rule ip kube-proxy ');
  });
});
