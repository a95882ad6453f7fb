/**
 * Issue 12's freeze findings: pasting a huge manifest, typing in it and reloading with it saved.
 * The longest main-thread task is measured in the page (PerformanceObserver 'longtask') and
 * printed; the assertions hold the lab to what it achieves on this machine (see the notes).
 */
import type { Page } from '@playwright/test';
import { LabPage, expect, test } from './fixtures/lab.fixture.ts';
import { describeTasks, overload, traceMainThread } from './fixtures/main-thread.ts';
import { MonacoPage } from './fixtures/monaco.ts';
import { bigManifests } from '../src/bench/big-manifests.ts';
import { PLAIN_MAX } from '../src/app/editor/PlainEditor.tsx';

test.use({ viewport: { width: 1280, height: 720 }, locale: 'en-US' });
test.setTimeout(180_000);

async function watchLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __long: number[] };
    w.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__long.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });
}

const longest = (page: Page) =>
  page.evaluate(() => Math.max(0, ...(window as unknown as { __long: number[] }).__long));

/** A real paste: the browser's paste event with the text on its clipboard data. */
async function paste(page: Page, text: string): Promise<void> {
  await page.getByTestId('editor-plain').evaluate((ta: HTMLTextAreaElement, t) => {
    ta.focus();
    ta.select();
    const dt = new DataTransfer();
    dt.setData('text/plain', t);
    ta.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }),
    );
  }, text);
}

// The goal is 100 ms. The paste and the result's arrival were 41.6 s and 96 s before issue 12;
// the bound guards against the quadratic insertion coming back, on a loaded shared machine. A text
// past PLAIN_MAX is not put in the textarea (its layout alone took 0.3-1.7 s per keystroke at 5,000
// Services): the pane says so and keystrokes are measured in the full, virtualised editor.
// Keystroke figures are printed, not asserted (they depend on the machine's load).
for (const [services, replicas] of [
  [400, 100],
  [5000, 1],
] as const) {
  test(`pasting ${services} Services x ${replicas} replicas keeps the page responsive`, async ({
    lab,
    page,
  }) => {
    await lab.open();
    await watchLongTasks(page);
    const text = bigManifests(services, replicas);
    // A Chromium trace of the same time says whose work the long tasks were (the lab's script,
    // or the browser's layout, paint and garbage collection).
    const tasks = await traceMainThread(page, async () => {
      await paste(page, text);
      // 400 x 100 may run past the worker's time limit: the lab says so and stays usable.
      await expect(
        page.getByTestId('path-filter').or(page.getByTestId('status-failure')),
      ).toBeVisible({ timeout: 120_000 });
      await page.waitForTimeout(1000);
    });
    const afterPaste = await longest(page);
    const tooLong = text.length > PLAIN_MAX;
    let where = 'the plain editor';
    if (tooLong) {
      // Nothing is lost: the lab holds the text, shows its start, and offers the full editor.
      await expect(page.getByTestId('editor-too-long')).toBeVisible();
      await expect(page.getByTestId('editor-plain')).toHaveCount(0);
      await page.getByTestId('editor-open-full').click();
      const monaco = new MonacoPage(page);
      await monaco.ready();
      await page.waitForTimeout(1500);
      await watchLongTasks(page);
      await monaco.focusEnd();
      where = 'the full editor';
    } else {
      await watchLongTasks(page);
      await page.getByTestId('editor-plain').press('End');
    }
    for (const k of ['#', ' ', 'x']) await page.keyboard.type(k);
    await page.waitForTimeout(1500);
    const afterKeys = await longest(page);
    console.log(
      `${services} Services x ${replicas} (${(text.length / 1e6).toFixed(2)} MB), load ${overload().toFixed(1)}x the cores: longest main-thread task during paste + simulation ${afterPaste} ms, during 3 keystrokes in ${where} ${afterKeys} ms\n  tasks over 50 ms during paste + simulation (traced):\n    ${describeTasks(tasks)}`,
    );
    await lab.shot(`freeze-${services}x${replicas}`);
    expect(afterPaste).toBeLessThan(3000);
  });
}

test('a saved 5,000-Service edit: time to the first diagram', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await paste(page, bigManifests(5000, 1));
  await expect(page.getByTestId('path-filter').or(page.getByTestId('status-failure'))).toBeVisible({
    timeout: 120_000,
  });
  await page.waitForTimeout(800);
  await page.reload();
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/, { timeout: 60_000 });
  const first = await page.evaluate(
    () => performance.getEntriesByName('hookpath:drawn')[0]?.startTime ?? -1,
  );
  // Where the time goes: boot chunk run, app chunk run, run requested, worker answered.
  const phases = await page.evaluate(() =>
    ['boot', 'app', 'run-start', 'result']
      .map(
        (n) =>
          `${n} ${Math.round(performance.getEntriesByName(`hookpath:${n}`)[0]?.startTime ?? -1)} ms`,
      )
      .join(', '),
  );
  // When the cold run of the 5,000 Services passed the worker's limit on a loaded machine, the
  // edit never had a good version and the first diagram is the scenario as written (issue 7.5).
  const big = await page.getByTestId('path-filter').isVisible();
  console.log(
    `saved 5,000-Service edit, load ${overload().toFixed(1)}x the cores: first diagram drawn ${Math.round(first)} ms after navigation (${phases}; ${big ? 'the edit' : 'the scenario as written: the edit timed out'})`,
  );
  expect(first).toBeGreaterThan(0);
});
