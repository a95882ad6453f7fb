import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  // Relative base so the same build works on GitHub Pages under /<repo>/ and in an iframe.
  base: './',
  plugins: [react()],
  resolve: {
    alias: [
      // monaco-yaml's worker imports monaco's pre-0.5x deep path, which monaco-editor's exports
      // map no longer resolves; point it at the file itself.
      {
        find: /^monaco-editor\/esm\/vs\/(.*)$/,
        replacement: fileURLToPath(
          new URL('./node_modules/monaco-editor/esm/vs/$1', import.meta.url),
        ),
      },
    ],
  },
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    exclude: ['src/**/*.kernel.test.ts', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20000,
  },
});
