/**
 * The diagram, read as a student on a 1280x720 projector would: the camera follows the packet
 * at a size people can read, the packet label never hides the hook being explained, conntrack
 * is on the map, and the current step can be exported.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type LabPage } from './fixtures/lab.fixture.ts';
import { DiagramView, inside, overlapArea, SUBPIXEL, type Frame } from './fixtures/diagram.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ locale: 'en-US' });

/** Every frame of a walk, checked: readable labels, the packet label clear of the hook and inside. */
function checkFrames(frames: readonly Frame[], minPx: number): number {
  let smallest = Infinity;
  for (const f of frames) {
    expect(f.camera, `step ${f.step}`).toBe('follow');
    for (const l of f.labels) {
      expect(l.h, `step ${f.step} ${f.host} "${l.text}"`).toBeGreaterThanOrEqual(minPx - SUBPIXEL);
      smallest = Math.min(smallest, l.h);
    }
    if (f.token) {
      expect(inside(f.token, f.panel), `step ${f.step}: label inside the panel`).toBe(true);
      if (f.hook) expect(overlapArea(f.token, f.hook), `step ${f.step}: label on the hook`).toBe(0);
    }
    if (f.hud && f.hook)
      expect(overlapArea(f.hud, f.hook), `step ${f.step}: header on hook`).toBe(0);
  }
  return smallest;
}

async function open(lab: LabPage, scenario: string, variant: string | null): Promise<DiagramView> {
  await lab.page.emulateMedia({ reducedMotion: 'reduce' });
  await lab.open(`editor=plain&scenario=${scenario}`);
  if (variant) await lab.variant(variant);
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/);
  await expect(lab.page.getByTestId('editor-plain')).toBeVisible();
  return new DiagramView(lab.page);
}

for (const [w, h, min] of [
  [1280, 720, 12],
  [1920, 1080, 14],
] as const)
  test(`follow mode at ${w}x${h}, editor open: every hook and table label of the focused host ≥ ${min} px`, async ({
    lab,
  }) => {
    await lab.page.setViewportSize({ width: w, height: h });
    const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
    const frames = await d.walk();
    // The request and the reply cross three hosts; cp-1 and worker-1 show their pipelines.
    const hosts = new Set(frames.filter((f) => f.labels.length).map((f) => f.host));
    expect([...hosts].sort()).toEqual(['cp-1', 'worker-1']);
    const smallest = checkFrames(frames, min);
    console.log(`vip22 lb-service at ${w}x${h}: smallest label ${smallest.toFixed(1)} px`);
  });

test('three nodes, nine pods: the focused node is as readable, the label never cut at the edge', async ({
  lab,
}) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  const d = await open(lab, 'topology-aware-routing', 'nine-pods');
  const smallest = checkFrames(await d.walk(), 12);
  console.log(`topology nine-pods at 1280x720: smallest label ${smallest.toFixed(1)} px`);
  // ECMP: the router sits at the left edge of the drawing; its label stays in the panel.
  const e = await open(lab, 'etp-local-load-balancer-split', 'cluster-bgp');
  checkFrames(await e.walk(), 12);
});

