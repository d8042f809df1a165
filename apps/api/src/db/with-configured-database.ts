import { migrateIfNeeded } from '@petstore/migrations';
import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { type Database, openDatabase } from './database.js';

/**
 * For command-line tools: opens the database the app would use (DATABASE_URL, or the embedded PGlite in
 * DATA_DIR), applies pending migrations as the app does at start-up (none to apply: no schema engine loaded),
 * runs `use`, and closes it.
 */
export async function withConfiguredDatabase<T>(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<Config, 'databaseLimits' | 'databaseStatements'>>,
  use: (database: Database, applied: string[]) => Promise<T>,
): Promise<T> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger: createLogger('warn'),
    limits: config.databaseLimits,
    statements: config.databaseStatements,
  });
  try {
    const { applied } = await migrateIfNeeded(database);
    return await use(database, applied);
  } finally {
    await database.close();
  }
}
