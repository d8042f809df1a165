// Real PostgreSQL errors, through the real adapters and pool: a backend terminated under a statement (what a
// restart, a failover or pg_terminate_backend does), a statement over statement_timeout, a missing table.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { startTcpProxy } from '../../test/reliability/tcp-proxy.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { parseConfig } from '../config.js';
import { toAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type Database, openDatabase } from './database.js';
import { classifyDatabaseError } from './database-errors.js';
import { QUERY_TIMEOUT_MARGIN_MS } from './database-limits.js';

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps what it is given. */
function recordingLogger(lines: LogLine[]): Logger {
  const logger: Record<string, unknown> = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) {
    logger[level] = (fields: Record<string, unknown>, message: string) =>
      lines.push({ level, fields, message });
  }
  logger.child = () => logger;
  return logger as unknown as Logger;
}

let testDatabase: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  testDatabase = await createTestDatabase('guarded_adapter');
  admin = new pg.Client({ connectionString: testDatabase.url });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query('CREATE TABLE writes (id int)');
}, timeouts.hook);

afterAll(async () => {
  await admin?.end().catch(() => {});
  await testDatabase?.drop();
}, timeouts.hook);

const opened: Database[] = [];
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
});

async function open(lines: LogLine[], statementTimeoutMs = 10_000): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: testDatabase.url,
    dataDir: 'memory://',
    logger: recordingLogger(lines),
    databaseLimits: { statementTimeoutMs, idleInTransactionTimeoutMs: 10_000, acquireTimeoutMs: 5_000 },
  });
  opened.push(database);
  return database;
}

/** Terminates the backend running `marker` as soon as it shows up in pg_stat_activity, `times` times. */
async function terminateWhenRunning(marker: string, times = 1): Promise<number> {
  let terminated = 0;
  for (let polls = 0; terminated < times && polls < 500; polls++) {
    const { rows } = await admin.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE query LIKE $1 AND query NOT LIKE '%pg_stat_activity%' AND pid <> pg_backend_pid()`,
      [`%${marker}%`],
    );
    terminated += rows.filter((row) => row.ok).length;
    if (terminated < times) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return terminated;
}

describe('an idle connection the server ends', () => {
  it('is one short warn line: the SQLSTATE and the reason, never the pg client pg-pool attaches', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    await database.sql.rows("SELECT 'idle-marker'"); // a pooled connection, idle once the statement is done
    const { rows } = await admin.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle' AND pid <> pg_backend_pid()`,
    );
    expect(rows.some((row) => row.ok)).toBe(true);
    for (let polls = 0; polls < 500 && !lines.some((line) => line.level === 'warn'); polls++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const lost = lines.filter((line) => line.message === 'idle PostgreSQL connection lost');
    expect(lost.length).toBeGreaterThan(0);
    for (const line of lost) {
      expect(line.fields).toEqual({ sqlstate: '57P01', reason: expect.stringMatching(/terminat/) });
    }
  });
});

describe('a backend terminated under a statement (57P01)', () => {
  it('retries a read once on another connection, and logs it at warn', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    const read = database.sql.rows("SELECT 42 AS answer, pg_sleep(0.3)::text, 'read-marker-1'");
    expect(await terminateWhenRunning('read-marker-1')).toBe(1);
    const rows = await read;
    expect(rows[0]?.answer).toBe(42);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/succeeded on a second connection/) }),
    ]);
  });

  it('retries a Prisma client read the same way', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    const read = database.prisma
      .$queryRawUnsafe<{ answer: number }[]>(
        "SELECT 7 AS answer, pg_sleep(0.3)::text AS slept, 'read-marker-2' AS marker",

        // A Prisma promise runs only once it is awaited or then'd.
      )
      .then((rows) => rows);
    expect(await terminateWhenRunning('read-marker-2')).toBe(1);
    expect((await read)[0]?.answer).toBe(7);
  });

  it('answers a read terminated twice with 503 and its SQLSTATE, logged once', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    const read = database.sql.rows("SELECT 1, pg_sleep(0.3)::text, 'read-marker-3'").catch((error) => error);
    expect(await terminateWhenRunning('read-marker-3', 2)).toBe(2);
    const error = await read;
    expect(classifyDatabaseError(error)).toEqual({ reason: '57P01', outcomeUnknown: true, timedOut: false });
    const answer = toAppError(error);
    expect(answer?.status).toBe(503);
    expect(answer?.headers['Retry-After']).toMatch(/^\d+$/);
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ sqlstate: '57P01', retried: true });
  });

  it('never repeats a write: 503 saying it may have been applied, and the row was written at most once', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    const write = database.sql
      .rows("INSERT INTO writes SELECT 1 FROM pg_sleep(0.3) WHERE 'write-marker' <> '' RETURNING id")
      .catch((error) => error);
    expect(await terminateWhenRunning('write-marker')).toBe(1);
    const error = await write;
    expect(error).toBeInstanceOf(Error);
    const answer = toAppError(error);
    expect(answer?.toBody()).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(answer?.message).toMatch(/may or may not have been applied.*Idempotency-Key/);
    const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM writes');
    expect(rows[0]?.n).toBe(0); // terminated before it committed, and not sent again
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.fields.sqlstate)).toEqual([
      '57P01',
    ]);
  });
});

