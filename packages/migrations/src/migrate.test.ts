// The migration tooling on an in-memory PGlite: applying the committed migrations (prisma/migrations) as
// `prisma migrate deploy` does, refusing an edited history, a failing migration applied not at all, and the
// committed migrations against prisma/schema.prisma. The same on PostgreSQL (pgMigrationAdapter, the advisory lock)
// runs in the api's tests (apps/api/src/db/migrations.test.ts), where the test PostgreSQL server is.
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
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { applyPendingMigrations } from './migrate.js';
import { diffMigrationsToSchema } from './migration-diff.js';
import { findPrismaPath } from './migration-files.js';
import { pgliteMigrationAdapter } from './pglite-migration-adapter.js';

const migrationsDir = findPrismaPath('migrations');
const committed = readdirSync(migrationsDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const checksumOf = (dir: string, name: string) =>
  createHash('sha256')
    .update(readFileSync(join(dir, name, 'migration.sql')))
    .digest('hex');

/** A copy of the committed migrations to tamper with; removed after the run. */
function migrationsCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-migrations-'));
  cpSync(migrationsDir, dir, { recursive: true });
  return dir;
}
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('on in-memory PGlite', () => {
  let pglite: PGlite | undefined;
  const db = () => {
    if (!pglite) throw new Error('beforeAll did not open the database');
    const opened = pglite;
    return {
      migrationAdapter: pgliteMigrationAdapter(opened),
      query: async (sql: string) => (await opened.query<Record<string, unknown>>(sql)).rows,
    };
  };
  beforeAll(() => {
    pglite = new PGlite();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it(
    'applies the committed migrations once, even to two migrators starting together',
    async () => {
      const runs = await Promise.all([
        applyPendingMigrations(db().migrationAdapter),
        applyPendingMigrations(db().migrationAdapter),
      ]);
      expect(runs.map((run) => run.applied.join()).sort()).toEqual(['', committed.join()]);
      expect(await applyPendingMigrations(db().migrationAdapter)).toEqual({ applied: [] });
    },
    timeouts.server,
  );

  it("records them in _prisma_migrations as 'prisma migrate deploy' does", async () => {
    const rows = await db().query(
      'SELECT migration_name, checksum, finished_at, rolled_back_at, logs, applied_steps_count ' +
        'FROM _prisma_migrations ORDER BY started_at',
    );
    expect(rows).toEqual(
      committed.map((name) => ({
        migration_name: name,
        checksum: checksumOf(migrationsDir, name),
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
      copies.push(dir);
      const [first] = committed;
      appendFileSync(join(dir, `${first}`, 'migration.sql'), '\n-- edited after the fact\n');
      mkdirSync(join(dir, '99999999999999_next'));
      writeFileSync(join(dir, '99999999999999_next', 'migration.sql'), 'CREATE TABLE next (id int);');

      await expect(applyPendingMigrations(db().migrationAdapter, { migrationsDir: dir })).rejects.toThrow(
        `Refusing to migrate: ${first} changed after being applied to this database`,
      );
      expect(await db().query(`SELECT to_regclass('next') AS next`)).toEqual([{ next: null }]);
    },
    timeouts.server,
  );

  // Last: it leaves the database with a failed migration, which blocks further migrations.
  it(
    'applies a failing migration not at all, and then stops, as Prisma does (P3009)',
    async () => {
      const dir = migrationsCopy();
      copies.push(dir);
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
      ).rejects.toMatchObject({
        code: 'P3009',
      });
    },
    timeouts.server,
  );
});

describe('the committed migrations', () => {
  it(
    'build exactly prisma/schema.prisma (no drift)',
    async () => {
      expect(await diffMigrationsToSchema()).toBe('');
    },
    timeouts.server,
  );
});
