/**
 * The lab by keyboard alone: every control is reached by Tab and Shift+Tab with a visible focus
 * ring (both themes); a journey chooses a scenario and a path, plays, steps, reads the trace,
 * opens and closes the help, and goes in and out of the editor. Plus reduced motion and the
 * polite announcement of each step.
 */
import type { Page } from '@playwright/test';
import { expect, test, type LabPage } from './fixtures/lab.fixture.ts';
import { focusStop, ringShows, tabTo, type FocusStop } from './fixtures/keyboard.ts';
import { MonacoPage } from './fixtures/monaco.ts';

test.use({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });

const CONTROLS =
  'a[href], button:not(:disabled), select:not(:disabled), input:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])';

/** Marks every visible control outside Monaco with data-kbd (Monaco counts as one stop). */
async function markControls(lab: LabPage): Promise<string[]> {
  return lab.page.evaluate((sel) => {
    const out: string[] = [];
    document.querySelectorAll<HTMLElement>(sel).forEach((el, i) => {
      const r = el.getBoundingClientRect();
      if (el.closest('.monaco-editor') || r.width === 0 || r.height === 0) return;
      const name = `${el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? el.tagName}#${i}`;
      el.dataset.kbd = name;
      out.push(name);
    });
    return out;
  }, CONTROLS);
}

/**
 * Tabs through the whole page once, until the focus leaves the page or comes back round to the
 * first stop; returns each stop (data-kbd name or 'editor').
 */
async function walkAll(
  lab: LabPage,
  key: 'Tab' | 'Shift+Tab',
): Promise<(FocusStop & { shown: number })[]> {
  const stops: (FocusStop & { shown: number })[] = [];
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < 200; i++) {
    await lab.page.keyboard.press(key);
    const at = await focusStop(lab.page);
    if (!at) break; // past the last control: the browser's own UI
    const kbd = await lab.page.evaluate(
      () => (document.activeElement as HTMLElement | null)?.dataset.kbd ?? null,
    );
    const id = at.inEditor ? 'editor' : (kbd ?? `unmarked ${at.id}`);
    if (id === stops[0]?.id) break;
    const shown = at.ring ? await ringShows(lab.page, at.ring) : 0;
    stops.push({ ...at, id, shown });
  }
  return stops;
}

for (const theme of ['light', 'dark'] as const)
  test(`Tab and Shift+Tab reach every control with a visible ring (${theme})`, async ({ lab }) => {
    test.setTimeout(90_000);
    await lab.open(`theme=${theme}`);
    await new MonacoPage(lab.page).ready();
    const controls = await markControls(lab);
    expect(controls.length).toBeGreaterThan(15);

    for (const key of ['Tab', 'Shift+Tab'] as const) {
      const stops = await walkAll(lab, key);
      const names = stops.map((s) => s.id);
      const missing = controls.filter((c) => !names.includes(c));
      expect(missing, `${key} never reached these controls`).toEqual([]);
      expect(names, `${key} passes through the editor`).toContain('editor');
      // The editor is one stop: the next key press leaves it (no trap, no indentation).
      const inEditor = names.filter((n) => n === 'editor').length;
      expect(inEditor, `${key} stays in the editor for one stop`).toBe(1);
      const blind = stops
        .filter((s) => s.shown < 0.8)
        .map((s) => `${s.id} (${Math.round(s.shown * 100)}% of the ring on screen)`);
      expect(blind, `${key}: focus without a visible ring`).toEqual([]);
    }
    await expect(lab.page.getByTestId('edited-badge')).toHaveCount(0);
  });

/** Moves a focused picker by one option with an arrow key; returns the value it now has. */
async function arrowTo(page: Page, testid: string, key: 'ArrowDown' | 'ArrowUp'): Promise<string> {
  const picker = page.getByTestId(testid);
  const before = await picker.inputValue();
  await page.keyboard.press(key);
  await expect(picker).not.toHaveValue(before);
  return picker.inputValue();
}

