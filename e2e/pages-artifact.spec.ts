/**
 * What `npm run build` leaves in dist/ for the Pages workflow to publish: small, no source maps,
 * nothing tied to the host's root path, only the Monaco language the lab uses, and a service
 * worker whose precache holds everything the lab needs offline.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from '@playwright/test';
import { test } from './fixtures/console.fixture.ts';

const DIST = 'dist';
// 8 MB until the Your host and trace replay views came with workers of their own (8.22 MB):
// 8.5 MB while each worker carries its own copy of the engine; one shared worker brings it back.
const MAX_BYTES = 8_500_000;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [relative(DIST, path)];
  });
}

const all = files(DIST);
const text = (f: string) => readFileSync(join(DIST, f), 'utf8');
const scripts = all.filter((f) => /\.(js|css|html|webmanifest)$/.test(f));

test('dist/ stays under 8 MB, with no source maps', () => {
  const bytes = all.reduce((n, f) => n + statSync(join(DIST, f)).size, 0);
  console.log(`dist/: ${all.length} files, ${(bytes / 1e6).toFixed(2)} MB`);
  expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
  expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
  for (const f of scripts) expect(text(f), f).not.toMatch(/sourceMappingURL=/);
});

test('every URL in the build is relative, so any host and subpath works', () => {
  for (const f of scripts) {
    // `"/assets/…"`, `src="/…"`: an absolute path would leave the subpath on GitHub Pages.
    expect(text(f), f).not.toMatch(/["'`(]\/assets\//);
    expect(text(f), f).not.toMatch(/(?:src|href)="\/(?!\/)/);
  }
  const manifest = JSON.parse(text('manifest.webmanifest')) as Record<string, unknown>;
  expect(manifest.start_url).toBe('./');
  expect(manifest.scope).toBe('./');
});

test('Monaco bundles only the YAML language, and no unused language workers', () => {
  const defs = readdirSync('node_modules/monaco-editor/esm/vs/languages/definitions').filter(
    (d) => !d.includes('.') && d !== 'yaml',
  );
  expect(defs.length).toBeGreaterThan(50);
  const js = all.filter((f) => f.endsWith('.js'));
  const bundle = js.map(text).join('\n');
  const registered = (id: string) => new RegExp(`id:[\`"']${id}[\`"'],extensions:`).test(bundle);
  expect(registered('yaml')).toBe(true);
  expect(defs.filter(registered)).toEqual([]);
  const workers = js.filter((f) => /worker/i.test(f) && f.startsWith('assets/'));
  expect(workers.map((f) => f.replace(/-[\w-]+\.js$/, ''))).toEqual(
    expect.arrayContaining(['assets/editor.worker', 'assets/lab.worker', 'assets/yaml.worker']),
  );
  expect(workers.filter((f) => /(ts|json|css|html)\.worker/.test(f))).toEqual([]);
});

test('the service worker precaches what the lab needs offline, and nothing for crawlers', () => {
  const sw = text('sw.js');
  const urls = [...sw.matchAll(/url:"([^"]+)"/g)].map((m) => m[1] as string);
  const bytes = urls.reduce((n, u) => n + statSync(join(DIST, u)).size, 0);
  console.log(`precache: ${urls.length} files, ${(bytes / 2 ** 20).toFixed(2)} MiB`);
  for (const want of [
    /^index\.html$/,
    /^manifest\.webmanifest$/,
    /^schema\/scenario\.schema\.json$/,
    /^assets\/lab\.worker-.*\.js$/,
    /^assets\/editor\.worker-.*\.js$/,
    /^assets\/yaml\.worker-.*\.js$/,
    /^assets\/MonacoEditor-.*\.js$/,
    /^assets\/MonacoEditor-.*\.css$/,
    /^icons\/icon-192\.png$/,
  ])
    expect(urls, String(want)).toContainEqual(expect.stringMatching(want));
  // Every built asset is precached (the scenarios are bundled in the app's JS).
  for (const f of all.filter((f) => f.startsWith('assets/'))) expect(urls, f).toContain(f);
  expect(new Set(urls).size).toBe(urls.length);
  expect(urls).not.toContain('og-image.png');
});
