import { expect, test } from '@playwright/test';
import { ExercisePage, exerciseFile } from './fixtures/exercise.fixture.ts';

test.use({ viewport: { width: 1440, height: 900 } });

const SOURCE_IP = exerciseFile('keep-client-source-ip');

test('open an exercise from the list, fail, answer, pass; progress survives a reload', async ({
  page,
}) => {
  const ex = new ExercisePage(page);
  await page.goto('/?editor=plain');
  await ex.showList();
  await expect(page.getByTestId('exercise-progress')).toHaveText(/^0 of \d+ done$/);
  await ex.axe();
  // Keyboard: the dialog holds focus; Enter on an item opens it.
  await ex.item('keep-client-source-ip').focus();
  await page.keyboard.press('Enter');
  await expect(ex.list).toBeHidden();
  await expect(ex.panel).toBeVisible();
  await expect(page).toHaveURL(/[?&]exercise=keep-client-source-ip/);
  await expect(ex.goal('client-address')).toHaveAttribute('data-state', 'fail');
  await expect(ex.goal('no-snat')).toHaveAttribute('data-state', 'fail');
  await expect(ex.goal('client-address').getByTestId('goal-instead').first()).toContainText(
    'masqueraded it to 172.18.0.',
  );
  await ex.axe();

  await ex.answer(SOURCE_IP.solutions[0] ?? '');
  for (const g of ['client-address', 'no-snat', 'own-pod'])
    await expect(ex.goal(g)).toHaveAttribute('data-state', 'pass');
  await expect(ex.success).toBeVisible();
  await expect(page.getByTestId('success-takeaway')).toContainText('KUBE-SVL');
  await ex.axe();

  await page.reload();
  await expect(ex.panel).toBeVisible();
  await expect(ex.editor).toHaveValue(SOURCE_IP.solutions[0] ?? '');
  await expect(ex.success).toBeVisible();
  await ex.showList();
  await expect(ex.item('keep-client-source-ip')).toHaveAttribute('data-done', 'true');
  await expect(page.getByTestId('exercise-progress')).toHaveText(/^1 of \d+ done$/);
  await expect(page.getByTestId('exercises-done-count')).toHaveText('✓ 1');
  ex.expectCleanConsole();
});

