import { defineConfig } from 'vitest/config';
import { reporters, sharedConfig } from '../../tooling/vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters,
    // Finds or starts PostgreSQL once per run; fails the run if there is none.
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
    // Each test file creates (and drops) its own database.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
