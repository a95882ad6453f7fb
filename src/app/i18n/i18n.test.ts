import { describe, expect, it } from 'vitest';
import { EXPLAIN_EN } from '../../engine/explain.ts';
import { EXPLAIN_ZH } from './explain-zh.ts';
import { REPLAY_ERRORS_EN } from '../../engine/replay-errors.ts';
import { REPLAY_ERRORS_ZH } from './replay-errors-zh.ts';
import { OWN_HOST_ERRORS_EN } from '../../cluster/own-host/messages.ts';
import { OWN_HOST_ERRORS_ZH } from './own-host-errors-zh.ts';
import { UI_EN } from './en.ts';
import { UI_ZH } from './zh.ts';
import { browserLang, createI18n, initialLang } from './index.ts';

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('translations', () => {
  it('every engine explanation key has Chinese text with the same parameters', () => {
    for (const [k, en] of Object.entries(EXPLAIN_EN)) {
      const zh = EXPLAIN_ZH[k];
      expect(zh, k).toBeTypeOf('string');
      expect(params(zh ?? ''), k).toEqual(params(en));
    }
  });

  it('every trace-reader error has Chinese text with the same parameters', () => {
    for (const [k, en] of Object.entries(REPLAY_ERRORS_EN))
      expect(params(REPLAY_ERRORS_ZH[k as keyof typeof REPLAY_ERRORS_EN]), k).toEqual(params(en));
    const i = createI18n('zh');
    expect(i.t('replayErrors:nft.names-verdict', { kind: 'policy' })).toBe(
      'policy 行要写出它的判决："policy accept"',
    );
  });

  it('every "your host" importer message has Chinese text with the same parameters', () => {
    const en = Object.keys(OWN_HOST_ERRORS_EN);
    expect(Object.keys(OWN_HOST_ERRORS_ZH).sort()).toEqual([...en].sort());
    for (const [k, text] of Object.entries(OWN_HOST_ERRORS_EN)) {
      const zh = OWN_HOST_ERRORS_ZH[k as keyof typeof OWN_HOST_ERRORS_EN];
      expect(zh, k).toBeTypeOf('string');
      expect(params(zh ?? ''), k).toEqual(params(text));
    }
    const i = createI18n('zh');
    expect(i.t('ownHostErrors:addr.prefixlen', { max: 32 })).toBe('前缀长度应是 0..32 之间的整数');
    void i.changeLanguage('en');
    expect(i.t('ownHostErrors:addr.prefixlen', { max: 128 })).toBe(
      'a prefix length is a whole number 0..128',
    );
  });

  it('every UI string has the same parameters in both languages', () => {
    for (const [k, en] of Object.entries(UI_EN))
      expect(params(UI_ZH[k as keyof typeof UI_EN]), k).toEqual(params(en));
  });

  it('interpolates {param} templates and plurals', () => {
    const i = createI18n('en');
    expect(
      i.t('explain:rule.dnat', { table: 'nat', chain: 'KUBE-SEP-X', dst: '10.244.1.5', dport: 80 }),
    ).toContain('10.244.1.5:80');
    expect(i.t('editor.problems', { count: 2 })).toBe('2 problems');
    void i.changeLanguage('zh');
    expect(i.t('editor.problems', { count: 2 })).toBe('2 个问题');
  });

  it('starts in ?lang=, else the saved language, else the browser language', () => {
    expect(initialLang('?lang=zh', 'en', ['en-US'])).toBe('zh');
    expect(initialLang('?embed&lang=en', 'zh', ['zh-CN'])).toBe('en');
    expect(initialLang('?lang=fr', 'zh', ['en-US'])).toBe('zh');
    expect(initialLang('', null, ['zh-TW'])).toBe('zh');
  });

  it('defaults to the browser language', () => {
    expect(browserLang(['zh-CN', 'en'])).toBe('zh');
    expect(browserLang(['fr-FR', 'en-US'])).toBe('en');
    expect(browserLang(['de'])).toBe('en');
  });
});
