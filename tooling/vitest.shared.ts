// Shared vitest settings for every workspace package, and the one place test timeouts come from.
//
// Workspace packages export a "@petstore/source" condition pointing at their TypeScript source, so tests
// need no build first. Since Vite 6, setting `conditions` replaces Vite's defaults instead of adding to them,
// so the defaults are listed again. `ssr.resolve.conditions` is what vitest resolves with in Node.
//
// No vitest import here: the reliability scenarios import `scaled` and `timeouts` when `pnpm reliability` and
// `pnpm scale-test` run them outside vitest.
const conditions = ['@petstore/source', 'module', 'node', 'development|production'];

export const sharedConfig = {
  resolve: { conditions },
  ssr: { resolve: { conditions } },
};

/** In CI every test name is printed, so the log shows which database each suite ran against. */
export const reporters = process.env.CI ? ['verbose'] : ['default'];

/**
 * PETSTORE_TEST_TIME_SCALE (default 1) multiplies every timeout and every in-test deadline, for a machine
 * slower or busier than the defaults allow for: `PETSTORE_TEST_TIME_SCALE=3 pnpm test`. The defaults are
 * already generous (a 2-core machine at load average 8-14 passes with 1). Never below 1: a shorter limit only
 * makes a slow machine fail, it makes no test stricter.
 */
function readTimeScale(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale < 1) {
    throw new Error(`PETSTORE_TEST_TIME_SCALE must be a number of at least 1 (got ${JSON.stringify(value)})`);
  }
  return scale;
}

export const timeScale = readTimeScale(process.env.PETSTORE_TEST_TIME_SCALE);

/** `ms` times PETSTORE_TEST_TIME_SCALE: for every wait, poll deadline or timeout a test or scenario sets. */
export const scaled = (ms: number): number => Math.round(ms * timeScale);

/**
 * How long a test may take, by what it does. A test or hook that starts a server, a database or a process says
 * so by taking its limit from here (`it(..., timeouts.server)`), never from the runner's default or a literal.
 */
export const timeouts = {
  /** Any test: pure code, or requests to a server a hook started. */
  test: scaled(30_000),
  /** beforeAll/afterAll: starting or stopping servers and databases. */
  hook: scaled(120_000),
  /** A test that starts (and stops) an in-process server or a database of its own. */
  server: scaled(90_000),
  /** A test that starts API processes (`node src/main.ts`: TypeScript compiled at start-up, PGlite loaded). */
  process: scaled(180_000),
  /** A reliability scenario: several API processes, a database, load. */
  scenario: scaled(300_000),
  /** A browser test, which may install Chromium first (scripts/ensure-chromium.sh). */
  browser: scaled(600_000),
  /** The end of the run: stopping a PostgreSQL this run started, and the leftover check. */
  teardown: scaled(60_000),
} as const;

/** What every package's vitest config puts under `test`. */
export const sharedTestConfig = {
  reporters,
  testTimeout: timeouts.test,
  hookTimeout: timeouts.hook,
  teardownTimeout: timeouts.teardown,
};
