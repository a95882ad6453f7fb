/**
 * The site as GitHub Pages publishes it: the production build served by a plain static server
 * from a nested subpath (no rewrites, nothing configured for the path). Deep links and share
 * links survive a reload; the workers and Monaco load from under the subpath.
 */
import { SUBPATH, expect, test } from './fixtures/site.fixture.ts';

test.use({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });

test('the lab loads from a nested subpath and simulates in its worker', async ({ site }) => {
  await site.open();
  await expect(site.verdict).toContainText('Answered by sshd on node cp-1');
  await expect(site.diagram.getByTestId('host-cp-1')).toBeVisible();
  await expect(site.page.getByTestId('status-ms')).toContainText('simulated in');
  expect(site.workerPaths()).toContainEqual(
    expect.stringMatching(new RegExp(`^${SUBPATH}assets/lab\\.worker-.*\\.js$`)),
  );
  // Nothing was asked for outside the subpath (the server would have answered 404).
  for (const r of site.site.requests) expect(r).not.toMatch(/^\.\.|^\//);
  // Every URL the page's head names (icons, manifest, social card) resolves under the subpath,
  // and so do the manifest's icons and the published schema.
  const head = await site.page.evaluate(() =>
    [...document.querySelectorAll('link[href], meta[content^="./"]')].map(
      (e) =>
        new URL(e.getAttribute('href') ?? e.getAttribute('content') ?? '', document.baseURI).href,
    ),
  );
  const manifest = (await (
    await site.page.request.get(`${site.site.url}manifest.webmanifest`)
  ).json()) as { icons: { src: string }[] };
  const urls = [
    ...head,
    ...manifest.icons.map((i) => `${site.site.url}${i.src}`),
    `${site.site.url}schema/scenario.schema.json`,
  ];
  expect(head.length).toBeGreaterThanOrEqual(6);
  for (const url of urls) {
    expect(url.startsWith(site.site.url), url).toBe(true);
    expect((await site.page.request.get(url)).status(), url).toBe(200);
  }
});

test('a deep link to a scenario survives a reload', async ({ site }) => {
  await site.open('scenario=nodeport-open-on-every-node&editor=plain');
  const picker = site.page.getByTestId('scenario-picker');
  await expect(picker).toHaveValue('nodeport-open-on-every-node');
  const verdict = await site.verdict.textContent();
  await site.page.reload();
  await expect(picker).toHaveValue('nodeport-open-on-every-node');
  await expect(site.verdict).toHaveText(verdict ?? '');
});

test('a share link reloads to the same step', async ({ site }) => {
  await site.open();
  await site.variant('lb-service');
  await expect(site.verdict).toContainText('pod nettest');
  await site.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).click();
  const at = await site.stepIndex();
  await site.page.getByTestId('share').click();
  expect(site.page.url()).toMatch(new RegExp(`${SUBPATH}\\?editor=plain#lab=`));
  await site.page.reload();
  await expect(site.verdict).toContainText('pod nettest');
  await expect(site.page.getByTestId('diagram-svg')).toHaveAttribute('data-step', String(at));
  await expect(site.packetDst).toHaveText(/^10\.244\./);
});

test.describe('Monaco', () => {
  test('the editor chunk loads from the subpath', async ({ site }) => {
    await site.open('');
    await expect(site.page.locator('.monaco-editor')).toBeVisible({ timeout: 15_000 });
    await expect(site.page.locator('.monaco-editor .view-lines')).toContainText('apiVersion');
    const assets = site.site.requests.filter((r) => r.startsWith('assets/'));
    expect(assets).toContainEqual(expect.stringMatching(/^assets\/MonacoEditor-.*\.js$/));
    expect(assets).toContainEqual(expect.stringMatching(/^assets\/MonacoEditor-.*\.css$/));
    // Whatever workers the page started (the lab's; Monaco's once issue 7 starts them) come
    // from under the subpath; pages-artifact.spec.ts checks no script names an absolute path.
    for (const w of site.workerPaths()) expect(w.startsWith(`${SUBPATH}assets/`), w).toBe(true);
  });
});

test('an embed registers no service worker and caches nothing', async ({ site }) => {
  await site.open('embed=1');
  await site.page.waitForLoadState('networkidle');
  expect(site.site.requests).not.toContain('sw.js');
  expect(
    await site.page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length),
  ).toBe(0);
});
