/**
 * The Embed dialog of the full lab: options, a live preview at 400/700/900 px, the snippet copied
 * with a confirmation; by keyboard, in both languages, axe-clean. The copied snippet, pasted into
 * a post on another origin, is an embed at the same place that embed.js sizes.
 */
import { SCREENS, expect, test } from './fixtures/embed.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({
  viewport: { width: 1280, height: 720 },
  locale: 'en-US',
  permissions: ['clipboard-read', 'clipboard-write'],
});

const VIP = 'scenario=vip22-sshd-or-service';

test('options, preview and snippet; the copied snippet works in a post', async ({ embeds }) => {
  const { page, site } = embeds;
  await page.goto(`${site.url}?editor=plain&${VIP}&variant=lb-service&step=5`);
  await expect(page.getByTestId('step-count')).toHaveAttribute('data-n', '5');
  // By keyboard: the button opens the dialog, the focus goes into it.
  await page.getByTestId('embed-button').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('embed-dialog');
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  await expect(dialog.getByTestId('embed-step')).toHaveValue('current');
  await expect(dialog.getByTestId('embed-step').locator('option:checked')).toHaveText(
    'This step (5)',
  );
  const snippet = dialog.getByTestId('embed-snippet');
  await expect(snippet).toHaveValue(
    new RegExp(
      `^<iframe data-hookpath src="${site.url}\\?scenario=vip22-sshd-or-service&amp;variant=lb-service&amp;step=5&amp;embed=1&amp;lang=en"`,
    ),
  );
  await expect(snippet).toHaveValue(new RegExp(`<script src="${site.url}embed.js" async>`));

  // The preview is the embed itself, sized from its own messages.
  const frame = dialog.getByTestId('embed-preview');
  const preview = page.frameLocator('[data-testid=embed-preview]');
  await expect(preview.getByTestId('step-count')).toHaveAttribute('data-n', '5');
  await expect(dialog.getByTestId('embed-preview-height')).toBeVisible();
  const h700 = Number(
    (await frame.evaluate((f: HTMLIFrameElement) => f.style.height)).replace('px', ''),
  );
  await expect(snippet).toHaveValue(new RegExp(`height="${h700}"`));
  await dialog.getByTestId('embed-width-400').check();
  await expect(frame).toHaveCSS('width', '400px');
  await expect
    .poll(async () =>
      Number((await frame.evaluate((f: HTMLIFrameElement) => f.style.height)).replace('px', '')),
    )
    .not.toBe(h700);

  // Options change the address, and the preview follows.
  await dialog.getByTestId('embed-verdict-after').check();
  await dialog.getByTestId('embed-theme').selectOption('dark');
  await expect(snippet).toHaveValue(/&amp;theme=dark&amp;lang=en&amp;verdict=after"/);
  await expect(preview.getByTestId('verdict-later')).toBeVisible();
  await expect(preview.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expectAxeClean(page, 'the Embed dialog, preview in dark');

  // Copy: the clipboard has the snippet, the dialog says so.
  await dialog.getByTestId('embed-copy').click();
  await expect(dialog.getByTestId('embed-copied')).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await snippet.inputValue());
  await dialog.getByTestId('embed-with-script').uncheck();
  await expect(snippet).not.toHaveValue(/<script/);

  // Escape closes it; the focus is back on the button.
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('embed-button')).toBeFocused();

  // Pasted into a post on another origin: embed.js sizes it, and it opens where it was made.
  embeds.host.override(
    'index.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Pasted</title><link rel="icon" href="data:,"></head><body><main style="width:700px">
<h1>Pasted</h1>${copied}</main></body></html>`,
  );
  await page.goto(embeds.host.url);
  const pasted = page.locator('iframe[data-hookpath]');
  await expect(pasted).toHaveAttribute('data-hookpath-height', /^\d+$/);
  const inner = page.frameLocator('iframe[data-hookpath]');
  await expect(inner.getByTestId('step-count')).toHaveAttribute('data-n', '5');
  await expect(inner.getByTestId('verdict-later')).toBeVisible();
  await expect(inner.locator('html')).toHaveAttribute('data-theme', 'dark');
});

for (const [lang, theme] of [
  ['en', 'light'],
  ['zh', 'dark'],
] as const)
  test(`the dialog at 1280x720, ${lang}, ${theme}`, async ({ embeds }) => {
    const { page, site } = embeds;
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(`${site.url}?editor=plain&${VIP}&lang=${lang}&theme=${theme}`);
    await page.getByTestId('embed-button').click();
    const dialog = page.getByTestId('embed-dialog');
    await expect(dialog.getByRole('heading', { level: 2 })).toHaveText(
      lang === 'zh' ? '嵌入这个实验室' : 'Embed this lab',
    );
    const preview = page.frameLocator('[data-testid=embed-preview]');
    await expect(preview.getByTestId('diagram-svg')).toHaveAttribute('data-host', /.+/);
    await expect(preview.locator('html')).toHaveAttribute('lang', lang === 'zh' ? 'zh-CN' : 'en');
    // Everything the author needs is on the first screen: options, snippet, Copy, the preview.
    for (const id of ['embed-options', 'embed-snippet', 'embed-copy', 'embed-preview'])
      await expect(dialog.getByTestId(id)).toBeInViewport();
    await expectAxeClean(page, `the Embed dialog, ${lang}, ${theme}`);
    await page.screenshot({ path: `${SCREENS}/embed-dialog-${lang}-${theme}.png` });
    // Tab stays inside the modal dialog.
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    }
  });
