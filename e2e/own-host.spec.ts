/**
 * "Your host" (issue 14 §3): a real node's dumps (the kernel tools' own output, the importers'
 * fixtures) pasted and dropped, recognised and counted, a packet traced with the lab's verdict,
 * trace and rules panels, the state kept over a reload, a bad dump answered with its line, column
 * and JSON path; keyboard, axe, screenshots at 1280x720 and 1920x1080.
 */
import { readFileSync } from 'node:fs';
import { SCREENS, expect, test, type LabPage } from './fixtures/lab.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce' });

const FIXTURES = new URL('../src/cluster/own-host/fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

async function openHost(lab: LabPage, query = ''): Promise<void> {
  await lab.page.goto(`/?view=host&editor=plain${query ? `&${query}` : ''}`);
  await expect(lab.page.getByTestId('own-host')).toBeVisible({ timeout: 20_000 });
}

async function paste(lab: LabPage, text: string): Promise<void> {
  await lab.page.getByTestId('own-paste').fill(text);
  await lab.page.getByTestId('own-add').click();
}

const dumps = (lab: LabPage) => lab.page.getByTestId('own-dump');

/** cp-1 of vip22-sshd-or-service (lb-service): its iptables-save, ip -j addr, ip -j route. */
async function pasteCp1(lab: LabPage): Promise<void> {
  await paste(lab, fixture('iptables-save.txt'));
  await paste(lab, fixture('ip-addr.json'));
  await paste(lab, fixture('ip-route.json'));
  await expect(dumps(lab)).toHaveCount(3);
}

async function trace(lab: LabPage, dst: string, dport: string): Promise<void> {
  await lab.page.getByTestId('own-dst').fill(dst);
  await lab.page.getByTestId('own-dport').fill(dport);
}

test('pasted dumps are recognised and counted; a packet is traced through them', async ({
  lab,
}) => {
  await openHost(lab);
  await pasteCp1(lab);
  const rules = fixture('iptables-save.txt')
    .split('\n')
    .filter((l) => l.startsWith('-A ')).length;
  await expect(dumps(lab).nth(0)).toHaveAttribute('data-kind', 'iptables');
  await expect(dumps(lab).nth(0).getByTestId('own-counts')).toContainText(`${rules} rules`);
  await expect(dumps(lab).nth(1)).toHaveAttribute('data-kind', 'ip-addr');
  await expect(dumps(lab).nth(1).getByTestId('own-counts')).toContainText('3 interfaces');
  await expect(dumps(lab).nth(2).getByTestId('own-counts')).toContainText('2 routes');
  // Addresses and routes come from the dumps: the form no longer asks for them.
  await expect(lab.page.getByTestId('own-addresses')).toHaveCount(0);
  await expect(lab.page.getByTestId('own-gateway')).toHaveCount(0);

  // VIP:22 with the LoadBalancer Service: kube-proxy's DNAT sends it on to the pod.
  await trace(lab, '192.168.50.100', '22');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'forwarded', { timeout: 20_000 });
  await expect(
    lab.page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).first(),
  ).toBeVisible();
  await expect(
    lab.page.getByTestId('rules-panel').locator('.rule-line.matched', { hasText: 'DNAT' }).first(),
  ).toBeVisible();
  // The node's own address: sshd answers.
  await trace(lab, '192.168.50.38', '22');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered');
  await expect(lab.verdict).toContainText('sshd');

  // A reload keeps the dumps, the fields and the packet, and traces again.
  await lab.page.reload();
  await expect(dumps(lab)).toHaveCount(3, { timeout: 20_000 });
  await expect(lab.page.getByTestId('own-dst')).toHaveValue('192.168.50.38');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered', { timeout: 20_000 });
});

test('a bad dump says where; the last trace stays on screen', async ({ lab }) => {
  await openHost(lab);
  await pasteCp1(lab);
  await trace(lab, '192.168.50.38', '22');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered', { timeout: 20_000 });
  await paste(
    lab,
    '[\n  {"ifname": "eth1", "addr_info": [{"local": "300.1.1.1", "prefixlen": 24}]}\n]',
  );
  const bad = dumps(lab).nth(3);
  await expect(bad.getByTestId('own-diagnostics')).toContainText('line 2, column 3');
  await expect(bad.getByTestId('own-diagnostics')).toContainText('[0].addr_info[0].local');
  await expect(lab.page.getByTestId('own-trace')).toContainText('Fix the problems above');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered');
  // A JSON syntax error: its line and column.
  await paste(lab, '[{"dst": "default",, }]');
  await expect(dumps(lab).nth(4).getByTestId('own-diagnostics')).toContainText('line 1, column');
  // A bad packet field is said under the field.
  await lab.page.getByRole('button', { name: 'Remove Pasted text 5' }).click();
  await lab.page.getByRole('button', { name: 'Remove Pasted text 4' }).click();
  await expect(dumps(lab)).toHaveCount(3);
  await lab.page.getByTestId('own-dport').fill('99999');
  await expect(lab.page.getByTestId('own-problem-packet.dport')).toContainText('1 to 65535');
});

