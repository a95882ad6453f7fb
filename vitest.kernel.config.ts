import { defineConfig } from 'vitest/config';

// Real-kernel cross-checks: network namespaces, iptables-restore, real sockets.
export default defineConfig({
  test: {
    include: ['src/**/*.kernel.test.ts'],
    environment: 'node',
    testTimeout: 120000,
    hookTimeout: 60000,
    fileParallelism: false,
    reporters: ['verbose'],
  },
});
