import { LB_SERVICE, expect, freshPage, test } from './fixtures/lab.fixture.ts';

test.use({ viewport: { width: 1440, height: 900 }, locale: 'en-US' });

test('the default scenario: VIP:22 lands on the host sshd', async ({ lab }) => {
  await lab.open();
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'answered');
  await expect(lab.verdict).toContainText('Answered by sshd on node cp-1');
  await expect(lab.diagram.getByTestId('host-cp-1')).toBeVisible();
  await lab.shot('01-default-sshd');
  // Walk to the socket: the packet reaches sshd through INPUT with the VIP unchanged.
  const socketRow = lab.page.locator('[data-testid^=trace-row-]', { hasText: 'delivered sshd' });
  await socketRow.click();
  await expect(lab.packetDst).toHaveText('192.168.50.100:22');
  await expect(lab.explain).toContainText('sshd listens on 0.0.0.0:22');
  await expect(lab.diagram.locator('[data-host="cp-1"] .process.reached')).toHaveCount(1);
  await lab.shot('02-sshd-socket');
});

test('adding the LoadBalancer Service in the editor sends VIP:22 to the pod', async ({ lab }) => {
  await lab.open();
  await lab.appendManifests(LB_SERVICE);
  await expect(lab.verdict).toContainText('Answered by pod nettest', { timeout: 10_000 });
  await expect(lab.verdict).toContainText('because of MASQUERADE on cp-1');
  await expect(lab.page.getByTestId('edited-badge')).toBeVisible();
  await lab.shot('03-lb-service-pod');
});

test('what kubectl get -o yaml prints, a List, is read as the objects in it', async ({ lab }) => {
  await lab.open();
  // The scenario's manifests and the LoadBalancer Service, as kubectl lays out a List's items.
  const docs = `${await lab.manifests()}${LB_SERVICE}`
    .split(/^---\n/m)
    .filter((d) => d.trim() && !d.trim().startsWith('#'));
  const items = docs.map((d) =>
    d
      .trimEnd()
      .split('\n')
      .map((l, i) => (i === 0 ? `- ${l}` : `  ${l}`))
      .join('\n'),
  );
  await lab.setManifests(
    `apiVersion: v1\nitems:\n${items.join('\n')}\nkind: List\nmetadata:\n  resourceVersion: ""\n`,
  );
  await expect(lab.verdict).toContainText('Answered by pod nettest', { timeout: 10_000 });
  await expect(lab.page.getByTestId('diagnostic')).toHaveCount(0);
});

test('broken YAML shows the marker and keeps the last result, marked stale', async ({ lab }) => {
  await lab.open();
  const good = await lab.manifests();
  await lab.setManifests(good.replace('  name: nettest\n', '  name: nettest\n spec: [\n'));
  const diag = lab.page.getByTestId('diagnostic').first();
  await expect(diag).toBeVisible({ timeout: 10_000 });
  await expect(diag).toHaveAttribute('data-line', '5');
  await expect(lab.page.getByTestId('stale-banner')).toBeVisible();
  await expect(lab.diagram).toHaveClass(/is-stale/);
  await expect(lab.verdict).toContainText('sshd');
  await lab.shot('04-broken-yaml-stale');
  await lab.setManifests(good);
  await expect(lab.page.getByTestId('stale-banner')).toHaveCount(0);
  await expect(lab.diagram).not.toHaveClass(/is-stale/);
});