test('a keyboard-only journey: scenario, path, play, step, trace, help, editor', async ({
  lab,
}) => {
  test.setTimeout(90_000);
  const page = lab.page;
  await lab.open('');
  const ed = new MonacoPage(page);
  await ed.ready();

  // Scenario and variant with the arrow keys on the pickers (another scenario, then back).
  await tabTo(page, 'scenario-picker');
  const firstScenario = await page.getByTestId('scenario-picker').inputValue();
  await arrowTo(page, 'scenario-picker', 'ArrowDown');
  await arrowTo(page, 'scenario-picker', 'ArrowUp');
  await expect(page.getByTestId('scenario-picker')).toHaveValue(firstScenario);
  await tabTo(page, 'variant-picker');
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('variant-picker')).toHaveValue('lb-service');
  await expect(lab.verdict).toContainText('pod nettest');
  await tabTo(page, 'scenario-more');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('scenario-more')).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('scenario-description')).toBeVisible();

  // Into the editor and out again, without editing.
  await tabTo(page, 'editor-monaco');
  expect(await ed.hasFocus()).toBe(true);
  await page.keyboard.press('Tab');
  expect(await ed.hasFocus()).toBe(false);
  await expect(page.getByTestId('edited-badge')).toHaveCount(0);

  // The path: another destination, kept; the lab answers for it.
  await tabTo(page, 'path-to');
  const to = await arrowTo(page, 'path-to', 'ArrowDown');
  await expect(page.getByTestId('path-to')).toHaveValue(to);
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);

  // Play and pause, then step forward with the button and with the arrow key.
  await tabTo(page, 'ctl-play');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('diagram')).toHaveClass(/is-playing/);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('diagram')).not.toHaveClass(/is-playing/);
  await page.keyboard.press('Home');
  await expect(page.getByTestId('diagram-svg')).toHaveAttribute('data-step', '0');
  await tabTo(page, 'ctl-forward');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('diagram-svg')).toHaveAttribute('data-step', '1');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('diagram-svg')).toHaveAttribute('data-step', '2');

  // Help opens with the keyboard, takes the focus, and Escape gives it back.
  await tabTo(page, 'help-button');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('help-popover')).toBeVisible();
  await expect(page.getByTestId('help-popover')).toContainText('Tab leaves the editor');
  await expect(page.getByTestId('help-popover')).toContainText('Ctrl+M');
  expect((await focusStop(page))?.id).toBe('help-popover');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('help-popover')).toHaveCount(0);
  expect((await focusStop(page))?.id).toBe('help-button');

  // The trace scrolls under the keyboard.
  await page.keyboard.press('End');
  await tabTo(page, 'trace-body');
  const body = page.getByTestId('trace-body');
  await body.evaluate((el) => (el.scrollTop = 0));
  await page.keyboard.press('PageDown');
  await expect.poll(() => body.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  await lab.shot('14-keyboard-trace-focus');
});

test('each step is announced politely: the sentence only', async ({ lab }) => {
  await lab.open();
  await lab.variant('lb-service');
  const announce = lab.page.getByTestId('step-announce');
  await expect(announce).toHaveAttribute('aria-live', 'polite');
  await expect(lab.explain).not.toHaveAttribute('aria-live', /.+/);
  await lab.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).first().click();
  await expect(announce).toContainText('DNAT in nat');
  await lab.step(1);
  // The routing step carries a lesson: it is shown, not spoken with the sentence.
  await expect(lab.page.getByTestId('step-insight')).toBeVisible();
  const spoken = await announce.textContent();
  const sentence = await lab.explain.locator('.explain-main').textContent();
  const host = await lab.explain.locator('.explain-host').textContent();
  expect(spoken).toBe(`${host}: ${sentence?.slice(host?.length ?? 0)}`);
  expect(spoken).not.toContain(await lab.page.getByTestId('step-insight').textContent());
});

/** Where the packet token is on screen over the next frames after a step. */
async function tokenTrack(lab: LabPage): Promise<string[]> {
  await lab.page.keyboard.press('ArrowRight');
  return lab.page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const out: string[] = [];
        const tick = () => {
          const r = document.querySelector('[data-testid=packet-token]')?.getBoundingClientRect();
          out.push(r ? `${Math.round(r.x)},${Math.round(r.y)}` : 'none');
          if (out.length < 12) requestAnimationFrame(tick);
          else resolve(out);
        };
        requestAnimationFrame(tick);
      }),
  );
}

test('reduced motion: the token jumps to each step instead of gliding', async ({ lab }) => {
  await lab.open();
  await lab.step(1);
  const moving = await tokenTrack(lab);
  expect(new Set(moving).size, `gliding token: ${moving.join(' ')}`).toBeGreaterThan(2);

  await lab.page.emulateMedia({ reducedMotion: 'reduce' });
  await lab.step(1);
  const still = await tokenTrack(lab);
  expect(new Set(still).size, `token positions: ${still.join(' ')}`).toBe(1);
});
