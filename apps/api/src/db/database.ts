import { mkdir, realpath } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { pgMigrationAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@petstore/migrations';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { ConfigError } from '../config-error.js';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';
import { sqlStateOf } from './database-errors.js';
import { type DatabaseLimits, DEFAULT_DATABASE_LIMITS, QUERY_TIMEOUT_MARGIN_MS } from './database-limits.js';
import { guardAdapter, guardAdapterFactory, guarded } from './guarded-adapter.js';
import { probePooler } from './pooler.js';
import { createReadReplicas, type ReadReplicas } from './read-replicas.js';
import { createAdapterSql, createPgSql, createStatementNamer, type Sql, type StatementMode } from './sql.js';
import { pgliteWakeups, pgWakeups, silentWakeups, type Wakeups } from './wakeups.js';

// The generated client stays behind db/ (.dependency-cruiser.cjs): the rest of the api names its type from here.
export type { PrismaClient };

export type DatabaseKind = 'postgresql' | 'pglite';

/** The pool's connections at a metrics scrape (observability/metrics.ts); `waiting` counts queries, `max` is its size. */
export type PoolStats = Record<'total' | 'idle' | 'waiting' | 'max', number>;

/** An open database; both kinds run the same Prisma client, migrations and hot statements (db/sql.ts). */
export interface Database {
  kind: DatabaseKind;
  /** For logs and the startup line; never contains a password. */
  description: string;
  prisma: PrismaClient;
  sql: Sql;
  /** How the hot statements are sent right now (DATABASE_STATEMENTS; always named on PGlite, which has no pooler). */
  statements(): 'named' | 'unnamed';
  /** The reads' routing to DATABASE_READ_URL's replicas, when it lists any (PostgreSQL only). */
  replicas?: ReadReplicas;
  migrationAdapter: SqlMigrationAwareDriverAdapterFactory;
  /** PostgreSQL only: PGlite runs one statement at a time, with no pool to watch. */
  poolStats?: () => PoolStats;
  /** The change feed's wake-ups (openListenWakeups; PGlite's own listen), closed by close(). */
  petEventWakeups(listenUrl?: string): Promise<Wakeups>;
  close(): Promise<void>;
}

/** Named as in the Config, so that start-up passes its own (config.ts names the variables). */
export interface DatabaseOptions {
  /** PostgreSQL when set; otherwise embedded PGlite. */
  databaseUrl: string | undefined;
  /** Where PGlite keeps its files (`<dataDir>/pglite`); `memory://` keeps them in memory (tests). */
  dataDir: string;
  logger: Logger;
  /** The rest is for PostgreSQL only. */
  poolSize?: number;
  databaseLimits?: DatabaseLimits;
  databaseStatements?: StatementMode;
  databaseReadUrls?: readonly string[];
  databaseReadMaxLagMs?: number;
}

/** A URL without its password, for logs. */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * The client-side deadline of a statement (pg's `query_timeout`, without its cost): a connection silent for `ms`
 * while a statement waits for its answer (a silent partition, a stopped server) is given up, the statement failing
 * with pg's own "Query read timeout" (a 503 at once, never retried: db/database-errors.ts). pg's option wraps each
 * query's callback in a new closure after the query is made, and every query's rows then outlived two scavenges:
 * 6.5 KB promoted to the old generation per list of 20 at 50 connections (`--trace-gc-nvp`; 1.7 KB without it),
 * the garbage collector's largest share of that route. Here: one socket timer per connection, re-armed by Node on
 * every read and write, nothing per query. Idle in the pool, a connection is left alone.
 */
function giveUpWhenSilent(client: pg.PoolClient, ms: number): void {
  const socket = (client as unknown as pg.Client).connection.stream as Socket;
  socket.setTimeout(ms);
  socket.on('timeout', () => {
    if (!(client as unknown as { readyForQuery: boolean }).readyForQuery) {
      socket.destroy(new Error('Query read timeout'));
    }
  });
  // The error then reaches the statement; one on a connection checked out by pool.connect() (the pooler probe)
  // must not also be an unhandled 'error' event.
  client.on('error', () => {});
}

/**
 * A pg pool with the api's time limits (docs/operations.md#database-restarts-and-failovers). A pooler that refuses
 * our start-up parameters (PgBouncer's default) gets a pool without them, the statement limit then a client-side
 * deadline. Any other failure is left to the first statement (a 503): opening never needs the database.
 */
async function openPool(url: string, poolSize: number, limits: DatabaseLimits, logger: Logger) {
  const open = (startupParameters: boolean) => {
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: limits.acquireTimeoutMs,
      ...(startupParameters
        ? {
            statement_timeout: limits.statementTimeoutMs,
            idle_in_transaction_session_timeout: limits.idleInTransactionTimeoutMs,
          }
        : {}),
      // Notices dead peers: a silent network partition leaves the socket open.
      keepAlive: true,
    });
    const silenceMs = limits.statementTimeoutMs + (startupParameters ? QUERY_TIMEOUT_MARGIN_MS : 0);
    pool.on('connect', (client) => giveUpWhenSilent(client, silenceMs));
    // An idle connection dropped by the server would crash the process without a listener. One short line: the
    // error carries the whole pg client (`err.client`), which pino would write out, about 6 KB a connection.
    pool.on('error', (error) =>
      logger.warn({ sqlstate: sqlStateOf(error), reason: error.message }, 'idle PostgreSQL connection lost'),
    );
    return pool;
  };
  const pool = open(true);
  const refusal = await pool.connect().then(
    (client) => client.release(),
    (error: unknown) =>
      error instanceof Error && /unsupported startup parameter/i.test(error.message)
        ? error.message
        : undefined,
  );
  if (refusal === undefined) return { pool, startupParameters: true };
  await pool.end();
  logger.warn(
    { database: redactUrl(url), refusal },
    `the database (a pooler) refused the start-up parameters (${refusal}): connected without them, so each query ` +
      `now has a client-side deadline of ${limits.statementTimeoutMs} ms and no server-side limit; to have the server ` +
      `cancel statements and idle transactions, set ALTER ROLE ... SET statement_timeout = '${limits.statementTimeoutMs}ms' ` +
      `and SET idle_in_transaction_session_timeout = '${limits.idleInTransactionTimeoutMs}ms', or list ` +
      "extra_float_digits,statement_timeout,idle_in_transaction_session_timeout in the pooler's " +
      'ignore_startup_parameters (docs/operations.md#connection-poolers)',
  );
  return { pool: open(false), startupParameters: false };
}

