/** The console guard itself: these tests are expected to fail, and fail the run if they pass. */
import { test } from './fixtures/lab.fixture.ts';

test('a console error fails the test', async ({ page }) => {
  test.fail();
  await page.goto('/?editor=plain');
  await page.evaluate(() => console.error('deliberate error'));
});

test('a console warning fails the test', async ({ page }) => {
  test.fail();
  await page.goto('/?editor=plain');
  await page.evaluate(() => console.warn('deliberate warning'));
});

test('an uncaught exception fails the test', async ({ page }) => {
  test.fail();
  await page.goto('/?editor=plain');
  await page.evaluate(() => {
    setTimeout(() => {
      throw new Error('deliberate uncaught');
    });
  });
  await page.waitForTimeout(100);
});
