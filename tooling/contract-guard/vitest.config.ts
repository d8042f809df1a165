import { defineConfig } from 'vitest/config';
import { reporters, sharedConfig } from '../vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  // Each case type-checks a copy of the schema package with tsc: seconds, not milliseconds.
  test: { include: ['test/**/*.test.ts'], reporters, testTimeout: 120_000, hookTimeout: 120_000 },
});
