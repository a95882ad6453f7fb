import { expect, test } from '@playwright/test';

test('the built site loads', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Hookpath' })).toBeVisible();
});
