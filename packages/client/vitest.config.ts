import { defineConfig } from 'vitest/config';
import { sharedConfig, sharedTestConfig } from '../../tooling/vitest.shared.js';

// The client's own tests: unit tests and a local stub server, no API and no database. The clients against the
// real API are tested where that API lives, in apps/api/test/clients.
export default defineConfig({
  ...sharedConfig,
  test: {
    include: ['src/**/*.test.ts'],
    ...sharedTestConfig,
  },
});
