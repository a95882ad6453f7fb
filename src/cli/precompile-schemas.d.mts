/** Types of precompile-schemas.mjs (plain JavaScript: vite.cli.config.ts runs it at build time). */
export declare const AJV_OPTIONS: { allErrors: true; strict: false; verbose: true };
export declare function validatorModule(schema: object): string;
