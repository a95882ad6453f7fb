/**
 * Speed figures of the production build in headless Chromium. Printed, not asserted (timings
 * depend on the machine); the test asserts only that each measured thing happened.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { LB_SERVICE, expect, test } from './fixtures/lab.fixture.ts';

test.use({ viewport: { width: 1440, height: 900 } });

/** Gzipped size of the built files the page fetched before its first diagram. */
function gzipSize(files: readonly string[]): number {
  return files.reduce((n, f) => n + gzipSync(readFileSync(`dist/${f}`)).length, 0);
}

test('speed figures', async ({ lab }) => {
  await lab.open();
  // The diagram draws after the rest of the page (a deferred render): wait for its mark.
  await expect
    .poll(() => lab.page.evaluate(() => performance.getEntriesByName('hookpath:drawn').length))
    .toBeGreaterThan(0);
  const first = await lab.page.evaluate(() => {
    const m = performance.getEntriesByName('hookpath:drawn')[0];
    return m ? m.startTime : null;
  });
  // Where the first diagram's time goes: boot chunk run, app chunk run, worker answer.
  const phases = await lab.page.evaluate(() =>
    ['boot', 'app', 'result']
      .map(
        (n) =>
          `${n} ${Math.round(performance.getEntriesByName(`hookpath:${n}`)[0]?.startTime ?? -1)} ms`,
      )
      .join(', '),
  );
  expect(first).not.toBeNull();
  // Main-thread JavaScript fetched before the first diagram (the workers and Monaco are not).
  const loaded = await lab.page.evaluate(
    (before) =>
      performance
        .getEntriesByType('resource')
        .filter((r) => r.startTime <= (before ?? 0) && /\/assets\/[^/]+\.js$/.test(r.name))
        .map((r) => `assets/${r.name.split('/').pop() ?? ''}`)
        .filter((f) => !/worker|Monaco/.test(f)),
    first,
  );
  const js = { files: loaded, bytes: gzipSize(loaded) };
  expect(js.files.length).toBeGreaterThan(0);

  // Edit → simulated and redrawn: from the run request (after the debounce) to the redraw.
  const edits: number[] = [];
  for (let i = 0; i < 5; i++) {
    await lab.page.evaluate(() => performance.clearMarks());
    const text =
      i % 2
        ? (await lab.manifests()).replace(LB_SERVICE, '')
        : `${await lab.manifests()}${LB_SERVICE}`;
    await lab.setManifests(text);
    await expect
      .poll(() => lab.page.evaluate(() => performance.getEntriesByName('hookpath:drawn').length), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0);
    edits.push(
      await lab.page.evaluate(() => {
        const a = performance.getEntriesByName('hookpath:run-start').at(-1)?.startTime ?? 0;
        const b = performance.getEntriesByName('hookpath:drawn').at(-1)?.startTime ?? 0;
        return b - a;
      }),
    );
  }

  // Frames while the packet moves (2 s of playing).
  await lab.page.getByTestId('ctl-play').click();
  const fps = await lab.page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let frames = 0;
        const t0 = performance.now();
        const tick = () => {
          frames++;
          if (performance.now() - t0 < 2000) requestAnimationFrame(tick);
          else resolve((frames * 1000) / (performance.now() - t0));
        };
        requestAnimationFrame(tick);
      }),
  );
  expect(fps).toBeGreaterThan(0);

  const sorted = [...edits].sort((a, b) => a - b);
  console.log(
    [
      `first diagram drawn: ${first?.toFixed(0)} ms after navigation (${phases})`,
      `edit -> re-simulated and redrawn (after the debounce): ${edits.map((e) => e.toFixed(0)).join(', ')} ms (median ${sorted[2]?.toFixed(0)})`,
      `animation while playing: ${fps.toFixed(1)} fps`,
      `initial JavaScript (gzip, Monaco and the worker excluded): ${(js.bytes / 1024).toFixed(1)} KB in ${js.files.join(', ')}`,
    ].join('\n'),
  );
});