test('Share inside an exercise opens that exercise with the answer in another browser', async ({
  page,
  browser,
}) => {
  const ex = new ExercisePage(page);
  await ex.openId('keep-client-source-ip');
  // Share carries the exercise; an embed could not (it names a catalog scenario), so no Embed.
  await expect(page.getByTestId('embed-button')).toHaveCount(0);
  await ex.answer(SOURCE_IP.solutions[0] ?? '');
  await expect(ex.success).toBeVisible();
  await page.getByTestId('share').click();
  await expect.poll(() => page.url()).toMatch(/[?&]exercise=keep-client-source-ip#lab=/);
  const link = page.url();
  ex.expectCleanConsole();

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const other = await context.newPage();
  const theirs = new ExercisePage(other);
  await other.goto(link);
  await expect(theirs.panel).toBeVisible();
  await expect(theirs.editor).toHaveValue(SOURCE_IP.solutions[0] ?? '');
  for (const g of ['client-address', 'no-snat', 'own-pod'])
    await expect(theirs.goal(g)).toHaveAttribute('data-state', 'pass');
  theirs.expectCleanConsole();
  await context.close();
});

test('a wrong answer shows the failing goal and what the packet did instead', async ({ page }) => {
  const ex = new ExercisePage(page);
  const { solutions } = exerciseFile('close-nodeport-on-core');
  await ex.openId('close-nodeport-on-core');
  // A guard in filter FORWARD: it never matches, the DNAT came first.
  const wrong = (solutions[2] ?? '')
    .replace('*raw', '*filter')
    .replace(':PREROUTING ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]')
    .replace('-A PREROUTING -i eth0 -j NODEPORT-GUARD', '-A FORWARD -i eth0 -j NODEPORT-GUARD');
  await ex.answer(wrong);
  await expect(ex.goal('in-cluster')).toHaveAttribute('data-state', 'pass');
  const goal = ex.goal('core-closed');
  await expect(goal).toHaveAttribute('data-state', 'fail');
  await expect(goal.getByTestId('goal-failure').first()).toContainText(
    'client/external → nodeport/web@core-1',
  );
  await expect(goal.getByTestId('goal-instead').first()).toContainText(
    'core-1 DNATed it in nat PREROUTING',
  );
  await ex.answer(solutions[1] ?? '');
  await expect(goal).toHaveAttribute('data-state', 'pass');
  await expect(ex.success).toBeVisible();
  ex.expectCleanConsole();
});

test('broken YAML keeps the last goals, marked stale, and says where', async ({ page }) => {
  const ex = new ExercisePage(page);
  await ex.openId('keep-client-source-ip');
  await ex.answer(`${SOURCE_IP.solutions[0]}\n---\nkind: [\n`);
  await expect(page.getByTestId('goals-stale')).toBeVisible();
  await expect(ex.goal('client-address')).toHaveAttribute('data-state', 'fail');
  await expect(page.getByTestId('goals-diagnostics')).toContainText(/\d+:\d+/);
  ex.expectCleanConsole();
});

test('hints one at a time; the solution only after an explicit, recorded "show solution"', async ({
  page,
}) => {
  const ex = new ExercisePage(page);
  await ex.openId('vip22-give-ssh-back');
  await expect(page.getByTestId('hint')).toHaveCount(0);
  await page.getByTestId('hint-next').click();
  await expect(page.getByTestId('hint')).toHaveCount(1);
  await page.getByTestId('hint-next').click();
  await expect(page.getByTestId('hint')).toHaveCount(2);
  await expect(page.getByTestId('solution')).toHaveCount(0);
  page.once('dialog', (d) => void d.accept());
  await page.getByTestId('solution-show').click();
  await expect(page.getByTestId('solution-recorded')).toBeVisible();
  await expect(page.getByTestId('solution')).toHaveCount(2);
  // Two accepted answers; the second is folded: open it from the keyboard.
  await page.getByTestId('solution').nth(1).locator('summary').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('solution-use-1').click();
  await expect(ex.goal('ssh-reaches-sshd')).toHaveAttribute('data-state', 'pass');
  await expect(ex.success).toBeVisible();
  await ex.axe();
  await page.reload();
  await expect(page.getByTestId('hint')).toHaveCount(2);
  await expect(page.getByTestId('solution-recorded')).toBeVisible();
  await ex.showList();
  await expect(ex.item('vip22-give-ssh-back')).toContainText('solution seen');
  ex.expectCleanConsole();
});

test('an instructor exercise carried in a URL opens; a damaged one says why', async ({ page }) => {
  const ex = new ExercisePage(page);
  await page.goto('/?editor=plain');
  await ex.showList();
  await page.getByText('Share your own exercise').click();
  const custom = SOURCE_IP.text.replace(
    "Keep the client's source address",
    'Workshop 3: keep the address',
  );
  await page
    .getByTestId('share-exercise-text')
    .fill(custom.replace('difficulty: beginner', 'difficulty: hard'));
  await page.getByTestId('share-exercise-make').click();
  await expect(page.getByTestId('share-exercise-error')).toContainText(
    /\d+:13: difficulty: 'hard' must be one of/,
  );
  await page.getByTestId('share-exercise-text').fill(custom);
  await page.getByTestId('share-exercise-make').click();
  const url = await page.getByTestId('share-exercise-url').inputValue();
  expect(url).toMatch(/#exercise=[\w-]+$/);
  await ex.axe();

  await page.goto(url.replace('/#', '/?editor=plain#'));
  await expect(ex.panel).toBeVisible();
  await expect(page.getByTestId('task-title')).toHaveText('Workshop 3: keep the address');
  await expect(ex.panel).toContainText('From a link');
  await expect(ex.goal('client-address')).toHaveAttribute('data-state', 'fail');
  await ex.answer(SOURCE_IP.solutions[0] ?? '');
  await expect(ex.success).toBeVisible();

  await page.goto('/?editor=plain#exercise=AAAA');
  await expect(page.getByTestId('exercise-open-error')).toContainText('damaged');
  ex.expectCleanConsole();
});

test('progress exports as a small JSON file and imports into another browser', async ({
  page,
  browser,
}) => {
  const ex = new ExercisePage(page);
  await ex.openId('keep-client-source-ip');
  await ex.answer(SOURCE_IP.solutions[0] ?? '');
  await expect(ex.success).toBeVisible();
  await ex.showList();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('progress-export').click(),
  ]);
  const path = await download.path();
  const { readFileSync } = await import('node:fs');
  const file = readFileSync(path, 'utf8');
  expect(JSON.parse(file)).toMatchObject({
    format: 'hookpath-exercise-progress',
    version: 1,
    exercises: { 'keep-client-source-ip': { done: true, hints: 0, solutionShown: false } },
  });
  expect(file.length).toBeLessThan(1000);

  const other = await (
    await browser.newContext({ viewport: { width: 1440, height: 900 } })
  ).newPage();
  const ex2 = new ExercisePage(other);
  await other.goto('/?editor=plain');
  await ex2.showList();
  await other.getByTestId('progress-import').setInputFiles({
    name: 'bad.json',
    mimeType: 'application/json',
    buffer: Buffer.from(
      '{"format":"hookpath-exercise-progress","version":1,"exercises":{"x":{"done":1}}}',
    ),
  });
  await expect(other.getByTestId('progress-note')).toHaveText(
    'Not imported: exercises.x.done: must be true or false',
  );
  await other.getByTestId('progress-import').setInputFiles({
    name: 'progress.json',
    mimeType: 'application/json',
    buffer: Buffer.from(file),
  });
  await expect(other.getByTestId('progress-note')).toHaveText('Imported progress for 1 exercise.');
  await expect(ex2.item('keep-client-source-ip')).toHaveAttribute('data-done', 'true');
  ex.expectCleanConsole();
  ex2.expectCleanConsole();
  await other.context().close();
});
