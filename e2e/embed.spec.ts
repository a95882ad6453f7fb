/**
 * Embeds in a blog post on another origin: embed.js sizes them from their own messages, the
 * whole diagram and the controls show without scrolling inside, playing scrolls nothing, keys act
 * only in the embed that has the focus, two embeds run on their own, and "Open in Hookpath" opens
 * the full lab at the same place.
 */
import { SCREENS, expect, test, type EmbedSpec } from './fixtures/embed.fixture.ts';

test.use({ viewport: { width: 1000, height: 800 }, locale: 'en-US' });

const VIP = 'scenario=vip22-sshd-or-service';
const WIDE: EmbedSpec = { id: 'wide', query: `${VIP}&variant=lb-service`, width: 700 };
const NARROW: EmbedSpec = { id: 'narrow', query: VIP, width: 400 };

test('embed.js sizes each iframe from its own messages: nothing scrolls inside', async ({
  embeds,
}) => {
  // The host page records the messages it gets (embed.js listens beside it).
  await embeds.page.addInitScript(() => {
    if (window !== window.top) return;
    const got: { source: string; height: number }[] = [];
    (window as unknown as { got: typeof got }).got = got;
    addEventListener('message', (e) => {
      const d = e.data as { type?: string; height?: number };
      const from = [...document.querySelectorAll('iframe')].find(
        (f) => f.contentWindow === e.source,
      );
      if (d?.type === 'hookpath:resize')
        got.push({ source: from?.id ?? '?', height: d.height ?? 0 });
    });
  });
  await embeds.open([WIDE, NARROW]);
  for (const spec of [WIDE, NARROW]) {
    const frame = embeds.iframe(spec.id);
    const e = embeds.embed(spec.id);
    await expect(e.verdict).toHaveAttribute('data-outcome', /.+/);
    // Once the embed has its answer, the iframe is as tall as the content (taller than the
    // snippet's 300 px), the height the last message said; nothing is left to scroll inside.
    await expect
      .poll(async () => {
        const got = await embeds.page.evaluate(
          (id) =>
            (window as unknown as { got: { source: string; height: number }[] }).got
              .filter((g) => g.source === id)
              .at(-1)?.height ?? 0,
          spec.id,
        );
        const box = await frame.boundingBox();
        const s = await e.scroll();
        return {
          applied: got > 400 && Math.abs((box?.height ?? 0) - got) < 1,
          fits: s.scrollHeight <= s.innerHeight,
        };
      })
      .toEqual({ applied: true, fits: true });
    await expect(frame).toHaveAttribute('data-hookpath-height', /^\d+$/);
    // The whole diagram, the play control and the explanation are inside the iframe's box.
    const fb = (await frame.boundingBox())!;
    for (const part of [e.diagram, e.play, e.frame.getByTestId('step-explain')]) {
      const b = (await part.boundingBox())!;
      expect(b.y, spec.id).toBeGreaterThanOrEqual(fb.y);
      expect(b.y + b.height, spec.id).toBeLessThanOrEqual(fb.y + fb.height + 0.5);
      expect(b.x + b.width, spec.id).toBeLessThanOrEqual(fb.x + fb.width + 0.5);
    }
    // The diagram fills the column's width; the bar stays thin.
    expect((await e.diagram.boundingBox())!.width).toBeGreaterThan(spec.width - 24);
    expect((await e.bar.boundingBox())!.height).toBeLessThanOrEqual(48);
    await expect(e.frame.getByTestId('scenario-picker')).toHaveCount(0);
    await expect(e.frame.getByTestId('variant-picker')).toHaveCount(0);
    await expect(e.frame.getByTestId('path-picker')).toHaveCount(0);
  }
});

test('speed figure: the first diagram of an embed (printed)', async ({ embeds }) => {
  await embeds.open([WIDE]);
  const doc = await embeds.embed('wide').document();
  // From the iframe's navigation start: boot chunk run, app chunk run, worker answer, drawn.
  const marks = await doc.evaluate(() =>
    ['boot', 'app', 'result', 'drawn'].map((n) =>
      Math.round(performance.getEntriesByName(`hookpath:${n}`)[0]?.startTime ?? -1),
    ),
  );
  expect(marks[3]).toBeGreaterThan(0);
  console.log(
    `embed 700 px, first diagram: ${marks[3]} ms (boot ${marks[0]}, app ${marks[1]}, result ${marks[2]})`,
  );
});

