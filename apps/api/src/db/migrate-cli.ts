// `pnpm db:migrate`: applies pending migrations to the database the app would use (DATABASE_URL, or the
// embedded PGlite in DATA_DIR), exactly as the app does at start-up, then exits.
import { ConfigError, parseConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openDatabase } from './database.js';
import { applyPendingMigrations } from './migrate.js';

try {
  const config = parseConfig(process.env);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger: createLogger('warn'),
  });
  try {
    const { applied } = await applyPendingMigrations(database.migrationAdapter);
    console.log(
      applied.length === 0
        ? `${database.description}: up to date, no pending migrations`
        : `${database.description}: applied ${applied.join(', ')}`,
    );
  } finally {
    await database.close();
  }
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`,
  );
  process.exitCode = 1;
}
