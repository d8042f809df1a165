import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findPrismaPath, listMigrationNames } from './migration-files.js';

/**
 * What these checks need of a database: one statement's rows, as records keyed by column name (each statement
 * below names its columns, and its rows are typed by those names). The api's `Sql` (apps/api/src/db/sql.ts) is
 * one; so is a test's wrapper around PGlite's `query`.
 */
export interface MigrationSql {
  rows(text: string): Promise<object[]>;
}

/**
 * The migrations Prisma's `_prisma_migrations` table records as applied: finished and not rolled back.
 *
 * Asked on `sql` (in the api, db/sql.ts), not through the Prisma client: /readyz asks it every second or so, and the
 * client's first query loads its WebAssembly query compiler, about 24 MB of resident memory that the server otherwise
 * never needs (issue 28). Its rows were the same either way: one column of text.
 */
export async function appliedMigrationNames(sql: MigrationSql): Promise<string[]> {
  const applied = (await sql.rows(
    'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  )) as { name: string }[];
  return applied.map(({ name }) => name);
}

/**
 * True when the database already has exactly the committed migrations, each applied from the file as it is now
 * (Prisma records a SHA-256 of each migration.sql), and no failed one: then start-up has nothing to migrate and
 * need not load the schema engine (about 85 ms of a 330 ms start). Anything else (a new database, a pending or
 * edited migration, a failed one, a missing table) answers false, and the engine decides as before.
 */
export async function migrationsAreCurrent(
  sql: MigrationSql,
  migrationsDir = findPrismaPath('migrations'),
): Promise<boolean> {
  // Asked first rather than caught: a missing table is, for every other statement, a database that cannot serve
  // (42P01, logged at warn and retried: the api's db/guarded-adapter.ts), but here only a new database.
  const [table] = (await sql.rows("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists")) as {
    exists: boolean;
  }[];
  if (table?.exists !== true) return false; // no table yet: a new database
  const recorded = (await sql.rows(
    'SELECT migration_name AS name, checksum, finished_at IS NOT NULL AS finished, ' +
      'rolled_back_at IS NOT NULL AS "rolledBack" FROM _prisma_migrations',
  )) as { name: string; checksum: string; finished: boolean; rolledBack: boolean }[];
  const applied = new Map<string, string>();
  for (const { name, checksum, finished, rolledBack } of recorded) {
    if (rolledBack) continue;
    if (!finished) return false; // a failed migration: the engine reports it
    applied.set(name, checksum);
  }
  const names = await listMigrationNames(migrationsDir);
  if (names.length !== applied.size) return false;
  for (const name of names) {
    const content = await readFile(join(migrationsDir, name, 'migration.sql')).catch(() => undefined);
    if (content === undefined || applied.get(name) !== createHash('sha256').update(content).digest('hex')) {
      return false;
    }
  }
  return true;
}
