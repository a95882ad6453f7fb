import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  // Relative base so the same build works on GitHub Pages under /<repo>/ and in an iframe.
  base: './',
  plugins: [react()],
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    exclude: ['src/**/*.kernel.test.ts', 'node_modules/**'],
    environment: 'node',
    testTimeout: 20000,
  },
});
