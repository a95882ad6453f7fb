/**
 * A workshop room whose Wi-Fi fails: after the first visit the lab, its scenarios, its worker and
 * Monaco come from the service worker's precache. A new deployment never replaces the page
 * silently: it waits behind a Reload prompt.
 */
import { SCREENS } from './fixtures/lab.fixture.ts';
import { SUBPATH, expect, test } from './fixtures/site.fixture.ts';

test.use({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });

test.describe('offline', () => {
  test('after the first visit the lab works offline, workers and editor included', async ({
    site,
    context,
  }) => {
    await site.open();
    await site.serviceWorkerActive();
    await context.setOffline(true);
    await site.site.close(); // and the host is gone too: nothing can come from the network
    const served = site.site.requests.length;

    await site.page.reload();
    await expect(site.verdict).toContainText('Answered by sshd on node cp-1');
    expect(await site.page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    // A new simulation, in the worker, from the cache.
    await site.variant('lb-service');
    await expect(site.verdict).toContainText('pod nettest');
    await expect(site.page.getByTestId('status-ms')).toContainText('simulated in');
    expect(site.workerPaths()).toContainEqual(expect.stringMatching(/assets\/lab\.worker-/));

    // A deep link to another scenario, with Monaco this time.
    await site.page.goto(`${site.site.url}?scenario=nodeport-open-on-every-node`);
    await expect(site.page.getByTestId('scenario-picker')).toHaveValue(
      'nodeport-open-on-every-node',
    );
    await expect(site.page.locator('.monaco-editor .view-lines')).toContainText('apiVersion', {
      timeout: 15_000,
    });
    // Monaco's two workers are in the cache too, ready for when the editor starts them.
    const cached = await site.page.evaluate(async () => {
      const names = performance
        .getEntriesByType('resource')
        .map((r) => r.name)
        .filter((n) => /assets\/MonacoEditor-.*\.js$/.test(n));
      const workers = ['editor.worker', 'yaml.worker'];
      const keys = (await Promise.all((await caches.keys()).map((k) => caches.open(k))))
        .map((c) => c.keys())
        .map((p) => p.then((reqs) => reqs.map((r) => r.url)));
      const urls = (await Promise.all(keys)).flat();
      return { monaco: names.length, workers: workers.map((w) => urls.some((u) => u.includes(w))) };
    });
    expect(cached).toEqual({ monaco: 1, workers: [true, true] });
    expect(site.site.requests.length).toBe(served);
  });
});

test('a new deployment waits behind a Reload prompt, reachable by keyboard', async ({ site }) => {
  await site.open();
  await site.serviceWorkerActive();
  await site.page.reload();
  await expect(site.verdict).toHaveAttribute('data-outcome', /.+/);
  expect(await site.page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await expect(site.page.getByTestId('update-prompt')).toHaveCount(0);

  // Deploy: the next service worker differs from the running one, as after a new build.
  const sw = await (await site.page.request.get(`${site.site.url}sw.js`)).text();
  site.site.override('sw.js', `${sw}\n// next deployment\n`);
  await site.page.reload();
  const prompt = site.page.getByTestId('update-prompt');
  await expect(prompt).toBeVisible({ timeout: 15_000 });
  await expect(prompt).toContainText('A new version of Hookpath is available.');
  // The old version keeps running until the reader says so.
  await expect(site.verdict).toContainText('Answered by sshd');
  await site.page.screenshot({ path: `${SCREENS}/pages-update-prompt-1280.png` });

  await site.page.getByTestId('lang').selectOption('zh');
  await site.page.getByTestId('theme').click();
  await expect(prompt).toContainText('Hookpath 有新版本可用');
  await site.page.screenshot({ path: `${SCREENS}/pages-update-prompt-zh-dark-1280.png` });

  // Keyboard: Tab reaches Reload (the prompt comes first in the document), Enter activates it.
  const reload = site.page.getByTestId('update-reload');
  for (let i = 0; i < 80 && !(await reload.evaluate((b) => b === document.activeElement)); i++)
    await site.page.keyboard.press('Tab');
  await expect(reload).toBeFocused();
  await site.expectReloadBy(() => site.page.keyboard.press('Enter'));
  await expect(site.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(prompt).toHaveCount(0);
  const state = await site.page.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    return { waiting: reg?.waiting ?? null, scope: reg?.scope ?? '' };
  });
  expect(state.waiting).toBeNull();
  expect(new URL(state.scope).pathname).toBe(SUBPATH);
});

test('Later hides the prompt without touching the running version', async ({ site }) => {
  await site.open();
  await site.serviceWorkerActive();
  await site.page.reload(); // the second visit: the service worker controls the page
  const sw = await (await site.page.request.get(`${site.site.url}sw.js`)).text();
  site.site.override('sw.js', `${sw}\n// next deployment\n`);
  await site.page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
  const prompt = site.page.getByTestId('update-prompt');
  await expect(prompt).toBeVisible({ timeout: 15_000 });
  await site.page.getByTestId('update-later').click();
  await expect(prompt).toHaveCount(0);
  const waiting = await site.page.evaluate(
    async () => (await navigator.serviceWorker.getRegistration())?.waiting !== null,
  );
  expect(waiting).toBe(true);
  await expect(site.verdict).toContainText('Answered by sshd');
});

test('on the first visit (no worker in control yet) Reload simply reloads', async ({ site }) => {
  await site.open();
  await site.serviceWorkerActive();
  const sw = await (await site.page.request.get(`${site.site.url}sw.js`)).text();
  site.site.override('sw.js', `${sw}\n// next deployment\n`);
  await site.page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
  await expect(site.page.getByTestId('update-prompt')).toBeVisible({ timeout: 15_000 });
  await site.expectReloadBy(() => site.page.getByTestId('update-reload').click());
  await expect(site.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(site.page.getByTestId('update-prompt')).toHaveCount(0);
});

test('Chromium finds the site installable, manifest and icons included', async ({ site }) => {
  await site.open();
  await site.serviceWorkerActive();
  const cdp = await site.page.context().newCDPSession(site.page);
  const manifest = await cdp.send('Page.getAppManifest');
  expect(manifest.url).toBe(`${site.site.url}manifest.webmanifest`);
  expect(manifest.errors).toEqual([]);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  // Playwright's browser contexts are incognito profiles, where nothing can be installed.
  expect(installabilityErrors.map((e) => e.errorId)).toEqual(['in-incognito']);
});