/**
 * Whether the hot statements may be named: not through a transaction-mode pooler (`auto`: false; `named`: the
 * pool ended, a ConfigError). Warns when the sessions lack the statement_timeout the pool asked for.
 */
async function mayNameStatements(
  pool: pg.Pool,
  startupParameters: boolean,
  mode: 'auto' | 'named',
  logger: Logger,
): Promise<boolean> {
  const probe = await probePooler(pool).catch((error: unknown) => {
    // Opening never waits for the database. Unchecked, `auto` still falls back on the first name clash (db/sql.ts).
    logger.warn(
      { err: error },
      'could not check for a transaction-mode pooler (the database did not answer): statements start named',
    );
  });
  if (probe === undefined) return true;
  // Without start-up parameters (openPool) the operator has been told already, in one line.
  if (probe.statementTimeout === '0' && startupParameters) {
    logger.warn(
      { statementTimeout: probe.statementTimeout },
      'the database sessions have no statement_timeout: a pooler dropped the start-up parameters; set it on the ' +
        "role instead (ALTER ROLE ... SET statement_timeout = '2500ms', docs/operations.md#connection-poolers)",
    );
  }
  if (!probe.transactionPooler) return true;
  if (mode === 'named') {
    await pool.end();
    throw new ConfigError(
      'invalid configuration:\n  DATABASE_STATEMENTS: is named, but DATABASE_URL leads to a transaction-mode ' +
        'pooler (two client connections shared one server session), where named prepared statements fail ' +
        'unless the pooler tracks them (PgBouncer >= 1.21 with max_prepared_statements). Set ' +
        'DATABASE_STATEMENTS=unnamed (or auto), or connect straight to PostgreSQL',
    );
  }
  logger.info(
    { statements: 'unnamed' },
    'DATABASE_URL leads to a transaction-mode pooler: statements are sent unnamed (DATABASE_STATEMENTS=auto)',
  );
  return false;
}

/** `text` of the one row `statement` returns (a WAL position), straight on the pool: no guard, no log. */
const positionOn = (pool: pg.Pool, statement: string) => async () =>
  (await pool.query<{ lsn: string | null }>(`${statement} AS lsn`)).rows[0]?.lsn ?? null;

/** LISTEN on `url` (db/wakeups.ts), unless it leads to a transaction-mode pooler, which forgets the LISTEN. */
async function openListenWakeups(url: string, logger: Logger): Promise<Wakeups> {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  const probe = await probePooler(pool).catch(() => undefined);
  await pool.end().catch(() => {});
  if (probe?.transactionPooler === true) {
    logger.warn(
      { listen: redactUrl(url) },
      'EVENTS_LISTEN_URL leads to a transaction-mode pooler, which does not deliver notifications: the change feed ' +
        'polls only (every EVENTS_POLL_MS); set EVENTS_LISTEN_URL to a direct connection to the primary ' +
        '(docs/operations.md#connection-poolers)',
    );
    return silentWakeups();
  }
  // Listening before the feed starts, so that the first events wake it; an outage is the listener's to recover from.
  const wakeups = pgWakeups({ url, logger });
  await wakeups.firstAttempt;
  return wakeups;
}

