/**
 * The layers of the source tree, as lint rules (issue 13). Each layer may import only the layers
 * below it: the engine nothing outside itself; kube the engine; cluster kube and the engine;
 * exercises the simulation core; the app the simulation only through its worker (type-only
 * imports allowed, they are erased); the CLI anything but the app. Outside the engine, the engine
 * is reached through `src/engine/index.ts`. Production code never imports test fixtures, the
 * kernel suite or the conformance and bench tools. `src/layers.test.ts` shows each rule rejecting
 * a wrong-way import.
 */

/** Packages the simulation core must never import: it runs in a Worker and in Node. */
const UI_ONLY = [
  'react',
  'react-dom',
  'react-*',
  'd3-*',
  'monaco-*',
  'zustand',
  'zustand/*',
  'i18next',
];

/** Specifier patterns (gitignore syntax, as no-restricted-imports reads them) for a folder of src. */
const dir = (name) => [`**/${name}/**`];

const TEST_CODE = {
  group: [
    ...dir('testing'),
    '**/*.test.ts',
    '**/*.test.tsx',
    '**/*.spec.ts',
    '**/exercise/testing.ts',
    ...dir('kernel'),
    ...dir('conformance'),
    ...dir('bench'),
  ],
  message: 'Production code never imports test fixtures, the kernel suite or the tools.',
};

/** Outside the engine, its public entry only. */
const ENGINE_ENTRY = {
  group: ['**/engine/**', '!**/engine/index.ts'],
  message: 'Import the engine through src/engine/index.ts (add an export there if needed).',
};

const above = (layer, names) => ({
  group: names.flatMap(dir),
  message: `The ${layer} layer imports only the layers below it (see lint/layers.js).`,
});

const restrict = (...patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
});

/** The simulation core: no UI packages, no platform, no DOM. */
const core = (layer, names, ...more) => ({
  ...restrict(
    { group: UI_ONLY, message: 'The simulation core has no UI dependencies.' },
    { group: ['node:*'], message: 'The core is platform-neutral.' },
    above(layer, names),
    TEST_CODE,
    ...more,
  ),
  'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'process'],
});

const UPPER = ['app', 'cli', 'site'];
const TESTS = ['**/*.test.ts', '**/*.test.tsx', '**/*.spec.ts', '**/testing/**'];

export const layers = [
  {
    files: ['src/engine/**/*.ts'],
    ignores: TESTS,
    rules: core('engine', ['kube', 'cluster', 'exercise', ...UPPER]),
  },
  {
    files: ['src/kube/**/*.ts'],
    ignores: TESTS,
    rules: core('kube', ['cluster', 'exercise', ...UPPER], ENGINE_ENTRY),
  },
  {
    files: ['src/cluster/**/*.ts'],
    ignores: TESTS,
    rules: core('cluster', ['exercise', ...UPPER], ENGINE_ENTRY),
  },
  {
    // Exercises are core too: the checker runs in the lab's worker and in the CLI.
    files: ['src/exercise/**/*.ts'],
    ignores: [...TESTS, 'src/exercise/testing.ts'],
    rules: core('exercise', UPPER, ENGINE_ENTRY),
  },
  {
    files: ['src/app/**/*.{ts,tsx}'],
    ignores: [...TESTS, 'src/app/worker/**'],
    rules: restrict(
      {
        // The English explanation and trace-reader error texts are data (the app translates the
        // keys that traces and their errors carry).
        group: [
          ...dir('engine'),
          ...dir('kube'),
          ...dir('cluster'),
          '!**/engine/explain.ts',
          '!**/engine/replay-errors.ts',
        ],
        allowTypeImports: true,
        message: 'The app reaches the simulation only through its worker (src/app/worker).',
      },
      above('app', ['cli', 'site']),
      TEST_CODE,
    ),
  },
  {
    files: ['src/app/worker/**/*.ts'],
    ignores: TESTS,
    rules: restrict(above('worker', ['cli', 'site']), TEST_CODE, ENGINE_ENTRY),
  },
  {
    files: ['src/cli/**/*.ts'],
    ignores: TESTS,
    rules: restrict(above('cli', ['app', 'site']), TEST_CODE, ENGINE_ENTRY),
  },
];
