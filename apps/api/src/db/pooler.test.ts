// Named and unnamed statements behind a real transaction-mode pooler: Debian's PgBouncer 1.18 (no
// prepared-statement tracking) in front of a test database, started by the test (test/reliability/pgbouncer.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { type Pgbouncer, startPgbouncer } from '../../test/reliability/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { ConfigError } from '../config.js';
import { createLogger } from '../logger.js';
import { openDatabase } from './database.js';
import { guarded } from './guarded-adapter.js';
import { probePooler } from './pooler.js';
import { createPgSql, createStatementNamer, type StatementMode } from './sql.js';

let testDatabase: TestDatabase;
let transaction: Pgbouncer;
let session: Pgbouncer;
/** PgBouncer as shipped: transaction mode and no ignore_startup_parameters, so it refuses statement_timeout. */
let stock: Pgbouncer;

beforeAll(async () => {
  testDatabase = await createTestDatabase('pooler');
  const serverPort = Number(new URL(testDatabase.url).port || 5432);
  [transaction, session, stock] = await Promise.all([
    startPgbouncer({ serverPort, poolMode: 'transaction', poolSize: 5 }),
    startPgbouncer({ serverPort, poolMode: 'session', poolSize: 5 }),
    startPgbouncer({ serverPort, poolMode: 'transaction', poolSize: 5, ignoreStartupParameters: false }),
  ]);
}, timeouts.hook);

afterAll(async () => {
  await Promise.all([transaction?.stop(), session?.stop(), stock?.stop()]);
  await testDatabase?.drop();
}, timeouts.hook);

const logger = createLogger('silent');

/** Runs `use` with a pool to `url` like the api's (statement_timeout as a start-up parameter), then ends it. */
async function withPool<T>(url: string, use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 10, statement_timeout: 2_500 });
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
}

/** Ten clients, twenty statements each, three statement texts: what a busy instance sends. */
async function burst(rows: (statement: string, args: number) => Promise<unknown[]>): Promise<unknown[]> {
  const failures: unknown[] = [];
  await Promise.all(
    Array.from({ length: 10 }, async (_, client) => {
      for (let i = 0; i < 20; i++) {
        const text = `SELECT $1::int + ${i % 3} AS n`;
        try {
          expect(await rows(text, client)).toEqual([{ n: client + (i % 3) }]);
        } catch (error) {
          failures.push(error);
        }
      }
    }),
  );
  return failures;
}

describe('probePooler: is a transaction-mode pooler between the api and PostgreSQL?', () => {
  it('no, straight to PostgreSQL: and the session has the statement_timeout the pool asked for', async () => {
    expect(await withPool(testDatabase.url, probePooler)).toEqual({
      transactionPooler: false,
      statementTimeout: '2500ms',
    });
  });

  it('no, through PgBouncer in session mode', async () => {
    expect((await withPool(session.through(testDatabase.url), probePooler)).transactionPooler).toBe(false);
  });

  it('yes, through PgBouncer 1.18 in transaction mode, which also drops statement_timeout', async () => {
    expect(transaction.version).toMatch(/^PgBouncer 1\./);
    expect(await withPool(transaction.through(testDatabase.url), probePooler)).toEqual({
      transactionPooler: true,
      statementTimeout: '0',
    });
  });
});