test('overview and mini-map; a manual zoom stops following until Follow is pressed', async ({
  lab,
}) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  await expect(d.follow).toHaveAttribute('aria-pressed', 'true');
  await expect(d.minimap).toBeVisible();
  await expect(d.minimap.locator('rect.mm-host.active')).toHaveCount(1);
  // The mini-map opens the whole cluster: every host inside the panel.
  await d.minimap.click();
  await expect(d.panel).toHaveAttribute('data-camera', 'overview');
  await expect(d.overview).toHaveAttribute('aria-pressed', 'true');
  await expect(d.minimap).toBeHidden();
  const panel = (await d.panel.boundingBox())!;
  for (const host of await d.svg.locator('g.host > rect.host-box').all()) {
    const b = (await host.boundingBox())!;
    expect(
      inside(
        { x: b.x, y: b.y, w: b.width, h: b.height },
        { ...panel, w: panel.width, h: panel.height },
      ),
    ).toBe(true);
  }
  // F follows again: the focused host fills the frame.
  await lab.page.keyboard.press('f');
  await expect(d.panel).toHaveAttribute('data-camera', 'follow');

  // The wheel zooms by hand: following stops, the view stays put while the packet moves on.
  const box = (await d.svg.boundingBox())!;
  await lab.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await lab.page.mouse.wheel(0, 300);
  await expect(d.panel).toHaveAttribute('data-camera', 'free');
  await expect(d.follow).toHaveAttribute('aria-pressed', 'false');
  const held = await d.transform();
  const host = await d.svg.getAttribute('data-host');
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < 40 && (await d.svg.getAttribute('data-host')) === host; i++)
    await lab.page.keyboard.press('ArrowRight');
  expect(await d.svg.getAttribute('data-host')).not.toBe(host);
  await d.paint();
  expect(await d.transform()).toBe(held);
  // The Follow control brings the camera back to the packet's host.
  await d.follow.click();
  await expect(d.panel).toHaveAttribute('data-camera', 'follow');
  await d.paint();
  expect(await d.transform()).not.toBe(held);
  const f = await d.frame();
  expect(f.labels.length).toBeGreaterThan(0);
  for (const l of f.labels) expect(l.h).toBeGreaterThanOrEqual(12 - SUBPIXEL);
  // The zoom buttons count as a manual zoom too.
  await lab.page.getByTestId('zoom-in').click();
  await expect(d.panel).toHaveAttribute('data-camera', 'free');
});

test('conntrack: looked up after raw, the entry with its DNAT, confirmed, then undoing the rewrite on the reply', async ({
  lab,
}) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  const rows = lab.page.locator('[data-testid^=trace-row-]');
  const cp1 = d.ctBox('cp-1');
  // The lookup: first packet of a new connection, on the conntrack row after raw.
  await rows.filter({ hasText: 'new NEW #1' }).first().click();
  await expect(d.row('cp-1', 'PREROUTING', 'conntrack')).toHaveClass(/current/);
  await expect(d.row('cp-1', 'PREROUTING', 'conntrack').locator('.strip-badge')).toHaveText('#1 →');
  await expect(cp1).toContainText('#1 NEW');
  await expect(cp1).toContainText('unconfirmed, on the packet');
  await expect(cp1).toContainText('192.168.50.10:40000 → 192.168.50.100:22');
  // The DNAT rule binds the mapping in the entry: the reply is expected from the pod.
  await rows.filter({ hasText: '-j DNAT' }).first().click();
  await expect(cp1.locator('.ct-reply')).toHaveClass(/hl/);
  await expect(cp1.locator('.ct-reply')).toContainText(
    /^10\.244\.\d+\.\d+:80 → 192\.168\.50\.10:40000/,
  );
  await expect(cp1.locator('.ct-dnat')).toContainText(/DNAT ⇒ dst 10\.244\./);
  // Confirm, after POSTROUTING: the entry enters the table.
  await rows.filter({ hasText: 'confirm NEW #1' }).first().click();
  await expect(d.row('cp-1', 'POSTROUTING', 'confirm')).toHaveClass(/current/);
  await expect(cp1).toContainText('in the table ✓');
  await expect(cp1.locator('.ct-dnat')).toBeVisible();
  await expect(cp1.locator('.ct-snat')).toContainText('SNAT ⇒ src 192.168.50.38');
  // The reply on cp-1: the entry turns the pod's address back into the VIP.
  await rows.filter({ hasText: 'nat ESTABLISHED #1' }).last().click();
  await expect(d.row('cp-1', 'POSTROUTING', 'nat')).toHaveClass(/current/);
  await expect(cp1).toContainText('#1 ESTABLISHED');
  await expect(cp1.locator('.ct-dnat')).toContainText('↩ DNAT: src ⇒ 192.168.50.100:22');
  await expect(cp1.locator('.ct-dnat')).toHaveClass(/hl/);
  await expect(lab.page.getByTestId('packet-src')).toHaveText('192.168.50.100:22');
  await expect(lab.page.getByTestId('packet-src')).toHaveClass(/changed/);
  await lab.shot('diagram-ct-reply-undo');
});

