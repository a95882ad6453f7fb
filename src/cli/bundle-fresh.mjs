// Whether the prebuilt CLI (dist-cli/main.js) was built from exactly the files of this checkout.
// The build lists every file it bundled with a SHA-1 of its content (dist-cli/sources.json); the
// bundle is used only when each of them still has that content, and package-lock.json too (the
// dependencies), and the bundle is the one that build wrote. Content, not modification times: a checkout, a copy or a clock can give old
// sources a new time or new sources an old one, and a stale CLI must never answer.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

/**
 * Files hashed besides the bundled modules: the dependency versions wanted and installed (npm
 * writes node_modules/.package-lock.json), and the build itself.
 */
export const ALSO_HASHED = [
  'package-lock.json',
  'node_modules/.package-lock.json',
  'vite.cli.config.ts',
  'src/cli/precompile-schemas.mjs',
];

export const sha1 = (bytes) => createHash('sha1').update(bytes).digest('hex');

/** `{ path: sha1 }` of the given files (relative to `root`) that exist. */
export function hashFiles(root, files) {
  const out = {};
  for (const f of files) if (existsSync(`${root}${f}`)) out[f] = sha1(readFileSync(`${root}${f}`));
  return out;
}

/**
 * The bundle's path when it can run in place of the sources under `root` (ends with a slash), or
 * null: no bundle, no list, a listed file changed or gone, or anything unreadable.
 */
export function freshBundle(root) {
  const built = `${root}dist-cli/main.js`;
  try {
    const listed = JSON.parse(readFileSync(`${root}dist-cli/sources.json`, 'utf8'));
    const files = Object.keys(listed.files ?? {});
    if (!files.length || !existsSync(built)) return null;
    if (sha1(readFileSync(built)) !== listed.bundle) return null;
    for (const [c, hash] of Object.entries(listed.chunks ?? {}))
      if (sha1(readFileSync(`${root}dist-cli/${c}`)) !== hash) return null;
    for (const f of files) if (sha1(readFileSync(`${root}${f}`)) !== listed.files[f]) return null;
    return built;
  } catch {
    return null;
  }
}
