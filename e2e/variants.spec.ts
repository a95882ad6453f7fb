/**
 * The key step of every scenario variant, at 1280x720 and 1920x1080 with the editor open:
 * a screenshot to look at (test-results/screens/variants/), and the smallest rendered label of
 * the focused host, printed and held to 12 px and 14 px.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { expect, test, SCREENS } from './fixtures/lab.fixture.ts';
import { DiagramView, inside, overlapArea, SUBPIXEL } from './fixtures/diagram.ts';

const SCENARIOS = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => {
    const doc = parse(readFileSync(`scenarios/${f}`, 'utf8')) as { variants?: { id: string }[] };
    return { id: f.replace(/\.yaml$/, ''), variants: (doc.variants ?? []).map((v) => v.id) };
  });

/** The step a teacher would stop at: the rewrite, the drop, or the delivery. */
const KEY_STEPS = [
  '-j DNAT',
  '-j DROP',
  '-j REJECT',
  'policy DROP',
  'MASQUERADE',
  'delivered',
  'no-listener',
];

test.use({ locale: 'en-US' });
test.setTimeout(120_000);

// One test per scenario and size: a slow machine meets one scenario's time limit, not all of them.
for (const [w, h, min] of [
  [1280, 720, 12],
  [1920, 1080, 14],
] as const)
  for (const s of SCENARIOS)
    test(`the key step of every variant of ${s.id} at ${w}x${h}`, async ({ lab }) => {
      mkdirSync(`${SCREENS}/variants`, { recursive: true });
      await lab.page.setViewportSize({ width: w, height: h });
      await lab.page.emulateMedia({ reducedMotion: 'reduce' });
      const d = new DiagramView(lab.page);
      const report: string[] = [];
      let smallest = Infinity;
      await lab.open(`editor=plain&scenario=${s.id}`);
      // Answers the worker has sent (controller.ts marks each): the last variant's trace stays on
      // screen until this variant's comes, and on a loaded machine its rows can vanish mid-click.
      const answers = () =>
        lab.page.evaluate(() => performance.getEntriesByName('hookpath:result').length);
      for (const v of s.variants) {
        const before = await answers();
        const changed = (await lab.page.getByTestId('variant-picker').inputValue()) !== v;
        await lab.variant(v);
        await expect(lab.page.getByTestId('variant-picker')).toHaveValue(v);
        if (changed) await expect.poll(answers).toBeGreaterThan(before);
        await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
        await lab.page.waitForTimeout(150);
        const rows = lab.page.locator('[data-testid^=trace-row-]');
        let picked = '';
        for (const k of KEY_STEPS)
          if ((await rows.filter({ hasText: k }).count()) > 0) {
            await rows.filter({ hasText: k }).first().click();
            picked = k;
            break;
          }
        await lab.page.evaluate(() => window.scrollTo(0, 0));
        await d.paint();
        const f = await d.frame();
        const at = await d.counter();
        const least = Math.min(...f.labels.map((l) => l.h));
        if (f.labels.length) smallest = Math.min(smallest, least);
        report.push(
          `${s.id} / ${v}: step ${at.n} of ${at.total} on ${f.host} (${picked || 'first step'}), smallest label ${f.labels.length ? `${least.toFixed(1)} px` : 'n/a (not a node)'}`,
        );
        for (const l of f.labels)
          expect(l.h, `${s.id}/${v} "${l.text}"`).toBeGreaterThanOrEqual(min - SUBPIXEL);
        if (f.token) {
          expect(inside(f.token, f.panel), `${s.id}/${v}: label inside`).toBe(true);
          if (f.hook) expect(overlapArea(f.token, f.hook), `${s.id}/${v}: label on hook`).toBe(0);
        }
        await lab.page.screenshot({ path: `${SCREENS}/variants/${s.id}--${v}-${w}.png` });
      }
      console.log(
        `${w}x${h}, smallest label of a focused node: ${smallest.toFixed(1)} px\n${report.join('\n')}`,
      );
    });
