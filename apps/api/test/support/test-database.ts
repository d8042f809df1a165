/**
 * One fresh PostgreSQL database per test file, on the server that the global setup
 * (./global-setup.ts) found or started for this test run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
// For the `postgresAdminUrl` key of vitest's ProvidedContext (type only, erased at run time).
import type {} from './global-setup.js';
import { leftoverError, onCleanup, RUN_ID, sweepAbandonedRuns, sweepRunLeftovers } from './run-registry.js';

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  /** Its name: `petstore_test_<run id>_<label>_<random>`. */
  name: string;
  /** Disconnects whoever is still connected and drops the database. Safe to call twice. */
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Server to create the database on. Defaults to `inject('postgresAdminUrl')`. */
  adminUrl?: string;
}

const PREFIX = 'petstore_test_';
/** Every database of this run starts with this: the end of the run looks for leftovers by it. */
const RUN_DATABASE_PREFIX = `${PREFIX}${RUN_ID}_`;
const MAX_IDENTIFIER_LENGTH = 63;

/** `petstore_test_<run id>_<label>_<8 hex chars>`: lower case, `[a-z0-9_]` only, at most 63 bytes. */
export function testDatabaseName(label: string): string {
  const suffix = `_${randomBytes(4).toString('hex')}`;
  const room = MAX_IDENTIFIER_LENGTH - RUN_DATABASE_PREFIX.length - suffix.length;
  const cleaned =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, room)
      .replace(/_+$/, '') || 'db';
  return `${RUN_DATABASE_PREFIX}${cleaned}${suffix}`;
}

function adminUrlFromContext(): string {
  let url: string | undefined;
  try {
    url = inject('postgresAdminUrl');
  } catch {
    url = undefined;
  }
  if (!url) {
    throw new Error(
      "createTestDatabase: no 'postgresAdminUrl' was provided. Run the tests through apps/api/vitest.config.ts, " +
        'whose globalSetup (test/support/global-setup.ts) finds or starts PostgreSQL.',
    );
  }
  return url;
}

async function withAdminClient<T>(adminUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates a fresh, empty database (from `template0`) next to the admin database and
 * returns its URL. Call `drop()` when done, typically in `afterAll`.
 */
export async function createTestDatabase(
  label: string,
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? adminUrlFromContext();
  const name = testDatabaseName(label);

  // Dropped on an interrupt too, and found by the end-of-run check (its name carries the run id) if not.
  let dropped = false;
  let serverVersionNum = 0;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    await dropDatabase(adminUrl, name, serverVersionNum);
    dropped = true;
    unregister();
  };
  const unregister = onCleanup(drop);

  try {
    serverVersionNum = await withAdminClient(adminUrl, async (client) => {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE template0`);
      const { rows } = await client.query<{ v: string }>(`select current_setting('server_version_num') as v`);
      return Number(rows[0]?.v ?? 0);
    });
  } catch (error) {
    unregister();
    throw error;
  }

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  return { url: url.toString(), name, drop };
}

/** Disconnects whoever is still connected to `name` and drops it (if it exists). */
async function dropDatabase(adminUrl: string, name: string, serverVersionNum?: number): Promise<void> {
  await withAdminClient(adminUrl, async (client) => {
    await client.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    const version =
      serverVersionNum ||
      Number(
        (await client.query<{ v: string }>(`select current_setting('server_version_num') as v`)).rows[0]?.v,
      );
    // WITH (FORCE) (PostgreSQL 13+) also disconnects sessions that raced the terminate above.
    const force = version >= 130000 ? ' WITH (FORCE)' : '';
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}${force}`);
  });
}

/**
 * This run's databases (or those of the run `runId`) still on the server at `adminUrl` (after every test file
 * dropped its own, none): each is dropped, and its name returned for the report. No other run's are touched.
 */
export async function dropRunDatabases(adminUrl: string, runId = RUN_ID): Promise<string[]> {
  const names = await withAdminClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `select datname from pg_database where starts_with(datname, $1) order by datname`,
      [`${PREFIX}${runId}_`],
    );
    return rows.map((row) => row.datname);
  });
  for (const name of names) await dropDatabase(adminUrl, name);
  return names;
}

/**
 * As a run starts: what earlier runs that were killed outright (SIGKILL, a crash) left on this machine and this
 * server is killed, removed and dropped, and said in one line. Runs still going (others', in parallel) are left.
 */
export async function sweepAbandonedTestRuns(adminUrl: string, log: (line: string) => void): Promise<void> {
  const swept = await sweepAbandonedRuns((runId) => dropRunDatabases(adminUrl, runId));
  if (swept.runs.length === 0) return;
  log(
    `[test] cleaned up after ${swept.runs.length} earlier run(s) that did not end normally (${swept.runs.join(', ')}): ` +
      `${swept.processes.length} processes killed, ${swept.databases.length} databases dropped, ` +
      `${swept.tempDirs.length} temp dirs removed`,
  );
}

/**
 * The end of a run (vitest's global teardown, the reliability CLIs): whatever this run started that is still
 * there (processes, temp dirs, databases on the server at `adminUrl`) is killed, removed and dropped, and named in
 * the error returned; undefined when nothing was left.
 */
export async function endOfRunCheck(adminUrl: string): Promise<Error | undefined> {
  const { processes, tempDirs } = await sweepRunLeftovers();
  const databases = await dropRunDatabases(adminUrl);
  return leftoverError({ processes, tempDirs, databases });
}
