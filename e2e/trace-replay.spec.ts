/**
 * "Replay a real trace" (issue #14 §4): a trace captured on the real kernel for the lab's own
 * probe (src/cluster/testing/trace-fixtures) pasted into the panel agrees with the simulation
 * row by row; a copy edited at one rule shows the first disagreement at that row, says so in one
 * sentence, and picking a row moves the lab to that step. The text survives a reload. Keyboard
 * usable, axe clean, in English and Chinese; screenshots at 1280x720 and 1920x1080.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test, SCREENS } from './fixtures/lab.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce', locale: 'en-US' });

const FIXTURES = join(import.meta.dirname, '../src/cluster/testing/trace-fixtures');
const fixture = (f: string) => readFileSync(join(FIXTURES, f), 'utf8');
const VIP = 'editor=plain&scenario=vip22-sshd-or-service&variant=lb-service';

/** lab.open with room for a loaded machine: the first answer may take longer than 5 s. */
async function open(page: Page, query: string): Promise<void> {
  await page.goto(`/?${query}`);
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-outcome', /.+/, {
    timeout: 30_000,
  });
}

/** The vip22 lab with the replay panel open: its text box and its verdict. */
async function openReplay(page: Page) {
  await open(page, VIP);
  await page.getByTestId('replay-toggle').click();
  return { input: page.getByTestId('replay-input'), verdict: page.getByTestId('replay-verdict') };
}

test('a real xtables-monitor trace agrees; an edited one disagrees at the edited rule', async ({
  lab,
}) => {
  test.setTimeout(240_000);
  const page = lab.page;
  const { input, verdict } = await openReplay(page);
  await input.fill(fixture('vip22-lb-service.xtables.txt'));
  await expect(verdict).toContainText('agrees with the lab');
  await expect(verdict).toContainText('on cp-1, packet 1');
  await expect(page.getByTestId('replay-read')).toContainText(
    'Read as xtables-monitor --trace: 2 packets ran a rule.',
  );
  await expect(page.locator('.replay-table tr.disagree')).toHaveCount(0);
  mkdirSync(SCREENS, { recursive: true });
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-agrees-1280');
  await expectAxeClean(page, 'replay panel, agreeing trace');

  await input.fill(fixture('vip22-lb-service.edited.xtables.txt'));
  await expect(verdict).toContainText(
    'First disagreement, row 9: in nat KUBE-SVC-LLAB3WV3ANBXYNCK the kernel’s rule gave “jump KUBE-SEP-OTHERPOD0000000”, the lab’s “jump KUBE-SEP-J4NUN26B4NBMR2RL”.',
  );
  const first = page.locator('.replay-table tr.first');
  await expect(first).toHaveCount(1);
  await expect(first).toHaveAttribute('data-testid', 'replay-row-8');
  await expect(first).toContainText('10: nat KUBE-SVC-LLAB3WV3ANBXYNCK rule 0x25');
  await expect(first).toContainText('rule @2 · jump KUBE-SEP-J4NUN26B4NBMR2RL');
  // The rows scroll inside the panel so the edited one is shown, once the panel is on screen.
  await page.getByTestId('replay-rows').scrollIntoViewIfNeeded();
  await expect(first).toBeInViewport();
  await lab.shot('trace-replay-disagrees-1280');
  await expectAxeClean(page, 'replay panel, disagreeing trace');

  // By keyboard: "Show that row" focuses the row's button; Enter moves the lab to its step.
  await verdict.getByRole('button', { name: 'Show that row' }).click();
  const go = first.getByRole('button', { name: 'Show step 9 in the lab' });
  await expect(go).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(lab.explain).toContainText('KUBE-SVC-LLAB3WV3ANBXYNCK');

  // Kept across a reload, panel closed: open it again and the text is there.
  await page.reload();
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/, { timeout: 30_000 });
  await page.getByTestId('replay-toggle').click();
  await expect(page.getByTestId('replay-input')).toHaveValue(/KUBE-SEP-OTHERPOD0000000/);
  await expect(page.locator('.replay-table tr.first')).toHaveCount(1);

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-disagrees-1920');
});