test('Play scrolls neither the host page nor the iframe, sized or not', async ({ embeds }) => {
  const FIXED: EmbedSpec = { id: 'fixed', query: VIP, width: 700, fixed: 420 };
  await embeds.open([WIDE, FIXED]);
  const wide = embeds.embed('wide');
  // The reader has scrolled partway down the post; the embed is on screen.
  await embeds.scrollTo('wide', 120);
  const y0 = await embeds.scrollY();
  expect(y0).toBeGreaterThan(300);
  await embeds.page.evaluate(() => {
    const w = window as unknown as { moved: number };
    w.moved = 0;
    addEventListener('scroll', () => w.moved++);
  });
  await wide.play.click();
  await expect.poll(() => wide.step(), { timeout: 10_000 }).toBeGreaterThan(6);
  expect(await embeds.scrollY()).toBe(y0);
  expect(await embeds.page.evaluate(() => (window as unknown as { moved: number }).moved)).toBe(0);
  expect((await wide.scroll()).y).toBe(0);
  await wide.play.click();
  // The shortcuts' help, opened with "?" inside the embed, moves nothing either.
  await embeds.page.keyboard.press('?');
  await expect(wide.frame.getByTestId('help-popover')).toBeVisible();
  expect(await embeds.scrollY()).toBe(y0);
  await embeds.page.keyboard.press('Escape');

  // Without embed.js the iframe keeps its fixed height and scrolls: playing still moves nothing.
  // (Played with Space after a click on the title: a click on the Play button below the iframe's
  // fold would make Playwright scroll the iframe to reach it.)
  const fixed = embeds.embed('fixed');
  await embeds.scrollTo('fixed', 60);
  const y1 = await embeds.scrollY();
  const inner = await fixed.scroll();
  expect(inner.scrollHeight).toBeGreaterThan(inner.innerHeight);
  await fixed.frame.getByTestId('embed-title').click();
  await embeds.page.keyboard.press('Space');
  await expect.poll(() => fixed.step(), { timeout: 10_000 }).toBeGreaterThan(6);
  expect(await embeds.scrollY()).toBe(y1);
  expect((await fixed.scroll()).y).toBe(0);
});

test('autoplay waits until the reader scrolls the embed into view', async ({ embeds }) => {
  await embeds.open([{ ...NARROW, query: `${VIP}&autoplay=1` }]);
  const e = embeds.embed('narrow');
  // Below the fold: drawn, not playing.
  await embeds.page.waitForTimeout(1500);
  expect(await e.step()).toBe(1);
  await embeds.scrollTo('narrow', 100);
  await expect.poll(() => e.step(), { timeout: 10_000 }).toBeGreaterThan(2);
  await expect(e.play).toHaveAttribute('aria-label', 'Pause');
});

test('the wheel over an embed scrolls the post; Ctrl + wheel zooms the diagram', async ({
  embeds,
}) => {
  await embeds.open([WIDE]);
  const wide = embeds.embed('wide');
  await embeds.scrollTo('wide', 100);
  const y0 = await embeds.scrollY();
  const viewport = wide.frame.locator('g.viewport');
  const t0 = await viewport.getAttribute('transform');
  const b = (await wide.diagram.boundingBox())!;
  await embeds.page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
  await embeds.page.mouse.wheel(0, 300);
  await expect.poll(() => embeds.scrollY()).toBeGreaterThan(y0 + 100);
  expect(await viewport.getAttribute('transform')).toBe(t0);
  const b2 = (await wide.diagram.boundingBox())!;
  await embeds.page.mouse.move(b2.x + b2.width / 2, b2.y + b2.height / 2);
  const y1 = await embeds.scrollY();
  await embeds.page.keyboard.down('Control');
  await embeds.page.mouse.wheel(0, -200);
  await embeds.page.keyboard.up('Control');
  await expect.poll(() => viewport.getAttribute('transform')).not.toBe(t0);
  expect(await embeds.scrollY()).toBe(y1);
  await expect(wide.svg).toHaveAttribute('data-camera', 'free');
});

