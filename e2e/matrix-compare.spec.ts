/**
 * The Matrix view (every sender × destination, a cell opens its trace) and Compare side by side
 * (one step control for two diagrams, the step where the paths part, share link round trip), by
 * mouse and by keyboard alone, axe clean, with screenshots at 1280x720 and 1920x1080.
 */
import { expect, freshPage, test, type LabPage } from './fixtures/lab.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';
import { tabTo } from './fixtures/keyboard.ts';

test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce' });

const NODEPORT = 'scenario=nodeport-close-on-core-nodes';
const CORE = 'from=client/external&to=nodeport/web@core-1';

async function matrixDone(lab: LabPage): Promise<void> {
  await expect(lab.page.getByTestId('matrix')).toHaveAttribute('data-status', 'done', {
    timeout: 20_000,
  });
}

const cell = (lab: LabPage, from: string, to: string) => lab.page.getByTestId(`cell-${from}>${to}`);

/** Opens the lab and waits for its first answer (longer than the fixture: two workers start). */
async function open(lab: LabPage, query: string): Promise<void> {
  await lab.page.goto(`/?${query}`);
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/, { timeout: 20_000 });
}

/** The lab's own diagram (when comparing, the compared pane has one too). */
const mainSvg = (lab: LabPage) =>
  lab.page.locator('.lab-stage > [data-testid=diagram] [data-testid=diagram-svg]');

test('the matrix: the seeds’ cells with their expectations; a cell opens its trace', async ({
  lab,
}) => {
  test.setTimeout(120_000);
  await open(lab, `${NODEPORT}&variant=a-etp-local&editor=plain`);
  await lab.page.getByTestId('view-matrix').click();
  await matrixDone(lab);
  await expect(lab.page.getByTestId('matrix-status')).toContainText('7 senders × 7 destinations');
  const core = cell(lab, 'client/external', 'nodeport/web@core-1');
  await expect(core).toHaveAttribute('data-outcome', 'timeout');
  await expect(core).toHaveAttribute('data-matches', 'true');
  // Never colour alone: the word and the mark are in the cell.
  await expect(core).toContainText('timeout');
  await expect(core).toContainText('✓');
  const edge = cell(lab, 'client/external', 'nodeport/web@edge-1');
  await expect(edge).toHaveAttribute('data-outcome', 'answered');
  await expect(edge).toContainText('web ×2');
  // 127.0.0.1:30080 only from the nodes themselves.
  await expect(cell(lab, 'node/core-1', 'localhost-nodeport/web@core-1')).toHaveAttribute(
    'data-matches',
    'true',
  );
  await expect(cell(lab, 'client/external', 'localhost-nodeport/web@core-1')).toHaveCount(0);
  // The detail of a cell: who answered, the source seen, the expectation.
  await edge.hover();
  const detail = lab.page.getByTestId('matrix-detail');
  await expect(detail).toContainText('source seen 192.168.10.50 (client/external)');
  await expect(detail).toContainText('expected: answered by pod/web, src seen client/external');
  await lab.shot('matrix-1280-light-en');
  await expectAxeClean(lab.page, 'matrix view, light, en');

  await core.click();
  await expect(lab.page.getByTestId('view-diagram')).toHaveAttribute('aria-pressed', 'true');
  await expect(lab.diagram).toBeVisible();
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'timeout');
  await expect(lab.packetDst).toHaveText('192.168.10.11:30080');
  await lab.page.getByTestId('ctl-end').click();
  await expect(lab.page.getByTestId('diagram-svg')).toHaveAttribute('data-host', 'core-1');
});

test('the matrix by keyboard alone: switch, arrows between cells, Enter traces', async ({
  lab,
}) => {
  await open(lab, `${NODEPORT}&variant=b-nodeport-addresses&editor=plain`);
  await tabTo(lab.page, 'view-matrix');
  await lab.page.keyboard.press('Enter');
  await matrixDone(lab);
  await tabTo(lab.page, 'cell-client/external>svc/web:8080');
  await lab.page.keyboard.press('ArrowRight');
  const core = 'cell-client/external>nodeport/web@core-1';
  await expect(lab.page.getByTestId(core)).toBeFocused();
  await expect(lab.page.getByTestId('matrix-detail')).toContainText('refused');
  await lab.page.keyboard.press('ArrowDown');
  await expect(lab.page.getByTestId('cell-pod/pod-a>nodeport/web@core-1')).toBeFocused();
  await lab.page.keyboard.press('ArrowUp');
  await lab.page.keyboard.press('Enter');
  // The trace is on screen, and the focus is on the switch, not lost.
  await expect(lab.page.getByTestId('view-diagram')).toBeFocused();
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'refused');
  await expect(lab.packetDst).toHaveText('192.168.10.11:30080');
});

