import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { migrationsAreCurrent } from './applied-migrations.js';
import { type Database, openDatabase } from './database.js';
import { applyPendingMigrations } from './migrate.js';
import { findPrismaPath } from './migration-files.js';

describe('migrationsAreCurrent (start-up skips the schema engine only when nothing can change)', () => {
  let database: Database;
  let dir: string;
  beforeAll(async () => {
    database = await openDatabase({
      databaseUrl: undefined,
      dataDir: 'memory://',
      logger: createLogger('silent'),
    });
    dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  });
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is false on a new database, true once migrated, false for a pending or an edited migration', async () => {
    expect(await migrationsAreCurrent(database.sql)).toBe(false);
    await applyPendingMigrations(database.migrationAdapter);
    expect(await migrationsAreCurrent(database.sql)).toBe(true);

    const copy = join(dir, 'migrations');
    await cp(findPrismaPath('migrations'), copy, { recursive: true });
    expect(await migrationsAreCurrent(database.sql, copy)).toBe(true);
    await mkdir(join(copy, '29991231000000_pending'));
    await writeFile(join(copy, '29991231000000_pending', 'migration.sql'), 'SELECT 1;\n');
    expect(await migrationsAreCurrent(database.sql, copy)).toBe(false);
    await rm(join(copy, '29991231000000_pending'), { recursive: true });
    await appendFile(join(copy, '20261121222712_init', 'migration.sql'), '\n-- edited\n');
    expect(await migrationsAreCurrent(database.sql, copy)).toBe(false);
  });
});
