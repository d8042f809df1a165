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
    // Two test files at a time: most of their time is spent waiting on servers, processes and databases, and
    // vitest's default on a 2-core machine is one (cores - 1). Nothing in them asserts a duration, so a busy
    // machine makes them slower, not red.
    maxWorkers: 2,
  },
});
