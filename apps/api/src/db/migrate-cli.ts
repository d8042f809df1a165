// `pnpm db:migrate`: applies pending migrations to the database the app would use (DATABASE_URL, or the
// embedded PGlite in DATA_DIR), exactly as the app does at start-up, then exits.
import { ConfigError, parseConfig } from '../config.js';
import { withConfiguredDatabase } from './with-configured-database.js';

try {
  await withConfiguredDatabase(parseConfig(process.env), async (database, applied) => {
    console.log(
      applied.length === 0
        ? `${database.description}: up to date, no pending migrations`
        : `${database.description}: applied ${applied.join(', ')}`,
    );
  });
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`,
  );
  process.exitCode = 1;
}
