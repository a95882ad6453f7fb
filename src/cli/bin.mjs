#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx hookpath ...` works from a checkout without a build.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
