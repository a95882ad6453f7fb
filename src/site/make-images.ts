/**
 * Regenerates the committed images of the site (`npm run images`, after `npm run build`):
 * the app icons from the SVG logo `public/favicon.svg`, and the 1200x630 social card from a real
 * screenshot of the lab's diagram. Rendered by headless Chromium, so the PNGs are exactly what a
 * browser draws from the same sources.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { serveStatic } from './static-server.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const publicDir = `${root}public`;
/** The logo's navy, full-bleed behind maskable and Apple icons (platforms crop their corners). */
const LOGO_BG = '#1f2a44';

/** The logo's drawing without its rounded background square. */
function logoGlyph(svg: string): string {
  const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(svg)?.[1];
  const glyph = inner?.replace(/<rect\b[^>]*\/>/, '');
  if (!inner || glyph === inner)
    throw new Error('public/favicon.svg: expected an <svg> whose first <rect/> is the background');
  return glyph as string;
}

/** The glyph on a full square, scaled into the safe zone (a circle of 80% of the width). */
function fullBleedLogo(svg: string, scale: number): string {
  const t = `translate(16 16) scale(${scale}) translate(-16 -16)`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" fill="${LOGO_BG}"/><g transform="${t}">${logoGlyph(svg)}</g></svg>`;
}

async function renderSvg(browser: Browser, svg: string, size: number, out: string) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  await page.setContent(
    `<body style="margin:0"><img src="${src}" width="${size}" height="${size}" style="display:block"></body>`,
  );
  await page.screenshot({ path: out, omitBackground: true });
  await page.close();
}

async function icons(browser: Browser) {
  const logo = readFileSync(`${publicDir}/favicon.svg`, 'utf8');
  mkdirSync(`${publicDir}/icons`, { recursive: true });
  for (const size of [32, 192, 512])
    await renderSvg(browser, logo, size, `${publicDir}/icons/icon-${size}.png`);
  // Maskable: at 0.8 the glyph's farthest point (stroke included) is 37.5% of the width from the
  // centre, inside the safe circle of radius 40% that every platform's mask keeps.
  await renderSvg(browser, fullBleedLogo(logo, 0.8), 512, `${publicDir}/icons/maskable-512.png`);
  await renderSvg(
    browser,
    fullBleedLogo(logo, 0.8),
    180,
    `${publicDir}/icons/apple-touch-icon.png`,
  );
}

/** The lab at the DNAT step of the LoadBalancer variant: the rewrite the lab is about. */
async function diagramShot(browser: Browser): Promise<Buffer> {
  if (!existsSync(`${root}dist/index.html`)) throw new Error('Run `npm run build` first.');
  const site = await serveStatic(`${root}dist`, { mount: '/hookpath/' });
  // As wide as the card's picture is proportioned, so "fit to view" fills it; 2x for sharp text.
  const page = await browser.newPage({
    viewport: { width: 1000, height: 800 },
    deviceScaleFactor: 2,
    locale: 'en-US',
  });
  try {
    await page.goto(`${site.url}?scenario=vip22-sshd-or-service&editor=plain`);
    await page.getByTestId('variant-picker').selectOption('lb-service');
    await page.getByTestId('verdict').getByText('pod nettest').waitFor();
    await page.getByTestId('editor-toggle').click();
    await page.locator('[data-testid^=trace-row-]', { hasText: '-j DNAT' }).first().click();
    await page.waitForTimeout(600); // the packet's move along its path is animated
    // The zoom buttons are for the reader at the keyboard, not for a picture of the lab.
    await page.addStyleTag({ content: '.diagram-zoom { display: none !important; }' });
    return await page.getByTestId('diagram').screenshot();
  } finally {
    await page.close();
    await site.close();
  }
}

async function socialCard(browser: Browser) {
  const diagram = (await diagramShot(browser)).toString('base64');
  const logo = readFileSync(`${publicDir}/favicon.svg`).toString('base64');
  const page = await browser.newPage({ viewport: { width: 1200, height: 630 } });
  await page.setContent(`<!doctype html><html><body style="margin:0">
    <div style="width:1200px;height:630px;display:flex;flex-direction:column;background:#f4f6f9;
      font-family:'DejaVu Sans',system-ui,sans-serif;color:#1b2230">
      <div style="display:flex;align-items:center;gap:22px;padding:26px 40px 20px;background:${LOGO_BG};color:#fff">
        <img src="data:image/svg+xml;base64,${logo}" width="76" height="76">
        <div>
          <div style="font-size:44px;font-weight:700;letter-spacing:0.5px">Hookpath</div>
          <div style="font-size:25px;color:#c9d6ee;margin-top:2px">Where does a packet go in a Kubernetes cluster? Hop by hop, rule by rule.</div>
        </div>
      </div>
      <div style="flex:1;min-height:0;padding:14px 22px 18px">
        <img src="data:image/png;base64,${diagram}" style="width:100%;height:100%;object-fit:contain;
          border-radius:10px;box-shadow:0 1px 3px rgb(16 24 40 / 12%)">
      </div>
    </div></body></html>`);
  await page.screenshot({ path: `${publicDir}/og-image.png` });
  await page.close();
}

const debianChromium = '/usr/bin/chromium';
const browser = await chromium.launch({
  ...(existsSync(debianChromium) ? { executablePath: debianChromium } : {}),
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  await icons(browser);
  await socialCard(browser);
  console.log('wrote public/icons/*.png and public/og-image.png');
} finally {
  await browser.close();
}
