// Authoring migrations (`pnpm db:migration:new`): what SQL brings the committed migrations up to
// prisma/schema.prisma. Not loaded by the app.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { findPrismaPath, MIGRATION_LOCK_CONTENT, readMigrations } from './migration-files.js';
import { pgliteMigrationAdapter } from './pglite-migration-adapter.js';
import { NO_FILTERS, withSchemaEngine } from './schema-engine.js';

/**
 * The SQL that brings a database built from the committed migrations to prisma/schema.prisma, in the
 * format of a Prisma migration file; the empty string when they agree.
 *
 * Needs no database: the engine replays the migrations on a shadow database, here a throwaway in-memory
 * PGlite (it also insists on a main connection, another throwaway PGlite it never reads).
 */
export async function diffMigrationsToSchema(
  options: { migrationsDir?: string; schemaPath?: string } = {},
): Promise<string> {
  const schemaPath = options.schemaPath ?? findPrismaPath('schema.prisma');
  const migrationsDir = options.migrationsDir ?? join(dirname(schemaPath), 'migrations');
  const [schema, migrations] = await Promise.all([
    readFile(schemaPath, 'utf8'),
    readMigrations(migrationsDir),
  ]);
  // The engine reads the provider from the lock file; before the first migration there is none yet.
  migrations.lockfile.content ??= MIGRATION_LOCK_CONTENT;

  const scratch = new PGlite();
  try {
    const { exitCode, stdout } = await withSchemaEngine(pgliteMigrationAdapter(scratch), (engine) =>
      engine.diff({
        from: { tag: 'migrations', ...migrations },
        to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
        script: true,
        exitCode: true, // makes the engine answer 2 when there is a difference
        filters: NO_FILTERS,
      }),
    );
    return exitCode === 2 ? (stdout ?? '') : '';
  } finally {
    await scratch.close();
  }
}
