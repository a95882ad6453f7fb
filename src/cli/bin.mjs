#!/usr/bin/env node
// `hookpath`: the prebuilt CLI (dist-cli/main.js, made by `npm run build`) when it was built from
// exactly these sources (bundle-fresh.mjs compares their content); otherwise the TypeScript
// sources through tsx (~0.5 s more start-up), so a checkout being edited never runs a stale build.
// HOOKPATH_CLI=source runs the sources whatever is built.
import { fileURLToPath } from 'node:url';
import { freshBundle } from './bundle-fresh.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = process.env.HOOKPATH_CLI === 'source' ? null : freshBundle(root);

if (built) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
