/** The Monaco editor: schema completion and hover from monaco-yaml's worker, and a Tab that never traps. */
import { expect, test } from './fixtures/lab.fixture.ts';
import { MonacoPage } from './fixtures/monaco.ts';

test.use({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });

test('completion offers Kubernetes fields from the schema', async ({ lab }) => {
  await lab.open('');
  const ed = new MonacoPage(lab.page);
  await ed.ready();
  await ed.focusEnd();
  // A Service field that appears nowhere in the manifests: only the schema can propose it.
  // One input, so Monaco adds no indentation of its own (each line here starts at column 1).
  await ed.insert('\n---\nkind: Service\napiVersion: v1\nspec:\n  ');
  await lab.page.keyboard.type('sessionAff');
  const item = ed.suggestion('sessionAffinity');
  await expect(item).toBeVisible({ timeout: 15_000 });
  await lab.page.keyboard.press('Enter');
  await expect(ed.line('sessionAffinity:')).toBeVisible();
  await lab.shot('12-monaco-completion');
});

test('hover shows the schema documentation of a field', async ({ lab }) => {
  await lab.open('');
  const ed = new MonacoPage(lab.page);
  await ed.ready();
  await ed.focusEnd();
  await ed.token('type: LoadBalancer', 'type').hover();
  await expect(ed.hover()).toContainText('How the Service is exposed', { timeout: 15_000 });
  await lab.shot('13-monaco-hover');
});

test('Tab leaves the editor without editing; Ctrl+M switches Tab to indenting and back', async ({
  lab,
}) => {
  await lab.open('');
  const ed = new MonacoPage(lab.page);
  await ed.ready();
  await expect(ed.hint).toHaveText('Tab moves focus · Ctrl+M toggles Tab indenting');
  await ed.focusEnd();
  await expect.poll(() => ed.hasFocus()).toBe(true);
  await lab.page.keyboard.press('Tab');
  await expect.poll(() => ed.hasFocus()).toBe(false);
  await lab.page.keyboard.press('Shift+Tab');
  await expect.poll(() => ed.hasFocus()).toBe(true);
  await lab.page.keyboard.press('Shift+Tab');
  await expect.poll(() => ed.hasFocus()).toBe(false);
  await expect(lab.page.getByTestId('edited-badge')).toHaveCount(0);

  await ed.focusEnd();
  await lab.page.keyboard.press('Control+M');
  await expect(ed.hint).toHaveText('Tab indents · Ctrl+M makes Tab move focus again');
  await lab.page.keyboard.press('Tab');
  await expect.poll(() => ed.hasFocus()).toBe(true);
  await expect(lab.page.getByTestId('edited-badge')).toBeVisible();
  await lab.page.keyboard.press('Control+M');
  await expect(ed.hint).toHaveText('Tab moves focus · Ctrl+M toggles Tab indenting');
  await lab.page.keyboard.press('Tab');
  await expect.poll(() => ed.hasFocus()).toBe(false);
});
