#!/usr/bin/env node
// `hookpath`: the prebuilt CLI (dist-cli/main.js, made by `npm run build`) when it is at least as
// new as the sources it was built from; otherwise the TypeScript sources through tsx, so a
// checkout being edited never runs a stale build (tsx costs ~0.5 s of start-up).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = `${root}dist-cli/main.js`;
// What the bundle is made of: the simulation core, the CLI, and the dependencies.
const SOURCES = ['src/cli', 'src/cluster', 'src/kube', 'src/engine', 'src/exercise'];

function newestIn(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) newest = Math.max(newest, newestIn(p));
    else if (!e.name.includes('.test.')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function fresh() {
  if (!existsSync(built)) return false;
  const at = statSync(built).mtimeMs;
  try {
    if (statSync(`${root}package-lock.json`).mtimeMs > at) return false;
    for (const d of SOURCES)
      if (existsSync(`${root}${d}`) && newestIn(`${root}${d}`) > at) return false;
  } catch {
    return false;
  }
  return true;
}

if (fresh()) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
