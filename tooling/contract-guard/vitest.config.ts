import { defineConfig } from 'vitest/config';
import { sharedConfig, sharedTestConfig, timeouts } from '../vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  // Each case type-checks a copy of the schema package with tsc: seconds, not milliseconds.
  test: { include: ['test/**/*.test.ts'], ...sharedTestConfig, testTimeout: timeouts.process },
});
