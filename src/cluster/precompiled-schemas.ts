/**
 * JSON Schema validators compiled at build time, by schema object: the prebuilt CLI's build
 * replaces this module with Ajv's standalone code for the scenario and host schemas
 * (vite.cli.config.ts, src/cli/precompile-schemas.mjs). From the sources it is empty, and
 * lazyValidator compiles at first use as before.
 */
import type { ValidateFunction } from 'ajv';

export const precompiled: ReadonlyMap<unknown, ValidateFunction> = new Map();
