import { applyPendingMigrations, listMigrationNames } from '@petstore/migrations';
import type { Express } from 'express';
import { type AppDeps, createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { TEST_API_KEY } from './test-server.js';

/**
 * An embedded PGlite database in memory, every migration applied: for tests that need the schema but not a
 * PostgreSQL server. The caller closes it.
 */
export async function openMigratedMemoryDatabase(logger: Logger = createLogger('silent')): Promise<Database> {
  const database = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', logger });
  await applyPendingMigrations(database.migrationAdapter);
  return database;
}

/**
 * The API on such a database, with a silent logger, the test key and this build's migrations; `deps` adds to them or
 * replaces them. The caller closes the database.
 */
export async function openMemoryApp(
  deps: Partial<AppDeps> = {},
): Promise<{ database: Database; app: Express }> {
  const logger = createLogger('silent');
  const database = await openMigratedMemoryDatabase(logger);
  const app = createApp({
    sql: database.sql,
    logger,
    apiKeys: [TEST_API_KEY],
    migrations: await listMigrationNames(),
    ...deps,
  });
  return { database, app };
}