test('compare Cluster with Local: one step control, the divergence named, a share link round trip', async ({
  lab,
  browser,
}) => {
  test.setTimeout(150_000);
  await open(lab, `${NODEPORT}&variant=open&${CORE}&editor=plain`);
  await lab.page.getByTestId('compare-picker').selectOption('a-etp-local');
  const head = lab.page.getByTestId('compare-head');
  await expect(head).toHaveAttribute('data-status', 'ready', { timeout: 20_000 });
  await expect(lab.page.getByTestId('compare-pane')).toBeVisible();
  const a = lab.page.getByTestId('divergence-a');
  const b = lab.page.getByTestId('divergence-b');
  await expect(a).toContainText('JUMP KUBE-MARK-MASQ');
  await expect(a).toContainText('MASQUERADE (nat KUBE-POSTROUTING');
  await expect(b).toContainText('DROP (filter KUBE-EXTERNAL-SERVICES, core-1)');

  // Before the divergence both sides take the same steps: the pane stands where the lab stands.
  const paneStep = lab.page.getByTestId('compare-step');
  const step = mainSvg(lab);
  for (let i = 0; i < 3; i++) {
    await lab.step(1);
    await expect(paneStep).toHaveAttribute(
      'data-step',
      (await step.getAttribute('data-step')) ?? '',
    );
  }
  await lab.page.getByTestId('go-divergence').click();
  await expect(head).toHaveClass(/at-divergence/);
  await expect(lab.page.getByTestId('compare-divergence')).toContainText('the paths part here');
  const at = await step.getAttribute('data-step');
  await lab.shot('compare-1280-light-en');
  await expectAxeClean(lab.page, 'compare at the divergence, light, en');
  // Past the divergence the lab goes on; the compared side has ended at its drop.
  await lab.page.getByTestId('ctl-end').click();
  await expect(head).not.toHaveClass(/at-divergence/);

  // The matrix marks the cells that differ in the compared variant.
  await lab.page.getByTestId('view-matrix').click();
  await matrixDone(lab);
  await expect(lab.page.getByTestId('matrix-differs')).toContainText(/\d+ cells differ in A\./, {
    timeout: 20_000,
  });
  await expect(cell(lab, 'client/external', 'nodeport/web@core-1')).toHaveAttribute(
    'data-differs',
    'true',
  );
  await expect(cell(lab, 'client/external', 'nodeport/web@core-1')).toContainText('≠');
  await expect(cell(lab, 'pod/pod-a', 'pod/pod-b:8080')).not.toHaveAttribute(
    'data-differs',
    'true',
  );
  await lab.shot('compare-matrix-1280-light-en');
  await lab.page.getByTestId('view-diagram').click();
  await lab.page.getByTestId('go-divergence').click();
  await expect(step).toHaveAttribute('data-step', at ?? '');

  // Share: another browser opens the same comparison at the same step.
  await lab.page.getByTestId('share').click();
  const url = lab.page.url();
  expect(url).toContain('#lab=');
  const fresh = await freshPage(browser, { width: 1280, height: 720 });
  await fresh.page.goto(url);
  await expect(fresh.page.getByTestId('verdict')).toHaveAttribute('data-outcome', /.+/, {
    timeout: 20_000,
  });
  await expect(fresh.page.getByTestId('compare-picker')).toHaveValue('a-etp-local');
  await expect(fresh.page.getByTestId('compare-head')).toHaveClass(/at-divergence/, {
    timeout: 20_000,
  });
  await expect(
    fresh.page.locator('.lab-stage > [data-testid=diagram] [data-testid=diagram-svg]'),
  ).toHaveAttribute('data-step', at ?? '');
  await fresh.check();
});

