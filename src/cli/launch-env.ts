/**
 * The environment `hookpath` (hookpath.sh) gives node, for what starts node the CLI's way
 * without that script: the bench's parse entry, whose figure is the CLI's `--rules` path.
 * hookpath-sh.test.ts checks that the script and this agree.
 */

const HUGE_PAGES = 'glibc.malloc.hugetlb=1';

/**
 * `env` with glibc's malloc asked to back large blocks with transparent huge pages (see
 * hookpath.sh), unless its GLIBC_TUNABLES already says how.
 */
export function launchEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const t = env.GLIBC_TUNABLES ?? '';
  if (`:${t}:`.includes(':glibc.malloc.hugetlb=')) return env;
  return { ...env, GLIBC_TUNABLES: t === '' ? HUGE_PAGES : `${t}:${HUGE_PAGES}` };
}