describe('time limits', () => {
  it('cancels a statement over statement_timeout: 57014, a 503', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines, 100);
    const error = await database.sql.rows('SELECT pg_sleep(2)').catch((caught) => caught);
    expect(classifyDatabaseError(error)).toEqual({ reason: '57014', outcomeUnknown: false, timedOut: true });
    expect(toAppError(error)?.status).toBe(503);
    // Not retried: a stuck database would only double the caller's wait.
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.fields)).toEqual([
      expect.objectContaining({ sqlstate: '57014', retried: false }),
    ]);
  });
});

describe('a database that goes silent (a partition, a stopped server)', () => {
  it('fails a statement waiting for its answer past the limit: "Query read timeout", a 503 at once, not retried', async () => {
    const target = new URL(testDatabase.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      const url = new URL(testDatabase.url);
      url.port = String(proxy.port);
      const lines: LogLine[] = [];
      const database = await openDatabase({
        databaseUrl: url.toString(),
        dataDir: 'memory://',
        logger: recordingLogger(lines),
        databaseLimits: {
          statementTimeoutMs: 200,
          idleInTransactionTimeoutMs: 10_000,
          acquireTimeoutMs: 5_000,
        },
      });
      opened.push(database);
      expect(await database.sql.rows("SELECT 'before' AS answer")).toEqual([{ answer: 'before' }]);
      const connections = database.poolStats?.().total;
      expect(connections).toBeGreaterThan(0);
      // Idle in the pool for longer than the limit: the connection is kept, and answers the next statement.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await database.sql.rows("SELECT 'idle' AS answer")).toEqual([{ answer: 'idle' }]);
      expect(database.poolStats?.().total).toBe(connections);
      proxy.partition();
      const error = await database.sql.rows("SELECT 'during'").catch((caught) => caught);
      expect(classifyDatabaseError(error)).toEqual({
        reason: 'query read timeout',
        outcomeUnknown: true,
        timedOut: true,
      });
      expect(toAppError(error)?.status).toBe(503);
      expect(lines.filter((line) => line.level === 'warn').map((line) => line.fields)).toEqual([
        expect.objectContaining({ reason: 'query read timeout', retried: false }),
      ]);
      await proxy.restore();
      // The connection given up is gone from the pool; a new one answers.
      expect(await database.sql.rows("SELECT 'after' AS answer")).toEqual([{ answer: 'after' }]);
    } finally {
      await proxy.close();
    }
  });

  it("gives pg's own query_timeout verdict (the stock part, as the oracle): the same error, the same classification", async () => {
    const target = new URL(testDatabase.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(testDatabase.url);
    url.port = String(proxy.port);
    const stock = new pg.Pool({ connectionString: url.toString(), max: 1, query_timeout: 200 });
    stock.on('error', () => {});
    try {
      const database = await openDatabase({
        databaseUrl: url.toString(),
        dataDir: 'memory://',
        logger: recordingLogger([]),
        databaseLimits: {
          statementTimeoutMs: 200,
          idleInTransactionTimeoutMs: 10_000,
          acquireTimeoutMs: 5_000,
        },
      });
      opened.push(database);
      await database.sql.rows('SELECT 1');
      await stock.query('SELECT 1');
      proxy.partition();
      const [ours, theirs] = await Promise.all([
        database.sql.rows("SELECT 'ours'").catch((caught: unknown) => caught),
        stock.query("SELECT 'theirs'").catch((caught: unknown) => caught),
      ]);
      expect(ours).toBeInstanceOf(Error);
      expect((ours as Error).message).toBe((theirs as Error).message);
      expect(classifyDatabaseError(ours)).toEqual(classifyDatabaseError(theirs));
      expect(toAppError(ours)?.toBody()).toEqual(toAppError(theirs)?.toBody());
    } finally {
      await proxy.restore();
      await stock.end().catch(() => {});
      await proxy.close();
    }
  });
});

describe('the largest time limits the configuration accepts', () => {
  it('are taken by PostgreSQL and by Node, with no timer overflowing', async () => {
    const { databaseLimits } = parseConfig({
      DATABASE_STATEMENT_TIMEOUT_MS: String(2_147_483_647 - QUERY_TIMEOUT_MARGIN_MS),
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2147483647',
      DATABASE_ACQUIRE_TIMEOUT_MS: '2147483647',
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const database = await openDatabase({
        databaseUrl: testDatabase.url,
        dataDir: 'memory://',
        logger: recordingLogger([]),
        databaseLimits,
      });
      opened.push(database);
      expect(
        await database.sql.rows(
          "SELECT current_setting('statement_timeout') AS s, current_setting('idle_in_transaction_session_timeout') AS i",
        ),
      ).toEqual([{ s: '2147483147ms', i: '2147483647ms' }]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('our schema missing (a database restored empty)', () => {
  it('answers 503, not 500, for a missing table (42P01)', async () => {
    const lines: LogLine[] = [];
    const database = await open(lines);
    const error = await database.sql.rows('SELECT id FROM pets WHERE id = 1').catch((caught) => caught);
    expect(classifyDatabaseError(error)?.reason).toBe('42P01');
    expect(toAppError(error)?.status).toBe(503);
  });

  it('answers 503 for a missing database (3D000)', async () => {
    const lines: LogLine[] = [];
    const url = new URL(testDatabase.url);
    url.pathname = '/petstore_test_no_such_database';
    const database = await openDatabase({
      databaseUrl: url.toString(),
      dataDir: 'memory://',
      logger: recordingLogger(lines),
    });
    opened.push(database);
    const error = await database.sql.rows('SELECT 1').catch((caught) => caught);
    expect(classifyDatabaseError(error)?.reason).toBe('3D000');
    expect(toAppError(error)?.status).toBe(503);
  });
});
