/**
 * axe on the main lab: zero violations of any impact, in both themes (set by `?theme=`), both
 * languages (`?lang=`), with Monaco and with the plain editor, at the states a reader goes
 * through: the start, a DNAT step, the end of an answered probe, a drop, the help open, an edit
 * with a YAML error.
 */
import { expect, test, type LabPage } from './fixtures/lab.fixture.ts';
import { expectAxeClean, type Accepted } from './fixtures/axe.ts';
import { MonacoPage } from './fixtures/monaco.ts';

// The token jumps instead of gliding, so axe never reads colours under a moving label.
test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce' });

async function walk(lab: LabPage, label: string): Promise<void> {
  const page = lab.page;
  await expectAxeClean(page, `${label}: start`);

  await lab.variant('lb-service');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'answered');
  await page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).first().click();
  await expect(lab.packetDst).toHaveText(/^10\.244\./);
  await expectAxeClean(page, `${label}: DNAT step`);

  await page.getByTestId('ctl-end').click();
  await expectAxeClean(page, `${label}: end of the answered probe`);

  await lab.variant('etp-local');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'timeout');
  await page.getByTestId('ctl-end').click();
  await expect(lab.diagram.getByTestId('end-mark')).toBeVisible();
  await expectAxeClean(page, `${label}: a drop, at the end`);

  await page.getByTestId('help-button').click();
  await expect(page.getByTestId('help-popover')).toBeVisible();
  await expectAxeClean(page, `${label}: help open`);
  await page.keyboard.press('Escape');

  // An edit with a YAML error: edited badge, stale banner, problem list.
  await lab.setManifests(`${await lab.manifests()}\nspec: [\n`);
  await expect(page.getByTestId('stale-banner')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('edited-badge')).toBeVisible();
  await expectAxeClean(page, `${label}: edited, with a YAML error`);
}

async function expectTheme(lab: LabPage, theme: string, lang: string): Promise<void> {
  await expect(lab.page.locator('html')).toHaveAttribute('data-theme', theme);
  await expect(lab.page.locator('html')).toHaveAttribute('lang', lang === 'zh' ? 'zh-CN' : 'en');
}

// Every state with the plain editor; the states differ from Monaco's only in the editor.
for (const theme of ['light', 'dark'] as const)
  for (const lang of ['en', 'zh'] as const)
    test(`axe: ${theme} theme, ${lang}, plain editor, six states`, async ({ lab }) => {
      test.setTimeout(120_000);
      await lab.open(`theme=${theme}&lang=${lang}&editor=plain`);
      await expectTheme(lab, theme, lang);
      await walk(lab, `${theme}/${lang}/plain`);
    });

/**
 * On Windows (the user agent Playwright's desktop Chrome profile reports) Monaco gives completion
 * rows role=listitem inside its role=listbox, on purpose: NVDA and JAWS then read each row's
 * aria-label (microsoft/vscode#244761). Other platforms get role=option and no finding.
 */
const SUGGEST_ROWS: Accepted[] = ['aria-required-children', 'aria-required-parent'].map((rule) => ({
  rule,
  within: '.suggest-widget',
  why: 'Monaco suggest rows are listitems on Windows for screen readers, microsoft/vscode#244761',
}));

// Monaco's own DOM: at rest, with the completion list open, and with an error marker.
for (const [theme, lang] of [
  ['light', 'en'],
  ['dark', 'zh'],
] as const)
  test(`axe: ${theme} theme, ${lang}, Monaco editor`, async ({ lab }) => {
    test.setTimeout(120_000);
    await lab.open(`theme=${theme}&lang=${lang}`);
    await expectTheme(lab, theme, lang);
    const ed = new MonacoPage(lab.page);
    await ed.ready();
    await expectAxeClean(lab.page, `${theme}/${lang}/Monaco: start`);
    await ed.focusEnd();
    await ed.insert('\n---\nkind: Service\napiVersion: v1\nspec:\n  ');
    await lab.page.keyboard.type('sessionAff');
    await expect(ed.suggestion('sessionAffinity')).toBeVisible({ timeout: 15_000 });
    await expectAxeClean(lab.page, `${theme}/${lang}/Monaco: completion list open`, SUGGEST_ROWS);
    await lab.page.keyboard.press('Escape');
    await expect(lab.page.getByTestId('stale-banner')).toBeVisible({ timeout: 10_000 });
    await expect(lab.page.getByTestId('edited-badge')).toBeVisible();
    await expectAxeClean(lab.page, `${theme}/${lang}/Monaco: edited, with a YAML error`);
  });
for (const scheme of ['light', 'dark'] as const)
  test(`?theme=auto follows a ${scheme} system, axe clean`, async ({ lab }) => {
    await lab.page.emulateMedia({ colorScheme: scheme });
    // A saved choice of the other theme: auto still follows the system.
    await lab.page.goto('/?editor=plain');
    await lab.page.evaluate(
      (other) => localStorage.setItem('hookpath:v1:pref:theme', other),
      scheme === 'dark' ? 'light' : 'dark',
    );
    await lab.open('theme=auto&editor=plain');
    await expect(lab.page.locator('html')).toHaveAttribute('data-theme', scheme);
    await expectAxeClean(lab.page, `theme=auto, system ${scheme}`);
    const other = scheme === 'dark' ? 'light' : 'dark';
    await lab.page.emulateMedia({ colorScheme: other });
    await expect(lab.page.locator('html')).toHaveAttribute('data-theme', other);
  });
