/**
 * `hookpath` runs the prebuilt bundle only when it was built from exactly the files of the
 * checkout; any change, removal or a foreign bundle sends it back to the sources (tsx).
 * The bin is run for real in a copy of the layout, with a stand-in bundle and stand-in sources.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { freshBundle, hashFiles, sha1 } from './bundle-fresh.mjs';

const repo = new URL('../../', import.meta.url).pathname;
const root = `${mkdtempSync(join(tmpdir(), 'hookpath-bin-'))}/`;
const SOURCES = ['src/cli/main.ts', 'src/cli/other.ts', 'package-lock.json'];
afterAll(() => rmSync(root, { recursive: true, force: true }));

mkdirSync(`${root}src/cli`, { recursive: true });
mkdirSync(`${root}dist-cli`);
for (const f of ['bin.mjs', 'bundle-fresh.mjs'])
  copyFileSync(`${repo}src/cli/${f}`, `${root}src/cli/${f}`);
symlinkSync(`${repo}node_modules`, `${root}node_modules`);
writeFileSync(`${root}package.json`, '{ "type": "module" }\n');

/** A checkout with a bundle built from it: main.ts says "source", the bundle says "bundle". */
function build(): void {
  writeFileSync(`${root}src/cli/main.ts`, "import './other.ts';\nconsole.log('source');\n");
  writeFileSync(`${root}src/cli/other.ts`, 'export const n: number = 1;\n');
  writeFileSync(`${root}package-lock.json`, '{}\n');
  writeFileSync(`${root}dist-cli/main.js`, "console.log('bundle');\n");
  writeFileSync(`${root}dist-cli/chunk.js`, 'export const c = 1;\n');
  const bundle = sha1(`console.log('bundle');\n`);
  const chunks = { 'chunk.js': sha1('export const c = 1;\n') };
  writeFileSync(
    `${root}dist-cli/sources.json`,
    JSON.stringify({ bundle, chunks, files: hashFiles(root, SOURCES) }),
  );
}

const hookpath = (env: Record<string, string> = {}) =>
  execFileSync('node', [`${root}src/cli/bin.mjs`], {
    env: { ...process.env, HOOKPATH_CLI: '', ...env },
    encoding: 'utf8',
  }).trim();

describe('the prebuilt CLI bundle', () => {
  beforeEach(build);

  it('runs when built from exactly these files', () => {
    expect(freshBundle(root)).toBe(`${root}dist-cli/main.js`);
    expect(hookpath()).toBe('bundle');
  });

  it('is not used once a source it was built from changes, even with an old time', () => {
    writeFileSync(`${root}src/cli/other.ts`, 'export const n: number = 2;\n');
    expect(freshBundle(root)).toBeNull();
    expect(hookpath()).toBe('source');
  });

  it('is not used when a source is gone, the lock file changed, or the bundle or a chunk is not that build', () => {
    unlinkSync(`${root}src/cli/other.ts`);
    expect(freshBundle(root)).toBeNull();
    build();
    writeFileSync(`${root}package-lock.json`, '{"v":2}\n');
    expect(freshBundle(root)).toBeNull();
    build();
    writeFileSync(`${root}dist-cli/main.js`, "console.log('older bundle');\n");
    expect(freshBundle(root)).toBeNull();
    build();
    writeFileSync(`${root}dist-cli/chunk.js`, 'export const c = 2;\n');
    expect(freshBundle(root)).toBeNull();
    build();
    unlinkSync(`${root}dist-cli/chunk.js`);
    expect(freshBundle(root)).toBeNull();
  });

  it('is not used without its list of sources (a build of before) or with a broken one', () => {
    unlinkSync(`${root}dist-cli/sources.json`);
    expect(freshBundle(root)).toBeNull();
    writeFileSync(`${root}dist-cli/sources.json`, '{"files":');
    expect(freshBundle(root)).toBeNull();
    expect(hookpath()).toBe('source');
  });

  it('HOOKPATH_CLI=source runs the sources whatever is built', () => {
    expect(hookpath({ HOOKPATH_CLI: 'source' })).toBe('source');
  });
});
