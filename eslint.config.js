import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/** Packages the pure simulation core must never import: it runs in a Worker and in Node. */
const uiOnly = [
  'react',
  'react-dom',
  'react-*',
  'd3-*',
  'monaco-*',
  'zustand',
  'zustand/*',
  'i18next',
];
/** The core's rules; `above` are core layers a lower layer must not import. */
const coreRestriction = (above = []) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        { group: uiOnly, message: 'The simulation core has no UI dependencies.' },
        { group: ['**/app/**', '**/cli/**', 'node:*'], message: 'The core is platform-neutral.' },
        ...above,
      ],
    },
  ],
  'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'process'],
});

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', '**/*.tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['src/engine/**/*.ts', 'src/kube/**/*.ts', 'src/cluster/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: coreRestriction([
      {
        group: ['**/exercise/**'],
        message:
          'Exercises sit above the cluster layer; engine, kube and cluster never import them.',
      },
    ]),
  },
  {
    // Exercises are core too: the checker runs in the lab's worker and in the CLI.
    files: ['src/exercise/**/*.ts'],
    ignores: ['**/*.test.ts', 'src/exercise/testing.ts'],
    rules: coreRestriction(),
  },
);
