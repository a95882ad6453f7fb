/**
 * Issue 12's data-loss findings and issue 7 point 5, in the production build: a share link never
 * drops the user's edit, a full storage is said out loud, two tabs never silently overwrite each
 * other, and a saved edit with errors reloads onto its last good result.
 */
import type { Page } from '@playwright/test';
import { LB_SERVICE, LabPage, expect, test } from './fixtures/lab.fixture.ts';

test.use({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });

/** The saved edit is written after a short pause: wait until it is in localStorage. */
async function saved(page: Page, needle: string): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(
        (n) =>
          Object.keys(localStorage).some(
            (k) => k.startsWith('hookpath:v1:edit:') && (localStorage.getItem(k) ?? '').includes(n),
          ),
        needle,
      ),
    )
    .toBe(true);
}

/** A share link of the lab as it is now (the Share button writes it into the address bar). */
async function shareLink(lab: LabPage): Promise<string> {
  await lab.page.getByTestId('share').click();
  await expect.poll(() => lab.page.url()).toContain('#lab=');
  return lab.page.url();
}

test('a share link never deletes the saved edit: both are offered', async ({ lab, page }) => {
  await lab.open();
  const link = await shareLink(lab); // the scenario as written
  await page.goto('/?editor=plain');
  await lab.appendManifests(LB_SERVICE);
  await saved(page, 'lb-port22-test');
  // Open the link of the unedited scenario: it is shown, the edit is offered, not deleted.
  await page.goto('about:blank');
  await page.goto(link);
  await expect(page.getByTestId('notice-link')).toBeVisible();
  expect(await lab.manifests()).not.toContain('lb-port22-test');
  await lab.shot('edits-01-link-vs-edit');
  await page.reload();
  await expect(page.getByTestId('notice-link')).toBeVisible();
  await saved(page, 'lb-port22-test');
  await page.getByTestId('notice-open-mine').click();
  expect(await lab.manifests()).toContain('lb-port22-test');
  await expect(page.getByTestId('notice-link')).toHaveCount(0);
  expect(page.url()).not.toContain('#lab=');
  await expect(lab.verdict).toContainText('pod nettest', { timeout: 10_000 });
});

test('a link with its own edits replaces the saved edit only when the user says so', async ({
  lab,
  page,
}) => {
  await lab.open();
  await lab.appendManifests(LB_SERVICE.replace('lb-port22-test', 'from-the-link'));
  const link = await shareLink(lab);
  await lab.setManifests((await lab.manifests()).replace('from-the-link', 'my-own-edit'));
  await saved(page, 'my-own-edit');
  await page.goto('about:blank');
  await page.goto(link);
  await expect(page.getByTestId('notice-link')).toBeVisible();
  expect(await lab.manifests()).toContain('from-the-link');
  await saved(page, 'my-own-edit');
  await page.getByTestId('notice-keep-link').click();
  await saved(page, 'from-the-link');
  await page.goto('/?editor=plain');
  expect(await lab.manifests()).toContain('from-the-link');
});

test('a full storage is said out loud, with a way to download the edit', async ({ lab, page }) => {
  await page.addInitScript(() => {
    const real = Storage.prototype.setItem;
    Storage.prototype.setItem = function (k: string, v: string) {
      if (k.includes(':edit:') || k.includes(':aside:'))
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      real.call(this, k, v);
    };
  });
  await lab.open();
  await lab.appendManifests(LB_SERVICE);
  const notice = page.getByTestId('notice-storage');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('storage for the lab is full');
  await lab.shot('edits-02-storage-full');
  const download = page.waitForEvent('download');
  await page.getByTestId('notice-download').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.yaml$/);
  const text = await (await file.createReadStream()).toArray();
  expect(Buffer.concat(text).toString()).toContain('lb-port22-test');
});

test("two tabs: another tab's save is announced and never overwrites silently", async ({
  context,
}) => {
  const a = new LabPage(await context.newPage());
  const b = new LabPage(await context.newPage());
  await a.page.setViewportSize({ width: 1280, height: 720 });
  await b.page.setViewportSize({ width: 1280, height: 720 });
  await a.open();
  await b.open();
  await a.appendManifests(LB_SERVICE);
  await saved(a.page, 'lb-port22-test');
  // Tab B is told, and keeps its own text.
  await expect(b.page.getByTestId('notice-tab')).toBeVisible();
  expect(await b.manifests()).not.toContain('lb-port22-test');
  await b.shot('edits-03-other-tab');
  // B types on: A's text is kept aside in this browser, offered in both tabs.
  await b.appendManifests('# edited in tab B\n');
  await saved(b.page, 'edited in tab B');
  await expect(b.page.getByTestId('notice-aside')).toBeVisible();
  await expect(b.page.getByTestId('aside-item')).toHaveCount(1);
  await expect(a.page.getByTestId('notice-tab')).toBeVisible();
  await b.shot('edits-04-kept-aside');
  await b.page.getByTestId('aside-open').click();
  expect(await b.manifests()).toContain('lb-port22-test');
  await expect(b.page.getByTestId('aside-item')).toHaveCount(1);
});

test('a saved edit with a YAML error reloads onto its last good result (issue 7.5)', async ({
  lab,
  page,
}) => {
  await lab.open();
  await lab.appendManifests(LB_SERVICE);
  await expect(lab.verdict).toContainText('pod nettest', { timeout: 10_000 });
  await page.getByTestId('path-to').selectOption({ index: 1 });
  const chosen = await page.getByTestId('path-to').inputValue();
  await lab.setManifests(
    (await lab.manifests()).replace('  name: nettest\n', '  name: nettest\n spec: [\n'),
  );
  await expect(page.getByTestId('diagnostic').first()).toBeVisible({ timeout: 10_000 });
  await saved(page, 'spec: [');
  await page.reload();
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(page.getByTestId('diagnostic').first()).toBeVisible();
  await expect(page.getByTestId('stale-banner')).toBeVisible();
  await expect(page.getByTestId('status-ms')).toHaveCount(0);
  expect(await page.getByTestId('path-to').inputValue()).toBe(chosen);
  expect(await page.getByTestId('path-from').locator('option').count()).toBeGreaterThan(0);
  await expect(lab.diagram.getByTestId('host-cp-1')).toBeVisible();
  await lab.shot('edits-05-broken-edit-reloaded');
});

test('a damaged share link opens the lab normally, with a note', async ({ lab, page }) => {
  await lab.open();
  const link = await shareLink(lab);
  await page.goto('about:blank');
  await page.goto(link.slice(0, -8));
  await expect(page.getByTestId('notice-note')).toContainText('damaged');
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await lab.shot('edits-06-damaged-link');
});
