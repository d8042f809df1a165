import { type Database, openDatabase } from '../../src/db/database.js';
import { applyPendingMigrations } from '../../src/db/migrate.js';
import { createLogger, type Logger } from '../../src/logger.js';

/**
 * An embedded PGlite database in memory, every migration applied: for tests that need the schema but not a
 * PostgreSQL server. The caller closes it.
 */
export async function openMigratedMemoryDatabase(logger: Logger = createLogger('silent')): Promise<Database> {
  const database = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', logger });
  await applyPendingMigrations(database.migrationAdapter);
  return database;
}
