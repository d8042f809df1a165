import { migrateIfNeeded } from '@petstore/migrations';
import { ConfigError } from '../config-error.js';
import { createLogger } from '../logger.js';
import { type Database, type DatabaseOptions, openDatabase, redactUrl } from './database.js';
import { classifyDatabaseError } from './database-errors.js';

/**
 * Applies pending migrations (none: no schema engine loaded), at start-up and in the command-line tools alike. A
 * database that cannot serve at all is the operator's to fix (a URL, a server down, a database not created): one
 * line naming DATABASE_URL and what to do, a ConfigError, printed without a stack.
 */
export async function migrateConfiguredDatabase(database: Database, databaseUrl: string | undefined) {
  return migrateIfNeeded(database).catch((error: unknown) => {
    const unavailable = classifyDatabaseError(error);
    if (unavailable === undefined || databaseUrl === undefined) throw error;
    // Neither start-up nor `pnpm db:migrate` creates the database itself (docs/operations.md#running-on-postgresql).
    const todo =
      unavailable.reason === '3D000'
        ? `Create it (createdb ${decodeURIComponent(new URL(databaseUrl).pathname.slice(1))}), or check the URL.`
        : 'Check the URL, and that PostgreSQL runs and takes connections.';
    throw new ConfigError(
      `DATABASE_URL=${redactUrl(databaseUrl)}: the database cannot serve (${unavailable.reason}: ` +
        `${(error as Error).message.split('\n', 1)[0]}). ${todo}`,
    );
  });
}

/**
 * For command-line tools: opens the database the app would use (DATABASE_URL, or the embedded PGlite in
 * DATA_DIR), applies pending migrations as the app does at start-up, runs `use`, and closes it. Its logger is
 * quiet: a tool's failure is its one line, not the server's JSON warnings.
 */
export async function withConfiguredDatabase<T>(
  config: Omit<DatabaseOptions, 'logger'>,
  use: (database: Database, applied: string[]) => Promise<T>,
): Promise<T> {
  // The primary alone: a tool opens no replica (DATABASE_READ_URL), even when given the whole Config.
  const database = await openDatabase({ ...config, databaseReadUrls: [], logger: createLogger('error') });
  try {
    const { applied } = await migrateConfiguredDatabase(database, config.databaseUrl);
    return await use(database, applied);
  } finally {
    await database.close();
  }
}
