// PGlite's side of "the database cannot serve this now": a data directory that cannot be opened stops the
// start-up with a message naming it (never a process answering 500 to everything), and a closed database is a 503.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../../tooling/vitest.shared.js';
import { startApiProcess } from '../../test/reliability/api-process.js';
import { makeTempDir, removeTempDir } from '../../test/support/run-registry.js';
import { toAppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { openDatabase } from './database.js';
import { statement } from './sql.js';

const logger = createLogger('silent');
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTempDir(dir);
});

async function tempDir(): Promise<string> {
  const dir = await makeTempDir('petstore-pglite-dir-');
  dirs.push(dir);
  return dir;
}

/** A data directory PGlite made, then damaged: its control file overwritten. */
async function damagedDataDir(): Promise<string> {
  const dir = await tempDir();
  const database = await openDatabase({ databaseUrl: undefined, dataDir: dir, logger });
  await database.close();
  await writeFile(join(dir, 'pglite', 'global', 'pg_control'), Buffer.alloc(8192, 7));
  return dir;
}

const UNUSABLE = /the embedded database in .*pglite cannot be opened .*Restore DATA_DIR from a backup/s;

describe('a PGlite data directory that cannot be opened', () => {
  it.each([
    ['damaged (pg_control overwritten)', damagedDataDir],
    [
      'not PGlite files (a foreign PG_VERSION)',
      async () => {
        const dir = await tempDir();
        await mkdir(join(dir, 'pglite'));
        await writeFile(join(dir, 'pglite', 'PG_VERSION'), 'garbage\n');
        return dir;
      },
    ],
    [
      'a file where the directory should be',
      async () => {
        const dir = await tempDir();
        await writeFile(join(dir, 'pglite'), 'not a directory');
        return dir;
      },
    ],
  ])(
    '%s: opening fails with a message naming it, and leaves the directory unlocked',
    async (_name, prepare) => {
      const dataDir = await prepare();
      await expect(openDatabase({ databaseUrl: undefined, dataDir, logger })).rejects.toThrow(UNUSABLE);
      // Released: a second attempt fails the same way, not with "in use by another process".
      await expect(openDatabase({ databaseUrl: undefined, dataDir, logger })).rejects.toThrow(UNUSABLE);
    },
    timeouts.server,
  );

  it(
    'stops the api process at start-up (exit 1, never listening) with that message',
    async () => {
      const dataDir = await damagedDataDir();
      const started = startApiProcess({ dataDir, startTimeoutMs: scaled(60_000) });
      await expect(started).rejects.toThrow(/api exited \(1\) before listening/);
      await expect(started).rejects.toThrow(UNUSABLE);
    },
    timeouts.process,
  );
});

describe('a closed PGlite', () => {
  it(
    'answers 503, not 500, logged once and not retried (one in-process database: nothing else to try)',
    async () => {
      const warnings: Record<string, unknown>[] = [];
      const recording = Object.assign(Object.create(logger) as typeof logger, {
        warn: (fields: Record<string, unknown>) => warnings.push(fields),
      });
      const database = await openDatabase({
        databaseUrl: undefined,
        dataDir: 'memory://',
        logger: recording,
      });
      await database.close();
      const error = await database.sql.rows('SELECT 1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(toAppError(error)?.status).toBe(503);
      expect(warnings).toEqual([expect.objectContaining({ reason: 'closed', retried: false })]);
    },
    timeouts.server,
  );
});

describe('a PGlite data directory reached through a symbolic link', () => {
  it(
    'opens the database the link points at (PGlite does not follow links itself: it failed with "[object Object]")',
    async () => {
      const real = await tempDir();
      const first = await openDatabase({ databaseUrl: undefined, dataDir: real, logger });
      await first.sql.rows(statement('CREATE TABLE linked_marker (id int)'));
      await first.close();
      const linked = await tempDir();
      await symlink(join(real, 'pglite'), join(linked, 'pglite'));
      const database = await openDatabase({ databaseUrl: undefined, dataDir: linked, logger });
      try {
        const rows = await database.sql.rows(
          statement<{ found: boolean }>(`SELECT to_regclass('linked_marker') IS NOT NULL AS found`),
        );
        expect(rows).toEqual([{ found: true }]);
      } finally {
        await database.close();
      }
    },
    timeouts.server,
  );
});
