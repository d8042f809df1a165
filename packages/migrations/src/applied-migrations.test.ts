import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { type MigrationSql, migrationsAreCurrent } from './applied-migrations.js';
import { applyPendingMigrations } from './migrate.js';
import { findPrismaPath } from './migration-files.js';
import { pgliteMigrationAdapter } from './pglite-migration-adapter.js';

describe('migrationsAreCurrent (start-up skips the schema engine only when nothing can change)', () => {
  const pglite = new PGlite();
  const sql: MigrationSql = { rows: async (text) => (await pglite.query<object>(text)).rows };
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  });
  afterAll(async () => {
    await pglite.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'is false on a new database, true once migrated, false for a pending or an edited migration',
    async () => {
      expect(await migrationsAreCurrent(sql)).toBe(false);
      await applyPendingMigrations(pgliteMigrationAdapter(pglite));
      expect(await migrationsAreCurrent(sql)).toBe(true);

      const copy = join(dir, 'migrations');
      await cp(findPrismaPath('migrations'), copy, { recursive: true });
      expect(await migrationsAreCurrent(sql, copy)).toBe(true);
      await mkdir(join(copy, '29991231000000_pending'));
      await writeFile(join(copy, '29991231000000_pending', 'migration.sql'), 'SELECT 1;\n');
      expect(await migrationsAreCurrent(sql, copy)).toBe(false);
      await rm(join(copy, '29991231000000_pending'), { recursive: true });
      await appendFile(join(copy, '20261121222712_init', 'migration.sql'), '\n-- edited\n');
      expect(await migrationsAreCurrent(sql, copy)).toBe(false);
    },
    timeouts.server,
  );
});
