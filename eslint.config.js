import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { layers } from './lint/layers.js';
import { noCycle } from './lint/no-cycle.js';

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-cli',
      'node_modules',
      'test-results',
      'playwright-report',
      '**/*.tmp.ts',
    ],
  },
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
    files: ['src/**/*.{ts,tsx}'],
    plugins: { hookpath: { rules: { 'no-cycle': noCycle } } },
    rules: { 'hookpath/no-cycle': 'error' },
  },
  {
    // Issue 13: no function over ~80 lines without a reason, given in an eslint-disable comment.
    files: ['src/**/*.{ts,tsx}'],
    ignores: [
      '**/*.test.ts',
      '**/*.test.tsx',
      '**/*.spec.ts',
      '**/testing/**',
      'src/bench/**',
      'src/kernel/**',
      'src/conformance/**',
    ],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  ...layers,
);
