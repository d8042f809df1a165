import { defineConfig } from 'vitest/config';
import { reporters, sharedConfig } from '../../tooling/vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters,
    // The *.server.test.ts files run the real API (apps/api) on PostgreSQL and PGlite; its global setup finds
    // or starts the PostgreSQL server once per run.
    globalSetup: ['../../apps/api/test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
