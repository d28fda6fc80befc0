import { defineConfig } from 'vitest/config';
import { writeKindsModule } from './scripts/emulator-kinds.mjs';

// The emulator's list of kind files is generated, not committed (docs/emulator.md#adding-a-kind):
// written here so that `npx vitest run <file>` sees a kind file added or removed since the last build.
writeKindsModule();

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