test('the conntrack table lists the entries the probe created, host by host', async ({ lab }) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  const rows = lab.page.locator('[data-testid^=trace-row-]');
  await rows.filter({ hasText: '-j DNAT' }).first().click();
  await d.ctToggle.click();
  await expect(d.ctToggle).toHaveAttribute('aria-pressed', 'true');
  await expect(d.ctTable).toBeVisible();
  await expect(lab.page.getByTestId('ct-table-host')).toHaveValue('cp-1');
  const row = d.ctTable.getByTestId('ct-row-1');
  await expect(row).toContainText('tcp 192.168.50.10:40000 → 192.168.50.100:22');
  await expect(row).toContainText('DNAT');
  await expect(row).toContainText('not yet');
  // At the end, cp-1's entry is confirmed with both bindings, and worker-1 has its own.
  await lab.page.getByTestId('ctl-end').click();
  await expect(row).toContainText('ESTABLISHED');
  await expect(row).toContainText('DNAT + SNAT');
  await expect(row).toContainText(/yes, since step \d+/);
  await lab.page.getByTestId('ct-table-host').selectOption('worker-1');
  await expect(d.ctTable.getByTestId('ct-row-1')).toContainText('192.168.50.38');
  await lab.shot('diagram-ct-table');
  // C closes it (and opens it) from the keyboard.
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await lab.page.keyboard.press('c');
  await expect(d.ctTable).toHaveCount(0);
});

test('a screen reader hears what the tooltips say: hosts, addresses, listeners, the path', async ({
  lab,
}) => {
  await open(lab, 'vip22-sshd-or-service', 'lb-service');
  const svg = lab.page.getByTestId('diagram-svg');
  await expect(svg).toHaveAccessibleName(/packet’s path through the hosts/);
  await expect(svg).toHaveAccessibleDescription(/The diagram shows 5 hosts:/);
  await expect(svg).toHaveAccessibleDescription(
    /cp-1 \(node, control-plane\); 192\.168\.50\.38, 192\.168\.50\.100; interfaces eth0; listening: sshd :22, kube-proxy :10256; on the packet’s path\./,
  );
  await expect(svg).toHaveAccessibleDescription(/kong \(pod, kong-[a-z0-9-]+\); 10\.244\.1\.11;/);
  // The description stays out of sight.
  await expect(lab.page.getByTestId('diagram-description')).toHaveCSS('position', 'absolute');
  await lab.page.goto('/?scenario=vip22-sshd-or-service&variant=lb-service&lang=zh&editor=plain');
  await expect(svg).toHaveAccessibleDescription(/图中共有 5 台主机：/);
  await expect(svg).toHaveAccessibleDescription(
    /监听：sshd :22, kube-proxy :10256；在数据包的路径上。/,
  );
});

test('the legend says what rows, chips, lines and conntrack marks mean', async ({ lab }) => {
  const d = await open(lab, 'vip22-sshd-or-service', null);
  await d.legendToggle.click();
  await expect(d.legend).toBeVisible();
  for (const kind of [
    'table',
    'absent',
    'hit',
    'current',
    'badge',
    'ct',
    'ctbox',
    'reroute',
    'bridge',
    'ahead',
    'reply',
    'end',
  ])
    await expect(d.legend.locator(`[data-legend=${kind}]`)).toBeVisible();
  await expect(d.legend).toContainText('A Linux bridge (cni0)');
  await expect(d.legend).toContainText('Dashed: the path still ahead');
  await expect(d.legend).toContainText('conntrack: looked up after raw');
  await lab.shot('diagram-legend');
  await lab.page.keyboard.press('Escape');
  await expect(d.legend).toHaveCount(0);
  await expect(d.legendToggle).toBeFocused();
});