test('files chosen or dropped; without ip -j addr the form asks for the addresses', async ({
  lab,
}) => {
  await openHost(lab);
  await lab.page.getByTestId('own-file').setInputFiles([
    {
      name: 'iptables-save-ipvs.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(fixture('iptables-save-ipvs.txt')),
    },
    {
      name: 'ipset-save.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(fixture('ipset-save.txt')),
    },
  ]);
  await expect(dumps(lab)).toHaveCount(2);
  await expect(lab.page.locator('[data-testid=own-dump][data-kind=ipset]')).toContainText(
    '17 sets',
  );
  // A drop: the same files through a DataTransfer.
  const transfer = await lab.page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'route.json', { type: 'application/json' }));
    return dt;
  }, fixture('ip-route-ipvs.json'));
  await lab.page.getByTestId('own-drop').dispatchEvent('drop', { dataTransfer: transfer });
  await expect(dumps(lab)).toHaveCount(3);
  await expect(lab.page.getByTestId('own-gateway')).toHaveCount(0);
  await lab.page.getByTestId('own-dst').fill('10.34.251.73');
  await expect(lab.page.getByTestId('own-problem-addresses')).toBeVisible({ timeout: 20_000 });
  await lab.page.getByTestId('own-addresses').fill('10.34.251.73/24');
  await lab.page.getByTestId('own-src').fill('10.34.251.50');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered', { timeout: 20_000 });
});

const IPVS_TEXT = {
  en: { services: '3 virtual services', modelled: 'not checked on a kernel' },
  zh: { services: '3 个虚拟服务', modelled: '没有在真实内核上验证' },
} as const;

for (const lang of ['en', 'zh'] as const)
  test(`a pasted IPVS node: ClusterIP through IPVS to the real server; axe clean (${lang})`, async ({
    lab,
  }) => {
    test.setTimeout(90_000);
    await openHost(lab, `lang=${lang}`);
    // xs4773 of ipvs-local-lb-from-inside: kube-proxy's rules and sets, kube-ipvs0, ipvsadm -Ln.
    await paste(lab, fixture('iptables-save-ipvs.txt'));
    await paste(lab, fixture('ipset-save.txt'));
    await paste(lab, fixture('ip-addr-kube-ipvs0.json'));
    await paste(lab, fixture('ipvsadm-Ln-ipvs.txt'));
    await expect(dumps(lab)).toHaveCount(4);
    const ipvsadm = dumps(lab).nth(3);
    await expect(ipvsadm).toHaveAttribute('data-kind', 'ipvsadm');
    await expect(ipvsadm.getByTestId('own-dump-kind')).toContainText('ipvsadm -Ln');
    await expect(ipvsadm.getByTestId('own-counts')).toContainText(IPVS_TEXT[lang].services);
    await lab.page.getByTestId('own-src').fill('10.34.251.50');
    await trace(lab, '10.96.0.80', '80');
    await expect(lab.verdict).toHaveAttribute('data-outcome', 'forwarded', { timeout: 20_000 });
    await expect(lab.verdict).toContainText('10.244.1.10');
    const step = lab.page.locator('[data-testid^=trace-row-]', { hasText: 'INPUT · IPVS' }).first();
    await expect(step).toContainText('schedule TCP 10.96.0.80:80 rr → 10.244.1.10:80');
    const view = lab.page.getByTestId('rules-ipvs');
    await expect(view).toContainText(IPVS_TEXT[lang].modelled);
    await expect(view.getByTestId('ipvsadm')).toContainText('TCP  10.96.0.80:80 rr');
    await lab.shot(`own-host-ipvs-1280-${lang}`);
    await step.click();
    await view.scrollIntoViewIfNeeded();
    await lab.shot(`own-host-ipvs-step-1280-${lang}`);
    await expectAxeClean(lab.page, `your host, IPVS node traced, ${lang}`);
  });

test('by keyboard alone: the view switch, the paste box, the packet', async ({ lab }) => {
  await lab.page.goto('/?editor=plain');
  await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/, { timeout: 20_000 });
  await lab.page.getByTestId('view-host').focus();
  await lab.page.keyboard.press('Enter');
  await expect(lab.page.getByTestId('own-host')).toBeVisible();
  await lab.page.getByTestId('own-paste').focus();
  await lab.page.keyboard.insertText(fixture('iptables-save.txt'));
  await lab.page.keyboard.press('Tab');
  await lab.page.keyboard.press('Tab');
  await expect(lab.page.getByTestId('own-add')).toBeFocused();
  await lab.page.keyboard.press('Enter');
  await expect(dumps(lab)).toHaveCount(1);
  await lab.page.getByTestId('own-addresses').focus();
  await lab.page.keyboard.insertText('192.168.50.38/24');
  await lab.page.getByTestId('own-dst').focus();
  await lab.page.keyboard.insertText('192.168.50.38');
  await expect(lab.verdict).toHaveAttribute('data-outcome', 'delivered', { timeout: 20_000 });
});

for (const [w, h] of [
  [1280, 720],
  [1920, 1080],
] as const)
  for (const lang of ['en', 'zh'] as const)
    test(`screens${w === 1280 ? ' and axe' : ''}: ${w}x${h}, ${lang}`, async ({ lab }) => {
      test.setTimeout(120_000);
      await lab.page.setViewportSize({ width: w, height: h });
      await openHost(lab, `lang=${lang}`);
      if (w === 1280) await expectAxeClean(lab.page, `your host, empty, ${lang}`);
      await pasteCp1(lab);
      await paste(lab, fixture('nft-of-iptables-nft.txt'));
      await trace(lab, '192.168.50.100', '22');
      await expect(lab.verdict).toHaveAttribute('data-outcome', /.+/, { timeout: 20_000 });
      await lab.shot(`own-host-${w}-${lang}`);
      // The whole page: the trace and the rules panels are below the inputs.
      await lab.page.screenshot({
        path: `${SCREENS}/own-host-${w}-${lang}-full.png`,
        fullPage: true,
      });
      if (w === 1280) await expectAxeClean(lab.page, `your host, traced, ${lang}`);
    });
