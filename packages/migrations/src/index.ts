// What a process that opens the database needs: apply pending migrations (migrateIfNeeded at start-up,
// applyPendingMigrations in tests), what the database has applied (/readyz), which migrations this build has,
// and the PostgreSQL migration adapter. The PGlite adapter is its own entry (`@petstore/migrations/pglite`),
// so that a process on PostgreSQL never loads PGlite; authoring (migration-diff.ts, new-migration-cli.ts) is
// not exported: `pnpm db:migration:new` runs it from this package.
export { appliedMigrationNames, type MigrationSql, migrationsAreCurrent } from './applied-migrations.js';
export {
  applyPendingMigrations,
  MIGRATION_ADVISORY_LOCK_KEY,
  migrateIfNeeded,
  type SqlMigrationAwareDriverAdapterFactory,
} from './migrate.js';
export { pgMigrationAdapter } from './migration-adapters.js';
export { findPrismaPath, listMigrationNames } from './migration-files.js';
