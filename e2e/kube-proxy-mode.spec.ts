/**
 * The kube-proxy mode switch (issue #10): a scenario with kubeProxyModes runs in nftables mode,
 * the rules panel shows kube-proxy's nft table with the current rule highlighted, and the mode
 * stays in share links, embed addresses, readable links and across a reload. Axe clean; the
 * console guard of the fixture holds the console clean.
 */
import { mkdirSync } from 'node:fs';
import { inflateSync, strFromU8 } from 'fflate';
import { expect, test, SCREENS } from './fixtures/lab.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce', locale: 'en-US' });

const VIP = 'scenario=vip22-sshd-or-service&variant=lb-service';

/** The doc a `#lab=` share link carries, as share.ts writes it (deflated JSON, base64url). */
function shared(url: string): Record<string, unknown> {
  const hash = new URL(url).hash.replace(/^#lab=/, '');
  const bin = Buffer.from(hash.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return JSON.parse(strFromU8(inflateSync(new Uint8Array(bin)))) as Record<string, unknown>;
}

test('nftables mode: the nft table in the rules panel, kept in links and a reload', async ({
  lab,
}) => {
  test.setTimeout(120_000);
  const page = lab.page;
  const answers = () => page.evaluate(() => performance.getEntriesByName('hookpath:result').length);
  await lab.open(`editor=plain&${VIP}`);
  const picker = page.getByTestId('mode-picker');
  await expect(picker).toHaveValue('iptables');
  await expect(picker.locator('option')).toHaveText(['iptables mode', 'nftables mode']);
  const rows = page.locator('[data-testid^=trace-row-]');
  await expect(rows.filter({ hasText: '-j DNAT' }).first()).toBeVisible();
  await expect(page.getByTestId('rules-nft')).toHaveCount(0);

  const before = await answers();
  await picker.selectOption('nftables');
  await expect.poll(answers).toBeGreaterThan(before);
  // The same path in the other mode: still the pod behind the Service.
  await expect(lab.verdict).toContainText('pod nettest');
  await rows.filter({ hasText: 'dnat to 10.244.1.10:80' }).first().click();
  await expect(
    rows.filter({ hasText: 'ip kube-proxy nat-prerouting (type nat, priority -100)' }),
  ).not.toHaveCount(0);

  const nft = page.getByTestId('rules-nft');
  await expect(nft).toBeVisible();
  await expect(nft).toContainText('add table ip kube-proxy');
  const current = nft.locator('.rule-line.current');
  await expect(current).toHaveCount(1);
  await expect(current).toContainText('dnat to 10.244.1.10:80');
  await expect(current).toBeInViewport();
  expect(await nft.locator('.rule-line.matched').count()).toBeGreaterThan(3);
  mkdirSync(SCREENS, { recursive: true });
  await lab.shot('kube-proxy-mode-nftables');
  await page
    .getByTestId('rules-panel')
    .screenshot({ path: `${SCREENS}/kube-proxy-mode-rules.png` });
  await expectAxeClean(page, 'nftables mode, rules panel');

  // A plain reload comes back in the same mode (the last place remembers it).
  await page.goto('/?editor=plain');
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(picker).toHaveValue('nftables');
  await expect(page.getByTestId('rules-nft')).toBeVisible();

  // The share link carries it, and opening it (a reload of that address) keeps it.
  await page.getByTestId('share').click();
  expect(shared(page.url()).mo).toBe('nftables');
  await page.reload();
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(picker).toHaveValue('nftables');

  // The embed snippet says it in readable parameters.
  await page.getByTestId('embed-button').click();
  await expect(page.getByTestId('embed-snippet')).toHaveValue(/[?;]mode=nftables&amp;embed=1/);
});

test('mode= in the address opens in that mode; a value the lab cannot use is said', async ({
  lab,
}) => {
  test.setTimeout(120_000);
  const page = lab.page;
  await lab.open(`editor=plain&${VIP}&mode=nftables&step=end`);
  await expect(page.getByTestId('mode-picker')).toHaveValue('nftables');
  await expect(page.getByTestId('rules-nft').locator('.rule-line.matched')).not.toHaveCount(0);
  await page.reload();
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(page.getByTestId('mode-picker')).toHaveValue('nftables');

  await lab.open(`editor=plain&${VIP}&mode=nft`);
  await expect(page.getByTestId('param-note')).toContainText('mode=nft');
  await expect(page.getByTestId('mode-picker')).toHaveValue('iptables');
  await lab.open(`editor=plain&scenario=ipvs-local-lb-from-inside&mode=nftables`);
  await expect(page.getByTestId('param-note')).toContainText('mode=nftables');
  await expect(page.getByTestId('mode-picker')).toHaveCount(0);
  await expectAxeClean(page, 'a mode note');
});
