import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real servers on loopback; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
  },
});
