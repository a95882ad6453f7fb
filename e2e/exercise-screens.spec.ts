/**
 * The exercise views at the sizes the brief names, in both languages: the list, a task with
 * failing goals, the success view (test-results/screens/exercise-*.png, looked at by a person).
 */
import { expect, test } from '@playwright/test';
import { ExercisePage, exerciseFile } from './fixtures/exercise.fixture.ts';

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const { solutions } = exerciseFile('vip22-give-ssh-back');

for (const size of SIZES)
  for (const lang of ['en', 'zh'] as const)
    test(`exercise views at ${size.width}x${size.height}, ${lang}`, async ({ page }) => {
      await page.setViewportSize(size);
      const ex = new ExercisePage(page);
      const tag = `${size.width}x${size.height}-${lang}`;
      await ex.openId('vip22-give-ssh-back');
      if (lang === 'zh') await page.getByTestId('lang').selectOption('zh');
      await expect(ex.goal('ssh-reaches-sshd')).toHaveAttribute('data-state', 'fail');
      await page.getByTestId('hint-next').click();
      await ex.goal('ssh-reaches-sshd').scrollIntoViewIfNeeded();
      await ex.shot(`exercise-task-${tag}`);
      await ex.answer(solutions[0] ?? '');
      await expect(ex.success).toBeVisible();
      await ex.shot(`exercise-success-${tag}`);
      await ex.showList();
      await ex.shot(`exercise-list-${tag}`);
      await ex.axe();
      ex.expectCleanConsole();
    });