test('keys act only in the embed that has the focus; two embeds run on their own', async ({
  embeds,
}) => {
  await embeds.open([WIDE, { ...NARROW, id: 'other' }]);
  const a = embeds.embed('wide');
  const b = embeds.embed('other');
  // The host page (slides, say) has the focus: its arrow keys are its own.
  await embeds.page.locator('h1').click();
  await embeds.page.keyboard.press('ArrowRight');
  await embeds.page.keyboard.press('Space');
  expect(
    await embeds.page.evaluate(() => (window as unknown as { hostKeys: string[] }).hostKeys),
  ).toEqual(['ArrowRight', ' ']);
  expect(await a.step()).toBe(1);
  expect(await b.step()).toBe(1);
  // A click in the first embed gives it the focus: now the keys step that embed only.
  await a.frame.getByTestId('step-explain').click();
  await embeds.page.keyboard.press('ArrowRight');
  await embeds.page.keyboard.press('ArrowRight');
  await expect.poll(() => a.step()).toBe(3);
  expect(await b.step()).toBe(1);
  expect(
    await embeds.page.evaluate(() => (window as unknown as { hostKeys: string[] }).hostKeys),
  ).toHaveLength(2);
  // Playing one leaves the other where it is.
  await b.play.click();
  await expect.poll(() => b.step(), { timeout: 10_000 }).toBeGreaterThan(3);
  expect(await a.step()).toBe(3);
  await b.play.click();
});

test('verdict=after: the verdict waits for the packet to arrive', async ({ embeds }) => {
  await embeds.open([{ ...WIDE, query: `${WIDE.query}&verdict=after` }]);
  const e = embeds.embed('wide');
  await expect(e.verdictLater).toBeVisible();
  await expect(e.verdict).toHaveCount(0);
  await e.frame.getByTestId('step-explain').click();
  await embeds.page.keyboard.press('ArrowRight');
  await expect.poll(() => e.step()).toBe(2);
  await expect(e.verdict).toHaveCount(0);
  await embeds.page.keyboard.press('End');
  await expect(e.verdict).toContainText('Answered by pod nettest');
  // Once arrived, going back keeps the answer on screen.
  await embeds.page.keyboard.press('Home');
  await expect.poll(() => e.step()).toBe(1);
  await expect(e.verdict).toBeVisible();
});

test('"Open in Hookpath" opens the full lab at the same scenario, variant, path and step', async ({
  embeds,
}) => {
  await embeds.open([
    { ...WIDE, query: `${WIDE.query}&from=node/cp-1&to=vip:22&step=4&pickers=1` },
  ]);
  const e = embeds.embed('wide');
  await expect.poll(() => e.step()).toBe(4);
  await e.forward.click();
  await e.forward.click();
  await expect.poll(() => e.step()).toBe(6);
  const packet = await e.frame.getByTestId('packet-label').textContent();
  const href = (await e.open.getAttribute('href')) ?? '';
  expect(href.startsWith(embeds.site.url)).toBe(true);
  expect(href).toContain('from=node/cp-1&to=vip:22&step=6');
  const [full] = await Promise.all([embeds.page.context().waitForEvent('page'), e.open.click()]);
  await expect(full.getByTestId('verdict')).toHaveAttribute('data-outcome', /.+/);
  await expect(full.getByTestId('scenario-picker')).toHaveValue('vip22-sshd-or-service');
  await expect(full.getByTestId('variant-picker')).toHaveValue('lb-service');
  await expect(full.getByTestId('path-from')).toHaveValue('node/cp-1');
  await expect(full.getByTestId('path-to')).toHaveValue('vip:22');
  await expect(full.getByTestId('step-count')).toHaveAttribute('data-n', '6');
  await expect(full.getByTestId('packet-label')).toHaveText(packet ?? '');
  await full.close();
});

