// Applies migrations with Prisma's WebAssembly schema engine (see schema-engine.ts): `prisma migrate deploy`
// without the native engine. It applies the committed migrations in prisma/migrations that the database has
// not seen and records them in Prisma's `_prisma_migrations` table, so the Prisma CLI (`migrate status`,
// `migrate deploy`) agrees with it wherever it can run.
//
// The other jobs live next to it: migration-files.ts (reading prisma/migrations), migration-adapters.ts and
// pglite-migration-adapter.ts (how the engine reaches each database), migration-diff.ts (authoring).
import { existsSync } from 'node:fs';
import type { SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { type MigrationSql, migrationsAreCurrent } from './applied-migrations.js';
import { findPrismaPath, readMigrations } from './migration-files.js';
import { NO_FILTERS, withSchemaEngine } from './schema-engine.js';

export type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * The PostgreSQL advisory lock (`pg_advisory_xact_lock`) held while migrating: "PetS" in ASCII.
 * Deliberately not Prisma's own key (72707369), which the engine takes itself on another connection.
 */
export const MIGRATION_ADVISORY_LOCK_KEY = 0x50657453;

/**
 * What a process that opens the database does first (the server at start-up, `pnpm keys`, `pnpm db:migrate`):
 * nothing when the database already has every committed migration (the usual case: no schema engine to load,
 * which is most of a key command's time), else {@link applyPendingMigrations} under its lock.
 */
export async function migrateIfNeeded(database: {
  sql: MigrationSql;
  migrationAdapter: SqlMigrationAwareDriverAdapterFactory;
}): Promise<{ applied: string[] }> {
  if (await migrationsAreCurrent(database.sql)) return { applied: [] };
  return applyPendingMigrations(database.migrationAdapter);
}

/**
 * Applies every committed migration the database has not seen yet, in name order, like
 * `prisma migrate deploy`. Idempotent: a second call applies nothing.
 *
 * Refuses (throws, applying nothing) when a migration was modified after it was applied, that is when
 * its checksum in `_prisma_migrations` no longer matches the file; `prisma migrate deploy` would carry on.
 * Refuses too, with Prisma's error P3009, while a failed migration is recorded.
 *
 * Safe when several processes start at once against one PostgreSQL database: they take turns.
 *
 * Pass a factory from pgMigrationAdapter or pgliteMigrationAdapter, not the adapter the Prisma client
 * uses: those fix how the adapters run migration scripts (see sendScriptsWhole), and pgMigrationAdapter
 * opens connections of its own, which matters because the engine holds Prisma's advisory lock until its
 * connection closes, so on a shared pool (`new PrismaPg(pool)`) the lock would outlive the migration.
 */
export async function applyPendingMigrations(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  options: { migrationsDir?: string } = {},
): Promise<{ applied: string[] }> {
  const migrationsDir = options.migrationsDir ?? findPrismaPath('migrations');
  if (!existsSync(migrationsDir)) {
    throw new Error(`No migrations directory at ${migrationsDir}`);
  }
  const migrationsList = await readMigrations(migrationsDir);

  return withMigrationLock(adapterFactory, () =>
    withSchemaEngine(adapterFactory, async (engine) => {
      const { editedMigrationNames } = await engine.diagnoseMigrationHistory({
        migrationsList,
        optInToShadowDatabase: false,
        filters: NO_FILTERS,
      });
      if (editedMigrationNames.length > 0) {
        throw new Error(
          `Refusing to migrate: ${editedMigrationNames.join(', ')} changed after being applied to this database ` +
            `(checksum in _prisma_migrations differs from the file in ${migrationsDir}). ` +
            'Restore the committed file; a schema change needs a new migration (pnpm db:migration:new <name>).',
        );
      }
      const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
      return { applied: appliedMigrationNames };
    }),
  );
}

/** Settles when the PGlite migration running in this process, if any, has finished. */
let pgliteMigrations: Promise<void> = Promise.resolve();

/**
 * Runs `fn` holding MIGRATION_ADVISORY_LOCK_KEY, so that concurrent migrators take turns and each sees the
 * history as the previous one left it. The engine's own lock is not enough: a waiter gives up after 10 s,
 * which a long migration exceeds. This one is taken in a transaction on a connection of its own, and so is
 * released by the rollback at the end or if the process dies.
 *
 * PGlite is different: an embedded database has a single connection, which only this process can reach
 * and on which a transaction held open would block the engine's queries (and an advisory lock taken on it
 * would not keep out a second migrator in this process, which shares the session). There, migrators take
 * turns within the process instead.
 */
async function withMigrationLock<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  fn: () => Promise<T>,
): Promise<T> {
  const connection = await adapterFactory.connect();
  try {
    const { rows } = await connection.queryRaw(sql('SELECT version()'));
    if (String(rows[0]?.[0]).includes('PGlite')) {
      const turn = pgliteMigrations.then(fn);
      pgliteMigrations = turn.then(
        () => {},
        () => {},
      );
      return await turn;
    }

    const transaction = await connection.startTransaction();
    try {
      await transaction.executeRaw(sql(`SELECT pg_advisory_xact_lock(${MIGRATION_ADVISORY_LOCK_KEY})`));
      return await fn();
    } finally {
      // Adapters leave sending COMMIT/ROLLBACK to their caller: rollback() only releases the connection.
      await transaction.executeRaw(sql('ROLLBACK'));
      await transaction.rollback();
    }
  } finally {
    await connection.dispose();
  }
}

function sql(text: string): SqlQuery {
  return { sql: text, args: [], argTypes: [] };
}