test('the step counter counts 1, 2, 3… what the user sees; Every rule adds the rules walked past', async ({
  lab,
}) => {
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const matched = (await d.counter()).total;
  // Each press moves the counter by exactly one, whatever the trace hides in between.
  for (let i = 1; i <= 25; i++) {
    await expect(d.stepCount).toHaveAttribute('data-n', String(i));
    await lab.page.keyboard.press('ArrowRight');
  }
  await expect(d.stepCount).toContainText(`Step 26 / ${matched}`);
  await lab.page.getByTestId('ctl-every-rule').check();
  await expect.poll(async () => (await d.counter()).total).toBeGreaterThan(matched);
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await lab.page.keyboard.press('Home');
  for (let i = 1; i <= 25; i++) {
    await expect(d.stepCount).toHaveAttribute('data-n', String(i));
    await lab.page.keyboard.press('ArrowRight');
  }
  // Rules that did not match are now steps of their own.
  await expect(lab.page.locator('[data-testid^=trace-row-].type-miss').first()).toBeVisible();
});

test('export: the current step as a self-contained SVG and as a PNG', async ({ lab }) => {
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  // Dark theme on screen: the file is still drawn for white paper.
  await lab.page.emulateMedia({ colorScheme: 'dark' });
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  await lab.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).first().click();
  await lab.page.getByTestId('export-toggle').click();
  const [svgFile] = await Promise.all([
    lab.page.waitForEvent('download'),
    lab.page.getByTestId('export-svg').click(),
  ]);
  expect(svgFile.suggestedFilename()).toMatch(
    /^hookpath-vip22-sshd-or-service-lb-service-step-\d+\.svg$/,
  );
  const svg = readFileSync((await svgFile.path())!, 'utf8');
  expect(svg).toMatch(/^<\?xml/);
  expect(svg).toContain('VIP:22: the host');
  expect(svg).toContain('Answered by pod nettest');
  expect(svg).toMatch(/REQUEST {2}tcp 192\.168\.50\.10:40000 → 10\.244\.\d+\.\d+:80/);
  expect(svg).toContain('PREROUTING');
  expect(svg).toContain('DNAT ⇒ dst 10.244.');
  // Self-contained: no classes, no CSS variables or color-mix, generic fonts, white paper.
  expect(svg).not.toMatch(/class=|var\(--|color-mix|color\(srgb/);
  expect(svg).toMatch(/font-family="monospace"/);
  expect(svg).toMatch(/font-family="sans-serif"/);
  expect(svg).not.toMatch(/font-family="(?!monospace|sans-serif)/);
  expect(svg).toContain('fill="#ffffff"');
  // Text is dark on the white page even though the screen shows the dark theme.
  expect(svg).toMatch(/<text[^>]*fill="rgb\(27, 34, 48\)"[^>]*>PREROUTING/);
  await d.paint();
  await lab.page.getByTestId('export-toggle').click();
  const [pngFile] = await Promise.all([
    lab.page.waitForEvent('download'),
    lab.page.getByTestId('export-png').click(),
  ]);
  expect(pngFile.suggestedFilename()).toMatch(/\.png$/);
  const png = readFileSync((await pngFile.path())!);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const svgW = Number(/<svg[^>]*\swidth="(\d+)"/.exec(svg)?.[1]);
  expect(width).toBe(svgW * 2);
  expect(height).toBeGreaterThan(400);
  expect(png.length).toBeGreaterThan(20_000);
});

test('reduced motion: steps jump, the token never glides', async ({ lab }) => {
  await lab.page.emulateMedia({ reducedMotion: 'reduce' });
  const d = await open(lab, 'vip22-sshd-or-service', 'lb-service');
  await lab.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  // Record every transform the token and the camera take during steps (one crosses a wire).
  const host0 = await d.svg.getAttribute('data-host');
  let crossed = false;
  for (let i = 0; i < 6; i++) {
    await lab.page.evaluate(() => {
      const w = window as unknown as { seen: Record<string, string[]> };
      w.seen = { token: [], camera: [] };
      for (const [k, sel] of [
        ['token', '[data-testid=packet-token]'],
        ['camera', 'g.viewport'],
      ] as const) {
        const t = document.querySelector(sel)!;
        new MutationObserver(() => w.seen[k]!.push(t.getAttribute('transform') ?? '')).observe(t, {
          attributes: true,
          attributeFilter: ['transform'],
        });
      }
    });
    await lab.page.keyboard.press('ArrowRight');
    await lab.page.waitForTimeout(450);
    const seen = await lab.page.evaluate(
      () => (window as unknown as { seen: Record<string, string[]> }).seen,
    );
    // A jump writes the final position once; a glide would write dozens of positions between.
    expect(new Set(seen.token).size, 'token positions').toBeLessThanOrEqual(1);
    expect(new Set(seen.camera).size, 'camera positions').toBeLessThanOrEqual(1);
    if ((await d.svg.getAttribute('data-host')) !== host0) crossed = true;
  }
  expect(crossed).toBe(true);
});

test('the diagram tools are reachable by Tab, with visible focus and names in English and Chinese', async ({
  lab,
}) => {
  await lab.open();
  const ids = [
    'camera-follow',
    'camera-overview',
    'zoom-out',
    'zoom-in',
    'ct-table-toggle',
    'legend-toggle',
    'export-toggle',
  ];
  await lab.page.getByTestId('path-custom-toggle').focus();
  const names: string[] = [];
  for (const id of ids) {
    await lab.page.keyboard.press('Tab');
    const el = lab.page.getByTestId(id);
    await expect(el).toBeFocused();
    const outline = await el.evaluate((e) => getComputedStyle(e).outlineStyle);
    expect(outline).not.toBe('none');
    names.push((await el.getAttribute('aria-label')) ?? '');
  }
  expect(names).toEqual([
    'Follow the packet',
    'Whole cluster',
    'Zoom out',
    'Zoom in',
    'Conntrack table',
    'Legend',
    'Export this step',
  ]);
  // Enter on Export opens the menu; its items are the next stops.
  await lab.page.keyboard.press('Enter');
  await lab.page.keyboard.press('Tab');
  await expect(lab.page.getByTestId('export-svg')).toBeFocused();
  await lab.page.keyboard.press('Escape');
  await lab.page.getByTestId('lang').selectOption('zh');
  await expect(lab.page.getByTestId('camera-follow')).toHaveAttribute('aria-label', '跟随数据包');
  await expect(lab.page.getByTestId('export-toggle')).toHaveAttribute('aria-label', '导出这一步');
  await expect(lab.page.getByTestId('minimap')).toHaveAttribute('aria-label', /小地图/);
});

test('a bridged pod network: cni0 drawn between the stack and the veths, its steps on it', async ({
  lab,
}) => {
  test.setTimeout(120_000);
  await lab.page.setViewportSize({ width: 1280, height: 720 });
  const d = await open(lab, 'bridge-pod-network', 'bridge-no-hairpin');
  const bridge = lab.diagram.getByTestId('bridge-cni0');
  await expect(bridge).toContainText('cni0 · bridge · 10.244.0.1');
  await expect(bridge).toContainText('br_netfilter on');
  await expect(bridge.locator('.bridge-hairpin.off')).toHaveCount(2);
  // The full story on hover: the ports and what hairpin and br_netfilter do.
  await expect(bridge.locator('title')).toContainText('veth');
  const smallest = checkFrames(await d.walk(), 12);
  console.log(`bridge-no-hairpin at 1280x720: smallest label ${smallest.toFixed(1)} px`);
  // The bridge's own steps put the packet on it: step 4, br_netfilter takes the client's frame.
  await lab.open('editor=plain&scenario=bridge-pod-network&step=4');
  await expect(lab.page.getByTestId('step-announce')).toContainText('br_netfilter');
  const box = await bridge.locator('rect.bridge-box').boundingBox();
  const dot = await lab.diagram.locator('.token-dot').boundingBox();
  expect(box && dot).toBeTruthy();
  if (box && dot) {
    const cy = dot.y + dot.height / 2;
    expect(cy).toBeGreaterThan(box.y);
    expect(cy).toBeLessThan(box.y + box.height);
  }
  await expectAxeClean(lab.page, 'bridge, light');
  await lab.open('editor=plain&scenario=bridge-pod-network&step=4&theme=dark&lang=zh');
  await expect(lab.diagram.getByTestId('bridge-cni0')).toContainText('br_netfilter 开启');
  await expectAxeClean(lab.page, 'bridge, dark, zh');
});