test('stepping forward and back follows the DNAT rewrite in the trace and the packet label', async ({
  lab,
}) => {
  await lab.open();
  await lab.variant('lb-service');
  await expect(lab.verdict).toContainText('pod nettest');
  const dnat = lab.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' });
  await dnat.click();
  const at = await lab.stepIndex();
  await expect(lab.currentRow()).toContainText('DNAT');
  await expect(lab.packetDst).toHaveText(/^10\.244\.\d+\.\d+:80$/);
  await expect(lab.packetDst).toHaveClass(/changed/);
  await expect(lab.explain).toContainText('DNAT in nat');
  await lab.shot('05-dnat-step');
  await lab.step(-1);
  expect(await lab.stepIndex()).toBeLessThan(at);
  await expect(lab.packetDst).toHaveText('192.168.50.100:22');
  await lab.step(1);
  expect(await lab.stepIndex()).toBe(at);
  await expect(lab.packetDst).toHaveText(/^10\.244\./);
  // The routing decision right after: forwarded, and the lesson says why sshd never sees it.
  await lab.step(1);
  await expect(lab.page.getByTestId('step-insight')).toContainText('sshd in INPUT never sees it');
  await lab.shot('06-route-forward-insight');
  await lab.page.getByTestId('ctl-reply').click();
  await expect(lab.page.getByTestId('packet-label')).toContainText('reply');
  await lab.shot('07-reply');
});

test('edits survive a reload, and reset brings the original back', async ({ lab }) => {
  await lab.open();
  await lab.appendManifests(LB_SERVICE);
  await expect(lab.verdict).toContainText('pod nettest', { timeout: 10_000 });
  await lab.page.reload();
  await expect(lab.verdict).toContainText('pod nettest', { timeout: 10_000 });
  expect(await lab.manifests()).toContain('lb-port22-test');
  await lab.shot('08-reload-kept');
  lab.page.once('dialog', (d) => void d.accept());
  await lab.page.getByTestId('editor-reset').click();
  await expect(lab.verdict).toContainText('sshd', { timeout: 10_000 });
  expect(await lab.manifests()).not.toContain('lb-port22-test');
});

test('a share link restores the scenario, the edit and the exact step', async ({
  lab,
  browser,
}) => {
  await lab.open();
  await lab.variant('lb-service');
  await lab.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).click();
  const at = await lab.stepIndex();
  await lab.page.getByTestId('share').click();
  const url = lab.page.url();
  expect(url).toContain('#lab=');
  const fresh = await freshPage(browser);
  const other = fresh.page;
  await other.goto(url);
  await expect(other.getByTestId('verdict')).toContainText('pod nettest');
  await expect(other.getByTestId('diagram-svg')).toHaveAttribute('data-step', String(at));
  await expect(other.getByTestId('packet-dst')).toHaveText(/^10\.244\./);
  await fresh.check();
});

test('Chinese, dark theme, and a drop with the end mark', async ({ lab }) => {
  await lab.open();
  await lab.page.getByTestId('lang').selectOption('zh');
  await lab.page.getByTestId('theme').click();
  await lab.variant('etp-local');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'timeout');
  await expect(lab.verdict).toContainText('没有应答');
  await lab.page.getByTestId('ctl-end').click();
  await expect(lab.diagram.getByTestId('end-mark')).toBeVisible();
  await lab.shot('09-zh-dark-timeout');
});

test('embed layout and tablet width', async ({ lab }) => {
  await lab.page.setViewportSize({ width: 820, height: 1180 });
  await lab.open('embed');
  await expect(lab.page.getByTestId('open-full')).toBeVisible();
  await expect(lab.page.getByTestId('trace-panel')).toHaveCount(0);
  await lab.shot('10-embed-tablet');
});

test('Monaco loads lazily and shows the lab diagnostics as markers', async ({ lab }) => {
  await lab.open('');
  const monaco = lab.page.locator('.monaco-editor');
  await expect(monaco).toBeVisible({ timeout: 15_000 });
  await monaco.click();
  await lab.page.keyboard.press('Control+End');
  await lab.page.keyboard.type('\nspec: [');
  const diag = lab.page.getByTestId('diagnostic').first();
  await expect(diag).toBeVisible({ timeout: 10_000 });
  // Clicking the problem reveals its line; Monaco draws the marker there.
  await diag.getByRole('button').click();
  await expect(lab.page.locator('.monaco-editor .squiggly-error').first()).toBeVisible();
  await lab.shot('11-monaco-marker');
});
