// The migration tooling's tests, for any database: this package runs them on in-memory PGlite, the api on its
// test PostgreSQL server (with the advisory lock, which only it can hold from outside). Tests only: the package
// exports this file under its source condition alone, and its build leaves it out.
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlMigrationAwareDriverAdapterFactory } from './index.js';
import { applyPendingMigrations } from './migrate.js';
import { findPrismaPath } from './migration-files.js';

export const migrationsDir = findPrismaPath('migrations');

/** The committed migrations' names, in the order they apply. */
export const committedMigrations = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the committed migrations to tamper with; removed after the test file. */
export function migrationsCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-migrations-'));
  copies.push(dir);
  cpSync(migrationsDir, dir, { recursive: true });
  return dir;
}

export interface MigrationTestDatabase {
  migrationAdapter: SqlMigrationAwareDriverAdapterFactory;
  query(sql: string): Promise<Record<string, unknown>[]>;
}

/**
 * The tooling's contract on one empty database `open` makes (and `close` removes): the committed migrations
 * applied once even by two migrators at once, recorded as `prisma migrate deploy` records them, an edited history
 * refused, and a failing migration applied not at all. `more` adds the caller's own tests on the migrated database,
 * before the failing migration (last: it blocks further migrations).
 */
export function describeMigrationTooling(
  name: string,
  {
    open,
    close,
    timeout,
  }: { open(): Promise<MigrationTestDatabase>; close(): Promise<void>; timeout: number },
  more?: (db: () => MigrationTestDatabase) => void,
): void {
  describe(name, () => {
    let opened: MigrationTestDatabase | undefined;
    const db = () => {
      if (!opened) throw new Error('beforeAll did not open the database');
      return opened;
    };
    beforeAll(async () => {
      opened = await open();
    }, timeout);
    afterAll(close, timeout);

    it(
      'applies the committed migrations once, even to two migrators starting together',
      async () => {
        const runs = await Promise.all([
          applyPendingMigrations(db().migrationAdapter),
          applyPendingMigrations(db().migrationAdapter),
        ]);
        expect(runs.map((run) => run.applied.join()).sort()).toEqual(['', committedMigrations.join()]);
        expect(await applyPendingMigrations(db().migrationAdapter)).toEqual({ applied: [] });
      },
      timeout,
    );

    it("records them in _prisma_migrations as 'prisma migrate deploy' does", async () => {
      const rows = await db().query(
        'SELECT migration_name, checksum, finished_at, rolled_back_at, logs, applied_steps_count ' +
          'FROM _prisma_migrations ORDER BY started_at',
      );
      expect(rows).toEqual(
        committedMigrations.map((migration) => ({
          migration_name: migration,
          checksum: createHash('sha256')
            .update(readFileSync(join(migrationsDir, migration, 'migration.sql')))
            .digest('hex'),
          finished_at: expect.any(Date),
          rolled_back_at: null,
          logs: null,
          applied_steps_count: 1,
        })),
      );
    });

    it(
      'refuses to run, applying nothing, once an applied migration was modified',
      async () => {
        const dir = migrationsCopy();
        const [first] = committedMigrations;
        appendFileSync(join(dir, `${first}`, 'migration.sql'), '\n-- edited after the fact\n');
        mkdirSync(join(dir, '99999999999999_next'));
        writeFileSync(join(dir, '99999999999999_next', 'migration.sql'), 'CREATE TABLE next (id int);');

        await expect(applyPendingMigrations(db().migrationAdapter, { migrationsDir: dir })).rejects.toThrow(
          `Refusing to migrate: ${first} changed after being applied to this database`,
        );
        expect(await db().query(`SELECT to_regclass('next') AS next`)).toEqual([{ next: null }]);
      },
      timeout,
    );

    more?.(db);

    it(
      'applies a failing migration not at all, and then stops, as Prisma does (P3009)',
      async () => {
        const dir = migrationsCopy();
        mkdirSync(join(dir, '99999999999999_broken'));
        writeFileSync(
          join(dir, '99999999999999_broken', 'migration.sql'),
          "CREATE TABLE broken (id int);\nINSERT INTO broken VALUES ('not; a number');\n",
        );

        await expect(applyPendingMigrations(db().migrationAdapter, { migrationsDir: dir })).rejects.toThrow(
          'invalid input syntax for type integer: "not; a number"',
        );
        expect(await db().query(`SELECT to_regclass('broken') AS broken`)).toEqual([{ broken: null }]);
        expect(
          await db().query(
            `SELECT finished_at, logs IS NOT NULL AS logged FROM _prisma_migrations WHERE migration_name = '99999999999999_broken'`,
          ),
        ).toEqual([{ finished_at: null, logged: true }]);
        await expect(
          applyPendingMigrations(db().migrationAdapter, { migrationsDir: dir }),
        ).rejects.toMatchObject({ code: 'P3009' });
      },
      timeout,
    );
  });
}
