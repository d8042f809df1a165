import { defineConfig } from 'vitest/config';
import { sharedConfig, sharedTestConfig } from '../../tooling/vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...sharedTestConfig,
    // Finds or starts PostgreSQL once per run; fails the run if there is none. Its teardown fails the run if a
    // process, a database or a temp dir this run started is still there (test/support/run-registry.ts).
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
  },
});
