/**
 * The readable URL parameters, in embeds and in the full lab: a deep link to a step, notes for
 * what cannot be used (never a blank lab), the follow camera at 400 px, and axe on the embed in
 * both themes.
 */
import { expect, test, type LabPage } from './fixtures/lab.fixture.ts';
import { DiagramView, SUBPIXEL } from './fixtures/diagram.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ locale: 'en-US' });

const VIP = 'scenario=vip22-sshd-or-service';

async function notes(lab: LabPage): Promise<string[]> {
  return lab.page.getByTestId('param-note').allTextContents();
}

test('a deep link opens the full lab at a variant, a path and a step, and survives a reload', async ({
  lab,
}) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  await lab.open(`editor=plain&${VIP}&variant=lb-service&from=node/cp-1&to=vip:22&step=7`);
  const check = async () => {
    await expect(lab.page.getByTestId('variant-picker')).toHaveValue('lb-service');
    await expect(lab.page.getByTestId('path-from')).toHaveValue('node/cp-1');
    await expect(lab.stepCount).toHaveAttribute('data-n', '7');
  };
  await check();
  await lab.page.reload();
  await check();
  await expect(lab.page.getByTestId('param-notes')).toHaveCount(0);
  await lab.open(`editor=plain&${VIP}&variant=lb-service&step=end`);
  const total = await lab.stepCount.getAttribute('data-total');
  await expect(lab.stepCount).toHaveAttribute('data-n', total ?? '');
});

test('what an address gets wrong is said on the page; the lab still runs', async ({ lab }) => {
  await lab.page.setViewportSize({ width: 700, height: 900 });
  await lab.open('embed=1&scenario=nope&step=abc&theme=blue&pickers=2&varient=lb');
  await expect(lab.diagram.getByTestId('host-cp-1')).toBeVisible();
  expect(await notes(lab)).toEqual([
    'Unknown parameter “varient”: ignored.Dismiss',
    '“step=abc” was ignored: use 1, 2, … | end.Dismiss',
    '“theme=blue” was ignored: use light | dark | auto.Dismiss',
    '“pickers=2” was ignored: use 0 | 1 | path | all.Dismiss',
    "There is no scenario “nope”: showing “VIP:22: the host's sshd or a LoadBalancer Service?”.Dismiss",
  ]);
  await lab.page.getByTestId('param-note').first().getByRole('button').click();
  await expect(lab.page.getByTestId('param-note')).toHaveCount(4);

  // A variant that does not exist, a path that does not resolve, a step past the end.
  await lab.open(`embed=1&${VIP}&variant=zzz&from=client/gone&to=vip:22&step=999`);
  await expect(lab.page.getByTestId('param-note')).toHaveCount(2);
  expect(await notes(lab)).toEqual([
    'This scenario has no variant “zzz”: showing “1. No Service on port 22”.Dismiss',
    expect.stringMatching(/^Step 999 is past the end \(\d+ steps\): showing the last step\./),
  ]);
  await expect(lab.page.getByTestId('notice-note')).toContainText('client/gone → vip:22');
  const total = await lab.stepCount.getAttribute('data-total');
  await expect(lab.stepCount).toHaveAttribute('data-n', total ?? '');
  await expect(lab.diagram.getByTestId('host-cp-1')).toBeVisible();

  await lab.open('embed=1&lang=zh&step=0');
  expect(await notes(lab)).toEqual(['“step=0” 已忽略：请用 1, 2, … | end。关闭']);
});

test('the follow camera stays readable in a 400 px column', async ({ lab }) => {
  await lab.page.setViewportSize({ width: 400, height: 800 });
  await lab.page.emulateMedia({ reducedMotion: 'reduce' });
  await lab.open(`embed=1&${VIP}&variant=lb-service`);
  const d = new DiagramView(lab.page);
  const frames = await d.walk();
  expect(frames.length).toBeGreaterThan(30);
  let smallest = Infinity;
  for (const f of frames) {
    expect(f.camera).toBe('follow');
    for (const l of f.labels) smallest = Math.min(smallest, l.h);
    if (f.token) {
      // The packet's label is on screen at every step.
      expect(f.token.x, `step ${f.step}`).toBeGreaterThanOrEqual(f.panel.x - 0.5);
      expect(f.token.x + f.token.w, `step ${f.step}`).toBeLessThanOrEqual(
        f.panel.x + f.panel.w + 0.5,
      );
    }
  }
  console.log(`embed at 400 px: smallest hook/table label ${smallest.toFixed(1)} px`);
  expect(smallest).toBeGreaterThanOrEqual(9.5 - SUBPIXEL);
});

for (const theme of ['light', 'dark'] as const)
  test(`axe: the embed in ${theme}, at 400 and 700 px`, async ({ lab }) => {
    test.setTimeout(90_000);
    await lab.page.emulateMedia({ reducedMotion: 'reduce' });
    for (const width of [400, 700]) {
      await lab.page.setViewportSize({ width, height: 900 });
      await lab.open(`embed=1&${VIP}&theme=${theme}`);
      await expectAxeClean(lab.page, `${theme} ${width}: start`);
      await lab.page.getByTestId('step-explain').click();
      await lab.page.keyboard.press('End');
      await expectAxeClean(lab.page, `${theme} ${width}: end`);
      // Everything an author can ask for at once, with a note.
      await lab.page.goto(
        `/?embed=1&${VIP}&variant=lb-service&theme=${theme}&verdict=after&pickers=all&editor=readonly&step=3&autoplay=nope`,
      );
      await expect(lab.stepCount).toHaveAttribute('data-n', '3');
      await expect(lab.page.getByTestId('verdict-later')).toBeVisible();
      await expect(lab.page.getByTestId('param-note')).toHaveCount(1);
      await expectAxeClean(lab.page, `${theme} ${width}: pickers, read-only manifests, note`);
    }
  });
