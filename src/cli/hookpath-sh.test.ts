/**
 * `hookpath` as npm installs it (package.json `bin`): hookpath.sh sets glibc's tunable for
 * transparent huge pages and runs bin.mjs with node, through the symlink npm puts on PATH.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchEnv } from './launch-env.ts';

const script = join(import.meta.dirname, 'hookpath.sh');
const dir = mkdtempSync(join(tmpdir(), 'hookpath-sh-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A `node` first on PATH that prints what it was given: GLIBC_TUNABLES, then each argument.
const fakeBin = join(dir, 'fake-bin');
mkdirSync(fakeBin);
writeFileSync(
  join(fakeBin, 'node'),
  '#!/bin/sh\nprintf "%s\\n" "tunables=${GLIBC_TUNABLES-unset}"\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\n',
);
chmodSync(join(fakeBin, 'node'), 0o755);

// As npm links a package's bin: node_modules/.bin/hookpath -> ../hookpath/src/cli/hookpath.sh,
// here through two links, the first relative.
const bin = join(dir, 'node_modules/.bin');
mkdirSync(bin, { recursive: true });
symlinkSync(script, join(dir, 'hookpath-abs'));
symlinkSync('../../hookpath-abs', join(bin, 'hookpath'));

function launch(args: string[], env: NodeJS.ProcessEnv): string[] {
  return execFileSync('sh', [join(bin, 'hookpath'), ...args], {
    env: { ...env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
  })
    .trimEnd()
    .split('\n');
}

const base: NodeJS.ProcessEnv = { HOME: process.env.HOME ?? '/' };

describe('hookpath.sh, the installed command', () => {
  it('runs bin.mjs beside its own file, through npm’s symlinks, with every argument as given', () => {
    const out = launch(['trace', 'a b', '', '--rules', '*', "it's"], base);
    expect(out.slice(1)).toEqual([
      `[${realpathSync(join(import.meta.dirname, 'bin.mjs'))}]`,
      '[trace]',
      '[a b]',
      '[]',
      '[--rules]',
      '[*]',
      "[it's]",
    ]);
  });

  it('asks glibc for huge pages as launch-env.ts does, keeping tunables the user set', () => {
    const cases: (string | undefined)[] = [
      undefined,
      '',
      'glibc.malloc.arena_max=2',
      'glibc.malloc.hugetlb=0',
      'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2',
    ];
    for (const t of cases) {
      const env = t === undefined ? base : { ...base, GLIBC_TUNABLES: t };
      expect(launch([], env)[0]).toBe(`tunables=${launchEnv(env).GLIBC_TUNABLES ?? 'unset'}`);
    }
    expect(launch([], base)[0]).toBe('tunables=glibc.malloc.hugetlb=1');
    expect(launch([], { ...base, GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })[0]).toBe(
      'tunables=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    );
    // The user's own choice wins.
    expect(launch([], { ...base, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' })[0]).toBe(
      'tunables=glibc.malloc.hugetlb=0',
    );
  });

  it('is the command package.json installs, and it runs the real CLI', () => {
    const pkg = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'),
    ) as { bin: Record<string, string> };
    expect(pkg.bin.hookpath).toBe('src/cli/hookpath.sh');
    const help = execFileSync('sh', [join(bin, 'hookpath'), 'help'], { encoding: 'utf8' });
    expect(help).toContain('hookpath run');
  });
});