test('compare= and view= by hand; the edit against the scenario as published', async ({ lab }) => {
  test.setTimeout(90_000);
  await open(lab, `${NODEPORT}&variant=a-etp-local&compare=open&view=matrix&editor=plain`);
  await matrixDone(lab);
  await expect(lab.page.getByTestId('compare-picker')).toHaveValue('open');
  await expect(lab.page.getByTestId('matrix-differs')).toBeVisible({ timeout: 20_000 });
  await lab.page.getByTestId('view-diagram').click();
  await lab.page.getByTestId('compare-picker').selectOption('original');
  // Unedited: the same path, step for step.
  await expect(lab.page.getByTestId('compare-divergence')).toContainText('Same path', {
    timeout: 20_000,
  });
  // The edit: back to the default policy; the Local side is now the published one.
  await lab.setManifests((await lab.manifests()).replace(/^ *externalTrafficPolicy: Local\n/m, ''));
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'answered', { timeout: 20_000 });
  await expect(lab.page.getByTestId('divergence-b')).toContainText('KUBE-EXTERNAL-SERVICES', {
    timeout: 20_000,
  });
  await expect(lab.page.getByTestId('compare-head')).toContainText('Your edit');
});

for (const [w, h] of [
  [1280, 720],
  [1920, 1080],
] as const)
  for (const theme of ['light', 'dark'] as const)
    for (const lang of ['en', 'zh'] as const)
      // axe at the projector size, where the layout is tightest; screenshots at both sizes.
      test(`screens${w === 1280 ? ' and axe' : ''}: ${w}x${h}, ${theme}, ${lang}`, async ({
        lab,
      }) => {
        test.setTimeout(240_000);
        const axe = w === 1280;
        await lab.page.setViewportSize({ width: w, height: h });
        await open(
          lab,
          `${NODEPORT}&variant=open&${CORE}&compare=a-etp-local&theme=${theme}&lang=${lang}&editor=plain`,
        );
        await expect(lab.page.getByTestId('compare-head')).toHaveAttribute('data-status', 'ready', {
          timeout: 20_000,
        });
        await lab.page.getByTestId('go-divergence').click();
        await expect(lab.page.getByTestId('compare-head')).toHaveClass(/at-divergence/);
        await lab.shot(`compare-${w}-${theme}-${lang}`);
        if (axe) await expectAxeClean(lab.page, `compare ${w} ${theme} ${lang}`);
        await lab.page.getByTestId('view-matrix').click();
        await matrixDone(lab);
        await expect(lab.page.getByTestId('matrix-differs')).toBeVisible({ timeout: 20_000 });
        await cell(lab, 'client/external', 'nodeport/web@core-1').hover();
        await lab.shot(`matrix-${w}-${theme}-${lang}`);
        if (axe) await expectAxeClean(lab.page, `matrix ${w} ${theme} ${lang}`);
      });

test('the matrix in the lab’s kube-proxy mode; compare the same probe in another mode', async ({
  lab,
}) => {
  test.setTimeout(150_000);
  await open(lab, `${NODEPORT}&variant=a-etp-local&${CORE}&editor=plain`);
  await lab.page.getByTestId('view-matrix').click();
  await matrixDone(lab);
  const core = cell(lab, 'client/external', 'nodeport/web@core-1');
  const detail = lab.page.getByTestId('matrix-detail');
  await core.hover();
  await expect(detail).toContainText('filter:KUBE-EXTERNAL-SERVICES');
  // The mode switch reruns the matrix: nftables drops in kube-proxy's own table.
  await lab.page.getByTestId('mode-picker').selectOption('nftables');
  await matrixDone(lab);
  await lab.page.getByTestId('matrix-status').hover();
  await core.hover();
  await expect(detail).toContainText('ip kube-proxy nodeport-endpoints-check');
  await expect(core).toHaveAttribute('data-matches', 'true');
  // Compare with iptables mode: the same variant and probe, the other mode in the pane.
  const picker = lab.page.getByTestId('compare-picker');
  await expect(picker.locator('option[value="mode:iptables"]')).toHaveText(
    'Compare with: the same probe in iptables mode',
  );
  await expect(picker.locator('option[value="mode:nftables"]')).toHaveCount(0);
  await picker.selectOption('mode:iptables');
  await lab.page.getByTestId('view-diagram').click();
  const head = lab.page.getByTestId('compare-head');
  await expect(head).toHaveAttribute('data-status', 'ready', { timeout: 20_000 });
  await expect(head).toContainText('nftables mode');
  await expect(head).toContainText('iptables mode');
  await expect(lab.page.getByTestId('divergence-b')).toContainText('KUBE-EXTERNAL-SERVICES');
  await lab.shot('compare-modes-1280-light-en');
  await expectAxeClean(lab.page, 'compare two kube-proxy modes, light, en');
});