test('nft monitor trace: a missing rule, several packets to pick from, and Chinese', async ({
  lab,
}) => {
  test.setTimeout(240_000);
  const page = lab.page;
  await open(
    page,
    'editor=plain&scenario=internal-traffic-policy-local&variant=agent-everywhere&mode=nftables&lang=zh',
  );
  await page.getByTestId('replay-toggle').click();
  await page.getByTestId('replay-input').fill(fixture('itp-local-app-1.edited.nft.txt'));
  const verdict = page.getByTestId('replay-verdict');
  await expect(verdict).toContainText('第一处不一致');
  await expect(verdict).toContainText('kube-proxy masquerading');
  const first = page.locator('.replay-table tr.first');
  await expect(first).toContainText('handle 28');
  // The answer (SYN-ACK) is the other packet of the trace: it agrees.
  await page.getByTestId('replay-packet').selectOption({ index: 1 });
  await expect(verdict).toContainText('真实跟踪与实验一致');
  await expect(verdict).toContainText('第 2 个数据包');
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-nft-zh-1280');
  await expectAxeClean(page, 'replay panel in Chinese');

  // Not a trace at all: one message saying what to paste, the lab stays as it was.
  await page.getByTestId('replay-input').fill('PACKET: oops\nhello');
  await expect(page.getByTestId('replay-errors')).toContainText(
    '第 1 行第 9 列：PACKET: 后面应是协议族编号和十六进制跟踪 id',
  );
});

const EBPF = join(import.meta.dirname, '../src/cluster/testing/ebpf-fixtures');
const ebpf = (f: string) => readFileSync(join(EBPF, f), 'utf8');

test('Retis events align rule by rule; pwru at the hooks, saying it cannot show rules', async ({
  lab,
}) => {
  test.setTimeout(240_000);
  const page = lab.page;
  const { input, verdict } = await openReplay(page);
  await input.fill(ebpf('vip22-lb-service.edited.retis.json'));
  await expect(page.getByTestId('replay-read')).toContainText(
    'Read as Retis events: 1 packet ran a rule.',
  );
  await expect(verdict).toContainText(
    'First disagreement, row 7: in nat KUBE-SVC-LLAB3WV3ANBXYNCK the kernel’s rule gave “jump KUBE-SEP-OTHERPOD0000000”, the lab’s “jump KUBE-SEP-J4NUN26B4NBMR2RL”.',
  );
  const first = page.locator('.replay-table tr.first');
  await expect(first).toHaveAttribute('data-testid', 'replay-row-6');
  await expect(first).toContainText('nat KUBE-SVC-LLAB3WV3ANBXYNCK handle 37');
  await expect(page.locator('.replay-table tbody tr')).toHaveCount(15);
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-retis-1280');
  await expectAxeClean(page, 'replay panel, Retis trace');

  await input.fill(ebpf('vip22-lb-service.retis.json'));
  await expect(verdict).toContainText('agrees with the lab: 13 steps alike on cp-1, packet 1');

  await input.fill(ebpf('vip22-lb-service.dropped.pwru.txt'));
  await expect(page.getByTestId('replay-coarse')).toContainText('not rules');
  await expect(verdict).toContainText(
    'First disagreement, row 4: the kernel dropped the packet here (NETFILTER_DROP); the lab did not.',
  );
  await expect(page.locator('.replay-table tr.first')).toContainText(
    '15: dropped (NETFILTER_DROP): kfree_skb_reason',
  );
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-pwru-1280');
  await expectAxeClean(page, 'replay panel, pwru trace');

  // In Chinese, the pasted trace kept across the reload.
  await open(page, `${VIP}&lang=zh`);
  await page.getByTestId('replay-toggle').click();
  await expect(page.getByTestId('replay-coarse')).toContainText('而不是规则');
  await expect(verdict).toContainText(
    '第一处不一致，第 4 行：内核在这里丢弃了数据包（NETFILTER_DROP）',
  );
  await page.getByTestId('trace-panel').scrollIntoViewIfNeeded();
  await lab.shot('trace-replay-pwru-zh-1280');
  await expectAxeClean(page, 'replay panel, pwru trace in Chinese');
});
