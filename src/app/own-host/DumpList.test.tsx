// @vitest-environment jsdom
/**
 * What the importers say, in the user's language: a dump's diagnostic, a note on a line it leaves
 * out and a field's problem are shown by their key in Chinese, and in English as the importer
 * wrote them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { createI18n, type Lang } from '../i18n/index.ts';
import type { OwnHostClient } from '../worker/own-host-client.ts';
import { runOwnHostView } from '../worker/own-host-run.ts';
import { OwnContext } from './context.tsx';
import { DumpList } from './DumpList.tsx';
import { HostFields } from './HostFields.tsx';
import { createOwnStore } from './own-store.ts';

/** The worker's answer, computed in this thread. */
const inThread: OwnHostClient = {
  run: (input) => Promise.resolve({ kind: 'result', result: runOwnHostView(input), ms: 0 }),
  dispose: () => {},
};

async function show(lang: Lang) {
  const store = createOwnStore(inThread, null, 0);
  render(
    <I18nextProvider i18n={createI18n(lang)}>
      <OwnContext.Provider value={store}>
        <DumpList />
        <HostFields />
      </OwnContext.Provider>
    </I18nextProvider>,
  );
  await act(async () => {
    store.actions.addDump('addr.json', '[{"addr_info":[]}]', 'auto');
    store.actions.addDump('route.json', '[{"dst":"10.0.0.0/8","table":"100"}]', 'auto');
    store.actions.setExtras({ addresses: 'zz' });
    await new Promise((r) => setTimeout(r, 10));
  });
  return store;
}

afterEach(cleanup);

describe('the importers’ messages on the page', () => {
  it('are in Chinese for a Chinese page', async () => {
    const store = await show('zh');
    expect(await screen.findByTestId('own-diagnostics')).toHaveProperty(
      'textContent',
      '第 1 行第 2 列 [0].ifname 网卡需要名字（ifname），例如 "eth0"',
    );
    expect(screen.getByText(/策略路由/).textContent).toBe(
      ' — 表 100：实验室不模拟策略路由（ip rule），只使用 main 表',
    );
    expect(screen.getByTestId('own-problem-addresses').textContent).toBe(
      "'zz' 不是带前缀长度的地址，例如 192.168.50.38/24",
    );
    store.dispose();
  });

  it('are the importer’s own English sentences for an English page', async () => {
    const store = await show('en');
    expect((await screen.findByTestId('own-diagnostics')).textContent).toContain(
      'an interface needs its name (ifname), e.g. "eth0"',
    );
    expect(screen.getByText(/policy routing/).textContent).toBe(
      ' — table 100: policy routing (ip rule) is not modelled; the lab uses the main table',
    );
    expect(screen.getByTestId('own-problem-addresses').textContent).toBe(
      "'zz' is not an address with a prefix length, e.g. 192.168.50.38/24",
    );
    store.dispose();
  });
});
