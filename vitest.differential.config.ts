import { defineConfig } from 'vitest/config';

// The engine's second edition against the engine before it (src/conformance/differential.spec.ts).
export default defineConfig({
  test: {
    include: ['src/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 600000,
    hookTimeout: 120000,
  },
});
