import { defineConfig } from 'vitest/config';
import { sharedConfig, sharedTestConfig } from '../../tooling/vitest.shared.js';

export default defineConfig({
  ...sharedConfig,
  test: { include: ['src/**/*.test.ts'], ...sharedTestConfig },
});
