/**
 * The rules panel of an IPVS-mode node: ipvsadm -Ln, kube-ipvs0 and the ipsets under the node's
 * iptables rules, marked as modelled (not kernel-checked) and deprecated; keyboard-reachable
 * listings; axe clean in both themes and languages.
 */
import { mkdirSync } from 'node:fs';
import { expect, test, SCREENS } from './fixtures/lab.fixture.ts';
import { expectAxeClean } from './fixtures/axe.ts';

test.use({ viewport: { width: 1280, height: 720 }, reducedMotion: 'reduce' });

for (const theme of ['light', 'dark'] as const)
  for (const lang of ['en', 'zh'] as const)
    test(`IPVS view of a node: ${theme} theme, ${lang}`, async ({ lab }) => {
      // axe over the whole lab takes a while on a loaded machine (as in a11y.spec.ts).
      test.setTimeout(120_000);
      const page = lab.page;
      await lab.open(
        `theme=${theme}&lang=${lang}&editor=plain&scenario=ipvs-local-lb-from-inside&from=client/office-pc&to=lb/nginx:80`,
      );
      await page.getByTestId('rules-node').selectOption('xs4773');
      const box = page.getByTestId('rules-ipvs');
      await box.scrollIntoViewIfNeeded();
      await expect(page.getByTestId('ipvsadm')).toContainText('TCP  10.34.251.210:80 rr');
      await expect(box).toContainText(
        lang === 'en' ? 'not checked on a kernel' : '没有在真实内核上验证',
      );
      await expect(box).toContainText('KEP-5495');
      for (const summary of await box.locator('summary').all()) {
        const details = summary.locator('..');
        if ((await details.getAttribute('open')) === null) await summary.click();
      }
      await expect(box).toContainText('add KUBE-LOAD-BALANCER-LOCAL 10.34.251.210,tcp:80');
      // The listings scroll sideways in a narrow panel: each takes the keyboard focus.
      await page.getByTestId('ipvsadm').focus();
      await expect(page.getByTestId('ipvsadm')).toBeFocused();
      mkdirSync(SCREENS, { recursive: true });
      await box.screenshot({ path: `${SCREENS}/ipvs-rules-${theme}-${lang}.png` });
      await expectAxeClean(page, `IPVS rules view, ${theme}/${lang}`);
    });