for (const theme of ['light', 'dark'] as const)
  test(`screenshots at 700 and 400 px, ${theme}`, async ({ embeds }) => {
    await embeds.page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await embeds.open([
      { ...WIDE, query: `${WIDE.query}&step=9` },
      { ...NARROW, query: `${VIP}&variant=lb-service&step=9` },
    ]);
    for (const id of ['wide', 'narrow']) {
      const frame = embeds.iframe(id);
      await expect(embeds.embed(id).frame.locator('html')).toHaveAttribute('data-theme', theme);
      await expect.poll(() => embeds.embed(id).step()).toBe(9);
      await frame.scrollIntoViewIfNeeded();
      await frame.screenshot({ path: `${SCREENS}/embed-${id}-${theme}.png` });
    }
  });

test("an embed leaves the reader's own work alone: it reads and writes no storage", async ({
  embeds,
}) => {
  const { page, site } = embeds;
  // Every access an embed's document makes to localStorage is recorded (the full lab's are not).
  await page.context().addInitScript(() => {
    if (!new URLSearchParams(location.search).has('embed')) return;
    const touched: string[] = [];
    (window as unknown as { touched: string[] }).touched = touched;
    for (const m of ['getItem', 'setItem', 'removeItem', 'key', 'clear'] as const) {
      const real = Storage.prototype[m] as (...a: unknown[]) => unknown;
      (Storage.prototype as unknown as Record<string, unknown>)[m] = function (
        this: Storage,
        ...a: unknown[]
      ) {
        touched.push(`${m}(${String(a[0] ?? '')})`);
        return real.apply(this, a);
      };
    }
  });
  // The reader's own edit in the full lab on the site's origin, saved in this browser.
  const full = await page.context().newPage();
  await full.goto(`${site.url}?editor=plain&${VIP}`);
  const editor = full.getByTestId('editor-plain');
  await expect(editor).toHaveValue(/apiVersion/);
  await editor.fill(`${await editor.inputValue()}\n# my own edit\n`);
  await expect
    .poll(() => full.evaluate(() => Object.keys(localStorage).filter((k) => k.includes(':edit:'))))
    .toHaveLength(1);
  // The full lab's own last write: the edit checked by its run (the snapshot must not race it).
  await expect
    .poll(() =>
      full.evaluate(
        () => Object.entries(localStorage).find(([k]) => k.includes(':edit:'))?.[1] ?? '',
      ),
    )
    .toContain('"valid":true');
  const snapshot = () =>
    full.evaluate(() =>
      Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)])),
    );
  const before = await snapshot();

  // A post embeds the same scenario twice: read-only manifests, and editable ones.
  await embeds.open([
    { id: 'ro', query: `${VIP}&editor=readonly`, width: 700 },
    { id: 'rw', query: `${VIP}&editor=plain&pickers=1`, width: 400 },
  ]);
  const ro = embeds.embed('ro');
  const rw = embeds.embed('rw');
  await expect(ro.frame.getByTestId('editor-plain')).not.toHaveValue(/my own edit/);
  await expect(ro.frame.getByTestId('editor-plain')).toHaveJSProperty('readOnly', true);
  const rwEditor = rw.frame.getByTestId('editor-plain');
  await expect(rwEditor).not.toHaveValue(/my own edit/);
  // The reader edits and plays in one embed: the other embed and the saved work are untouched.
  await rwEditor.fill(`${await rwEditor.inputValue()}\n# typed in the embed\n`);
  await expect(rw.frame.getByTestId('edited-badge')).toBeVisible();
  await rw.frame.getByTestId('path-to').selectOption({ index: 1 });
  await rw.forward.click();
  await expect(ro.frame.getByTestId('editor-plain')).not.toHaveValue(/typed in the embed/);
  await expect(ro.frame.getByTestId('edited-badge')).toHaveCount(0);
  await page.waitForTimeout(800); // past the lab's save delay
  for (const id of ['ro', 'rw'])
    expect(
      await (
        await embeds.embed(id).document()
      ).evaluate(() => (window as unknown as { touched: string[] }).touched),
      `${id} touched storage`,
    ).toEqual([]);
  expect(await snapshot()).toEqual(before);
  // The full lab heard nothing from the embeds (no "changed in another tab").
  await expect(full.getByTestId('notice-tab')).toHaveCount(0);
  await expect(full.getByTestId('editor-plain')).toHaveValue(/my own edit/);
  await full.close();
});