describe('DATABASE_STATEMENTS through PgBouncer 1.18 in transaction mode', () => {
  /** The api's hot-statement path on `url` (straight on pg), with the given namer, without the start-up probe. */
  async function withSql<T>(
    url: string,
    mode: StatementMode,
    use: (rows: (statement: string, n: number) => Promise<unknown[]>) => Promise<T>,
    onFallBack?: (sqlstate: string) => void,
  ): Promise<T> {
    return withPool(url, async (pool) => {
      const namer = createStatementNamer(mode, onFallBack === undefined ? {} : { onFallBack });
      const sql = createPgSql(pool, {
        namer,
        guard: (statement, run) => guarded({ logger, retryReads: true }, statement, run),
      });
      return use((statement, n) => sql.rows(statement, [{ value: n, type: 'int' }]));
    });
  }

  it('named statements fail there (the issue: "prepared statement ... already exists" / "does not exist")', async () => {
    const failures = await withSql(transaction.through(testDatabase.url), 'named', burst);
    expect(failures.length).toBeGreaterThan(0);
    expect(String(failures[0])).toMatch(/prepared statement "petstore_\d+" (already exists|does not exist)/);
  });

  it('auto falls back to unnamed on the first name clash, sends that statement again, and says so once', async () => {
    const fallBacks: string[] = [];
    const failures = await withSql(transaction.through(testDatabase.url), 'auto', burst, (sqlstate) =>
      fallBacks.push(sqlstate),
    );
    expect(failures).toEqual([]);
    expect(fallBacks).toHaveLength(1);
    expect(['42P05', '26000']).toContain(fallBacks[0]);
  });

  it('openDatabase: auto finds the pooler and sends unnamed statements; named refuses, naming the setting', async () => {
    const url = transaction.through(testDatabase.url);
    const open = (statements: StatementMode) =>
      openDatabase({ databaseUrl: url, dataDir: 'memory://', logger, databaseStatements: statements });
    for (const mode of ['auto', 'unnamed'] as const) {
      const database = await open(mode);
      try {
        expect(database.statements()).toBe('unnamed');
        expect(await burst((text, n) => database.sql.rows(text, [{ value: n, type: 'int' }]))).toEqual([]);
      } finally {
        await database.close();
      }
    }
    const refused = open('named');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      /DATABASE_STATEMENTS: is named, but DATABASE_URL leads to a transaction-mode pooler/,
    );
  });

  it('openDatabase straight to PostgreSQL keeps named statements (auto and named)', async () => {
    for (const mode of ['auto', 'named'] as const) {
      const database = await openDatabase({
        databaseUrl: testDatabase.url,
        dataDir: 'memory://',
        logger,
        databaseStatements: mode,
      });
      try {
        expect(database.statements()).toBe('named');
      } finally {
        await database.close();
      }
    }
  });
});

describe('PgBouncer as shipped (no ignore_startup_parameters): it refuses the start-up parameters', () => {
  it('a pool that sends them cannot log in (the issue: "unsupported startup parameter: statement_timeout")', async () => {
    await expect(withPool(stock.through(testDatabase.url), (pool) => pool.query('SELECT 1'))).rejects.toThrow(
      /unsupported startup parameter/,
    );
  });

  it('openDatabase connects without them, serves, keeps a client-side deadline, and says so in one line', async () => {
    const warnings = createLogger('silent');
    const warn = vi.spyOn(warnings, 'warn');
    const database = await openDatabase({
      databaseUrl: stock.through(testDatabase.url),
      dataDir: 'memory://',
      logger: warnings,
      databaseLimits: {
        statementTimeoutMs: 300,
        idleInTransactionTimeoutMs: 10_000,
        acquireTimeoutMs: 3_000,
      },
    });
    try {
      // One line at opening, whatever follows (a statement that times out is logged on its own).
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[1])).toMatch(
        /refused the start-up parameters \(unsupported startup parameter: statement_timeout\): connected without them.*client-side deadline of 300 ms.*ALTER ROLE .*ignore_startup_parameters/,
      );
      expect(database.statements()).toBe('unnamed');
      expect(await burst((text, n) => database.sql.rows(text, [{ value: n, type: 'int' }]))).toEqual([]);
      // No server-side statement_timeout arrived: the client gives up at the statement limit (a 503 class).
      await expect(database.sql.rows('SELECT pg_sleep(5)', [])).rejects.toThrow(/timed out|read timeout/i);
    } finally {
      await database.close();
    }
  });
});