export async function openDatabase({
  databaseUrl,
  dataDir,
  logger,
  poolSize = 10,
  databaseLimits: limits = DEFAULT_DATABASE_LIMITS,
  databaseStatements: statements = 'auto',
  databaseReadUrls: readUrls = [],
  databaseReadMaxLagMs: readMaxLagMs = 1_000,
}: DatabaseOptions): Promise<Database> {
  if (databaseUrl !== undefined) {
    const { pool, startupParameters } = await openPool(databaseUrl, poolSize, limits, logger);
    const guard = { logger, retryReads: true };
    const prisma = new PrismaClient({ adapter: guardAdapterFactory(new PrismaPg(pool), guard) });
    const openSql = (url: string, on: pg.Pool) => {
      const namer = createStatementNamer(statements, {
        onFallBack: (sqlstate) =>
          logger.warn(
            { sqlstate, database: redactUrl(url) },
            'a prepared statement was missing or taken on its server connection: a transaction-mode pooler is ' +
              'in the way; statements are sent unnamed from now on (set DATABASE_STATEMENTS=unnamed to start that way)',
          ),
      });
      return {
        namer,
        sql: createPgSql(on, { namer, guard: (statement, run) => guarded(guard, statement, run) }),
      };
    };
    const { namer, sql } = openSql(databaseUrl, pool);
    if (statements !== 'unnamed' && !(await mayNameStatements(pool, startupParameters, statements, logger)))
      namer.unname();
    // Each replica has a pool of its own, with the same limits and statement mode.
    const replicaPools = await Promise.all(
      readUrls.map(async (url) => (await openPool(url, poolSize, limits, logger)).pool),
    );
    const replicas =
      replicaPools.length === 0
        ? undefined
        : createReadReplicas({
            primary: sql,
            primaryPosition: async () =>
              (await positionOn(pool, 'SELECT pg_current_wal_lsn()::text')()) ?? '',
            replicas: replicaPools.map((replicaPool, index) => ({
              name: redactUrl(readUrls[index] as string),
              sql: openSql(readUrls[index] as string, replicaPool).sql,
              replayPosition: positionOn(replicaPool, 'SELECT pg_last_wal_replay_lsn()::text'),
            })),
            logger,
            maxLagMs: readMaxLagMs,
          });
    const wakeups: Wakeups[] = [];
    return {
      kind: 'postgresql',
      description: `PostgreSQL ${redactUrl(databaseUrl)}`,
      prisma,
      sql,
      statements: () => (namer.named ? 'named' : 'unnamed'),
      replicas,
      migrationAdapter: pgMigrationAdapter(databaseUrl),
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: poolSize,
      }),
      async petEventWakeups(listenUrl = databaseUrl) {
        const opened = await openListenWakeups(listenUrl, logger);
        wakeups.push(opened);
        return opened;
      },
      async close() {
        await Promise.all(wakeups.splice(0).map((each) => each.close()));
        replicas?.close();
        await prisma.$disconnect();
        await Promise.all([pool, ...replicaPools].map((each) => each.end()));
      },
    };
  }

  // Loaded only here: a process on PostgreSQL never pays for PGlite (its wasm, its memory, its start-up time).
  const [{ PGlite }, { PrismaPGlite }, { pgliteMigrationAdapter }, { lockDataDirectory }] = await Promise.all(
    [
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
      import('@petstore/migrations/pglite'),
      import('./data-dir-lock.js'),
    ],
  );
  const inMemory = dataDir === 'memory://';
  const directory = inMemory ? undefined : resolve(join(dataDir, 'pglite'));
  // A data directory that cannot be opened stops the start-up, saying what to do.
  const unusable = (error: unknown) =>
    new Error(
      // PGlite's file system rejects with an ErrnoError, which is no Error: its name says more than "[object Object]".
      `the embedded database in ${directory} cannot be opened (${error instanceof Error ? error.message : String((error as { name?: unknown })?.name ?? error)}): ` +
        'its files are damaged or are not a PGlite data directory. Restore DATA_DIR from a backup, or move it ' +
        'aside to start with an empty database',
      { cause: error },
    );
  // By its real path: PGlite's file system follows no symbolic link (a linked DATA_DIR failed to open), and two
  // links to one directory take one lock.
  const opened =
    directory === undefined
      ? undefined
      : await mkdir(directory, { recursive: true })
          .then(() => realpath(directory))
          .catch((error) => Promise.reject(unusable(error)));
  const lock = opened === undefined ? undefined : await lockDataDirectory(opened);
  const pglite = new PGlite(opened);
  await pglite.waitReady.catch(async (error: unknown) => {
    await lock?.release();
    throw directory === undefined ? error : unusable(error);
  });
  // One in-process database: nothing to retry on, but its failures are logged and classified the same way.
  const guard = { logger, retryReads: false };
  const prisma = new PrismaClient({ adapter: guardAdapterFactory(new PrismaPGlite(pglite), guard) });
  const sql = createAdapterSql(guardAdapter(await new PrismaPGlite(pglite).connect(), guard));
  const wakeups: Wakeups[] = [];
  return {
    kind: 'pglite',
    description: inMemory ? 'embedded PGlite (in memory)' : `embedded PGlite in ${directory}`,
    prisma,
    sql,
    statements: () => 'named',
    migrationAdapter: pgliteMigrationAdapter(pglite),
    async petEventWakeups() {
      const opened = await pgliteWakeups(pglite);
      wakeups.push(opened);
      return opened;
    },
    async close() {
      await Promise.all(wakeups.splice(0).map((each) => each.close()));
      await prisma.$disconnect();
      await pglite.close();
      await lock?.release();
    },
  };
}
