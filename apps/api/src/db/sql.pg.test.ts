// The hot statements straight on pg (createPgSql) against Prisma's driver adapter on the same pg (createAdapterSql,
// the path they replaced), on real PostgreSQL. The adapter is the oracle: for every statement our callers send,
// with generated arguments, both must return the same rows (deep and strictly equal: a bigint is not its digits, a
// Buffer is not a Uint8Array) or fail with the same verdict (db/database-errors.ts: 503 or 500, SQLSTATE, whether a
// write may have applied).
//
// The callers (the pets service, the issued-key lookup, the rate-limit store, the migration check) run once, on a
// tee: each statement goes to the oracle on database A, then straight on pg to database B, a twin of A that every
// statement, writes included, keeps equal (ids come from the same sequence in the same order); a read also goes
// straight on pg to A itself, so both paths are compared on the same rows too. The last test counts the `.rows(`
// call sites in src, so a new hot statement cannot be left out of the commands below.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { inspect, isDeepStrictEqual } from 'node:util';
import { appliedMigrationNames, applyPendingMigrations, migrationsAreCurrent } from '@petstore/migrations';
import { PetStatusSchema } from '@petstore/schema';
import { PrismaPg } from '@prisma/adapter-pg';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeouts } from '../../../../tooling/vitest.shared.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { toAppError } from '../errors.js';
import { pruneEvents, readEvents, readHead, sequenceEvents } from '../events/pet-events.store.js';
import { createApiKeysService, createIssuedKeyLookup } from '../keys/api-keys.service.js';
import { createRateLimitStore } from '../limits/rate-limit.store.js';
import { createLogger } from '../logger.js';
import { encodePetCursor } from '../pets/pet-cursor.js';
import { createPetsService } from '../pets/pets.service.js';
import { openDatabase } from './database.js';
import { classifyDatabaseError, sqlStateOf } from './database-errors.js';
import { guardAdapter, guarded } from './guarded-adapter.js';
import {
  createAdapterSql,
  createPgSql,
  createStatementNamer,
  type Sql,
  type SqlArg,
  type Statement,
  type StatementMode,
} from './sql.js';

const logger = createLogger('silent');
const guard = { logger, retryReads: true };
const READ = /^\s*select\b/i;

/** The oracle: the adapter path as it was, on `pool`. */
async function adapterSql(pool: pg.Pool, mode: StatementMode = 'auto'): Promise<Sql> {
  const namer = createStatementNamer(mode);
  const adapter = await new PrismaPg(pool, {
    statementNameGenerator: (query) => namer.name(query),
  }).connect();
  return createAdapterSql(guardAdapter(adapter, guard), { namer });
}

const directSql = (pool: pg.Pool, mode: StatementMode = 'auto'): Sql =>
  createPgSql(pool, {
    namer: createStatementNamer(mode),
    guard: (statement, run) => guarded(guard, statement, run),
  });

// The adapter names socket failures by its own kinds; pg passes the errno on. The same verdict either way.
const ADAPTER_KIND_OF_ERRNO: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'DatabaseNotReachable',
  ENOTFOUND: 'DatabaseNotReachable',
  ECONNRESET: 'ConnectionClosed',
  ETIMEDOUT: 'SocketTimeout',
};

/** What the api makes of a failed statement: its SQLSTATE, the 503 verdict (or none: a 500), the HTTP status. */
function verdict(error: unknown) {
  const unavailable = classifyDatabaseError(error);
  return {
    sqlstate: sqlStateOf(error) ?? null,
    unavailable:
      unavailable === undefined
        ? null
        : { ...unavailable, reason: ADAPTER_KIND_OF_ERRNO[unavailable.reason] ?? unavailable.reason },
    status: toAppError(error)?.status ?? 500,
  };
}

type Outcome = { rows: Record<string, unknown>[] } | { error: ReturnType<typeof verdict> };

const outcome = (sql: Sql, statement: string, args: readonly SqlArg[] | undefined): Promise<Outcome> =>
  sql.rows(statement, args).then(
    (rows) => ({ rows }),
    (error: unknown) => ({ error: verdict(error) }),
  );

/**
 * Outcomes with the values of `columns` replaced by their type: a pet's `txid` differs from database to database
 * (one cluster's transactions), and a snapshot from statement to statement; every other value is compared as it is.
 */
const withTypesOf = (columns: readonly string[], result: Outcome): Outcome =>
  'rows' in result
    ? {
        rows: result.rows.map((row) => ({
          ...row,
          ...Object.fromEntries(columns.filter((column) => column in row).map((c) => [c, typeof row[c]])),
        })),
      }
    : result;

interface Mismatch {
  statement: string;
  args: readonly SqlArg[] | undefined;
  oracle: Outcome;
  direct: Outcome;
  where: 'twin database' | 'same database';
}

/**
 * A Sql for the callers: one statement at a time (a background sweep included, so A and B see the same order),
 * each on the oracle (A), straight on the twin (B) and, a read, straight on A; differences are kept in
 * `mismatches`. Answers what the oracle answered.
 */
function teeSql(oracle: Sql, twin: Sql, same: Sql) {
  const mismatches: Mismatch[] = [];
  const statements = new Set<string>();
  /** Statements the oracle answered with rows at least once (so none of them is only ever compared failing). */
  const answered = new Set<string>();
  let tail: Promise<unknown> = Promise.resolve();
  const sql: Sql = {
    rows<Row extends object>(statement: Statement<Row>, args?: readonly SqlArg[]) {
      const run = tail.then(async () => {
        statements.add(statement);
        const expected = await outcome(oracle, statement, args);
        if ('rows' in expected) answered.add(statement);
        const onTwin = await outcome(twin, statement, args);
        const twinColumns = ['txid', 'snapshot'];
        if (!isDeepStrictEqual(withTypesOf(twinColumns, onTwin), withTypesOf(twinColumns, expected))) {
          mismatches.push({ statement, args, oracle: expected, direct: onTwin, where: 'twin database' });
        }
        if (READ.test(statement)) {
          const onSame = await outcome(same, statement, args);
          if (!isDeepStrictEqual(withTypesOf(['snapshot'], onSame), withTypesOf(['snapshot'], expected))) {
            mismatches.push({ statement, args, oracle: expected, direct: onSame, where: 'same database' });
          }
        }
        return expected;
      });
      tail = run.catch(() => {});
      return run.then((result) => {
        if ('rows' in result) return result.rows as Row[];
        throw Object.assign(new Error('the oracle failed'), { verdict: result.error });
      });
    },
  };
  return { sql, mismatches, statements, answered, idle: () => tail };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** int64 across its range, its edges and one past them (out of range: both must fail alike), 2^53 + 1. */
const int64ish = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.constantFrom(INT64_MIN, INT64_MAX, INT64_MIN - 1n, INT64_MAX + 1n, 9007199254740993n, 0n, -1n, 1n),
  fc.bigInt({ min: -3n, max: 40n }), // ids that exist (and do not)
);
const statuses = PetStatusSchema.options;
const status = fc.constantFrom(...statuses, undefined);
/** Names: any Unicode (NUL included, which PostgreSQL refuses in text), quotes and backslashes, long text. */
const name = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^['"\\$;-]{0,12}$/),
  fc.string({ unit: 'grapheme', minLength: 1000, maxLength: 3000 }),
  fc.constantFrom('', "O'Brien", 'a"b', '\\x00', '%_', '🐕‍🦺'),
);
/** Idempotency keys: a small pool, so replays, reuses with another body and expiries happen. */
const idempotencyKey = fc.option(fc.constantFrom('k-1', 'k-2', 'k-3', 'k-4'), { nil: undefined });

const command = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    name,
    categoryId: int64ish,
    status,
    idempotencyKey,
    caller: fc.constantFrom('alice', 'bob'),
    expiring: fc.boolean(), // a key TTL of 0: every stored key has expired
  }),
  fc.record({ kind: fc.constant('get' as const), petId: int64ish }),
  fc.record({
    kind: fc.constant('page' as const),
    limit: fc.integer({ min: 1, max: 100 }),
    status,
    after: fc.option(
      int64ish.filter((n) => n >= 0n && n <= INT64_MAX),
      { nil: undefined },
    ),
  }),
  fc.record({
    kind: fc.constant('charge' as const),
    subject: fc.oneof(fc.constantFrom('k:1', 'ip:127.0.0.1'), fc.string({ unit: 'binary', maxLength: 30 })),
    window: fc.constantFrom(0, 60_000, 1_700_000_000_000),
    cost: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    limit: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  }),
  fc.record({
    kind: fc.constant('lookup' as const),
    keyHash: fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
      fc.constantFrom(0, 1, 2).map((index) => ISSUED[index] as Buffer),
    ),
  }),
  fc.record({
    kind: fc.constant('sweep' as const),
    before: fc.constantFrom(0, 60_000, 1_700_000_000_000, 1_700_000_060_000),
  }),
  fc.constant({ kind: 'migrations' as const }),
  fc.constant({ kind: 'applied' as const }),
  // The change feed's reads and its pruning (events/pet-events.store.ts), on the events the creates above wrote.
  fc.constant({ kind: 'feedHead' as const }),
  fc.record({ kind: fc.constant('feedSequence' as const), limit: fc.integer({ min: 1, max: 20 }) }),
  fc.record({
    kind: fc.constant('feedPage' as const),
    after: int64ish,
    limit: fc.integer({ min: 1, max: 100 }),
  }),
  // Every event older than now + 1 h (all of them) or than now - 1 h (none): never one on the edge of now, whose
  // fate would hang on the microseconds between the twins.
  fc.record({ kind: fc.constant('feedPrune' as const), retentionSeconds: fc.constantFrom(-3600, 3600) }),
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

/** The key hashes of the issued keys in both databases (the second revoked). */
const ISSUED = [randomBytes(32), randomBytes(32), Buffer.alloc(32)];

/** Commands that send every hot statement at least once, each answered with rows (in this order, from empty tables). */
const EVERY_STATEMENT: Command[] = [
  // Sweep of expired keys (the service's first), create under a key; then the replay: the insert finds the key taken,
  // the stored pet is read by key.
  ...Array.from(
    { length: 2 },
    (): Command => ({
      kind: 'create',
      name: 'Rex',
      categoryId: 1n,
      status: 'available',
      idempotencyKey: 'k-1',
      caller: 'alice',
      expiring: false,
    }),
  ),
  // Under a TTL of 0 the replay finds its key expired but not swept: it is forgotten and the pet created afresh.
  ...Array.from(
    { length: 2 },
    (): Command => ({
      kind: 'create',
      name: 'Tom',
      categoryId: 2n,
      status: undefined,
      idempotencyKey: 'k-2',
      caller: 'bob',
      expiring: true,
    }),
  ),
  {
    kind: 'create',
    name: 'Kit',
    categoryId: 3n,
    status: 'sold',
    idempotencyKey: undefined,
    caller: 'alice',
    expiring: false,
  },
  { kind: 'get', petId: 1n },
  { kind: 'page', limit: 20, status: undefined, after: undefined },
  { kind: 'page', limit: 20, status: 'available', after: 1n },
  { kind: 'charge', subject: 'k:1', window: 60_000, cost: 1, limit: 5 },
  { kind: 'charge', subject: 'k:1', window: 60_000, cost: 5, limit: 5 },
  { kind: 'sweep', before: 1_700_000_000_000 },
  { kind: 'lookup', keyHash: ISSUED[0] as Buffer },
  { kind: 'migrations' },
  { kind: 'applied' },
  { kind: 'feedHead' },
  { kind: 'feedSequence', limit: 1000 },
  { kind: 'feedPage', after: 0n, limit: 10 },
  { kind: 'feedPrune', retentionSeconds: -3600 },
];

let twins: [TestDatabase, TestDatabase] | undefined;
const pools: pg.Pool[] = [];
/** Connections a test holds out of its pool: released before the pools end. */
const held: pg.PoolClient[] = [];

function openPool(url: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4, ...options });
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

beforeAll(async () => {
  twins = [await createTestDatabase('sql_pg_oracle'), await createTestDatabase('sql_pg_direct')];
  for (const twin of twins) {
    const database = await openDatabase({ databaseUrl: twin.url, dataDir: 'memory://', logger });
    try {
      await applyPendingMigrations(database.migrationAdapter);
      const keys = createApiKeysService(database.prisma);
      for (const [index, keyHash] of ISSUED.entries()) {
        await database.prisma.apiKey.create({
          data: { name: `key ${index}`, keyHash: new Uint8Array(keyHash), prefix: 'psk_' },
        });
      }
      await keys.revoke(2n);
    } finally {
      await database.close();
    }
  }
}, timeouts.hook);

afterAll(async () => {
  for (const client of held.splice(0)) client.release();
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
  for (const twin of twins ?? []) await twin.drop();
}, timeouts.hook);

const twinUrls = () => twins as [TestDatabase, TestDatabase];

/**
 * The sequencer holds a pet back while any older transaction runs anywhere in the cluster (another test file's
 * included), so A and B, sequenced a moment apart, could number different pets: wait until every pet of the
 * database is older than every running transaction. That stays true (a transaction that starts later has a newer id).
 */
async function pastTheHorizon(pool: pg.Pool): Promise<void> {
  const query =
    'SELECT coalesce(max(txid), 0) < pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS past FROM pets';
  while (!(await pool.query<{ past: boolean }>(query)).rows[0]?.past) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the hot statements straight on pg answer what the driver adapter answers', () => {
  it(
    'every command of the callers, with generated arguments: equal rows or equal verdicts',
    async () => {
      const [a, b] = twinUrls();
      const [poolA, poolB, poolSame] = [openPool(a.url), openPool(b.url), openPool(a.url)];
      const tee = teeSql(await adapterSql(poolA), directSql(poolB), directSql(poolSame));
      const sweepErrors: unknown[] = [];
      const services = {
        kept: createPetsService(tee.sql, { onSweepError: (error) => sweepErrors.push(error) }),
        expiring: createPetsService(tee.sql, {
          idempotencyKeyTtlSeconds: 0,
          onSweepError: (error) => sweepErrors.push(error),
        }),
      };
      const lookup = createIssuedKeyLookup(tee.sql);
      const limits = createRateLimitStore(tee.sql);

      const run = async (each: Command): Promise<unknown> => {
        switch (each.kind) {
          case 'create': {
            const service = each.expiring ? services.expiring : services.kept;
            const { kind: _, caller, expiring: __, ...input } = each;
            return service.createPet(input, { caller: { subject: caller } });
          }
          case 'get':
            return services.kept.getPet({ petId: each.petId });
          case 'page':
            return services.kept.pagePets({
              limit: each.limit,
              status: each.status,
              cursor:
                each.after === undefined
                  ? undefined
                  : encodePetCursor({ after: each.after, status: each.status }),
            });
          case 'charge':
            return limits.charge(each.subject, new Date(each.window), each.cost, each.limit);
          case 'lookup':
            return lookup(each.keyHash);
          case 'sweep':
            return limits.sweep(new Date(each.before));
          case 'migrations':
            return migrationsAreCurrent(tee.sql);
          case 'applied':
            return appliedMigrationNames(tee.sql);
          case 'feedHead':
            return readHead(tee.sql);
          case 'feedSequence':
            await Promise.all([poolA, poolB].map(pastTheHorizon));
            return sequenceEvents(tee.sql, each.limit);
          case 'feedPage':
            return readEvents(tee.sql, each.after, each.limit);
          case 'feedPrune':
            return pruneEvents(tee.sql, each.retentionSeconds);
        }
      };

      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 12 }), async (commands) => {
          // Every run (and every shrink) starts from the same state in both databases.
          await Promise.all(
            [poolA, poolB].map((pool) =>
              pool.query(
                'TRUNCATE pets, rate_limit_windows, pet_events RESTART IDENTITY; UPDATE pet_event_horizon SET pruned_through = 0',
              ),
            ),
          );
          tee.mismatches.length = 0;
          for (const each of commands) await run(each).catch(() => {});
          await tee.idle();
          // inspect: a bigint and its digits look alike in a diff.
          expect(tee.mismatches.map((each) => inspect(each, { depth: 8 }))).toEqual([]);
          expect(sweepErrors.filter((error) => !(error instanceof Error && 'verdict' in error))).toEqual([]);
        }),
        // The generated runs reach every statement only by chance (a forgotten expired key needs two creates under
        // one key and caller, the second expiring, after that service's first sweep): this run, first, reaches each.
        { numRuns: 150, examples: [[EVERY_STATEMENT]] },
      );
      // Every statement the callers have was sent (the count of call sites is checked below).
      expect(tee.statements.size).toBe(HOT_STATEMENTS);
      expect(tee.answered.size).toBe(HOT_STATEMENTS);
    },
    timeouts.server,
  );
});

it(
  'every argument type, sent back as the columns our statements return: equal rows or equal verdicts',
  async () => {
    const [a] = twinUrls();
    const [oracle, direct] = [await adapterSql(openPool(a.url)), directSql(openPool(a.url))];
    // Each argument typed as our callers type it, NULL included; a string typed bytes is base64 (as the adapter reads it).
    const arg = fc.oneof(
      fc.record({ value: fc.option(name, { nil: null }), type: fc.constant('string' as const) }),
      fc.record({ value: fc.option(int64ish, { nil: null }), type: fc.constant('bigint' as const) }),
      fc.record({
        value: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }),
        type: fc.constant('int' as const),
      }),
      fc.record({
        value: fc.option(
          fc.oneof(
            fc.uint8Array({ maxLength: 64 }),
            fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
            fc.base64String({ maxLength: 64 }),
          ),
          { nil: null },
        ),
        type: fc.constant('bytes' as const),
      }),
    );
    const cast = { string: 'text', bigint: 'int8', int: 'int4', bytes: 'bytea' } as const;
    await fc.assert(
      fc.asyncProperty(fc.array(arg, { minLength: 1, maxLength: 6 }), async (args) => {
        // Each value back as its column type, and compared with = (true, false or NULL: a boolean column).
        const statement = `SELECT ${args
          .map(
            ({ type }, index) => `$${index + 1}::${cast[type]}, $${index + 1}::${cast[type]} = $${index + 1}`,
          )
          .join(', ')}`;
        const expected = await outcome(oracle, statement, args);
        const got = await outcome(direct, statement, args);
        expect(inspect(got, { depth: 8 })).toBe(inspect(expected, { depth: 8 }));
        expect(isDeepStrictEqual(got, expected)).toBe(true);
      }),
      { numRuns: 300 },
    );
  },
  timeouts.server,
);

describe('failures straight on pg get the verdict they get through the adapter', () => {
  /** The same statement on both paths, each on a pool of its own made by `pool`, and the two outcomes. */
  async function both(
    pool: () => pg.Pool,
    statement: string,
    { mode, before }: { mode?: StatementMode; before?: (pool: pg.Pool, name: string) => Promise<void> } = {},
  ): Promise<[Outcome, Outcome]> {
    const [forOracle, forDirect] = [pool(), pool()];
    await before?.(forOracle, 'oracle');
    await before?.(forDirect, 'direct');
    return [
      await outcome(await adapterSql(forOracle, mode), statement, []),
      await outcome(directSql(forDirect, mode), statement, []),
    ];
  }

  const cases: Array<[string, () => Promise<[Outcome, Outcome]>, string | null]> = [
    ['a syntax error (500)', () => both(() => openPool(twinUrls()[0].url), 'SELEC 1'), '42601'],
    [
      'an undefined table (503: our schema is missing)',
      () => both(() => openPool(twinUrls()[0].url), 'SELECT * FROM no_such_table'),
      '42P01',
    ],
    [
      'a unique violation (500)',
      () =>
        both(
          () => openPool(twinUrls()[0].url),
          'INSERT INTO api_keys (name, key_hash, prefix) ' +
            `VALUES ('x', '\\x${(ISSUED[0] as Buffer).toString('hex')}', 'p')`,
        ),
      '23505',
    ],
    [
      'statement_timeout (503, timed out)',
      () => both(() => openPool(twinUrls()[0].url, { statement_timeout: 50 }), 'SELECT pg_sleep(5)'),
      '57014',
    ],
    [
      'a backend terminated under a statement (503, outcome unknown)',
      () =>
        both(
          () => openPool(twinUrls()[0].url, { max: 1 }),
          // Not a SELECT: not retried (the guard would send a read again, and the test would wait for it).
          'WITH slept AS (SELECT pg_sleep(30)) SELECT 1 FROM slept',
          {
            before: async (pool, name) => {
              await pool.query(`SET application_name = 'sql_pg_${name}'`);
              const killer = openPool(twinUrls()[0].url, { max: 1 });
              const kill = async () => {
                for (let tries = 0; tries < 500; tries++) {
                  const { rowCount } = await killer.query(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity ' +
                      "WHERE application_name = $1 AND state = 'active'",
                    [`sql_pg_${name}`],
                  );
                  if (rowCount !== 0) return;
                  await new Promise((resolve) => setTimeout(resolve, 20));
                }
              };
              void kill();
            },
          },
        ),
      '57P01',
    ],
    [
      'connection refused (503)',
      () => both(() => openPool('postgresql://postgres@127.0.0.1:1/postgres'), 'SELECT 1'),
      null,
    ],
    [
      'no pool connection in time (503, timed out)',
      () =>
        both(() => openPool(twinUrls()[0].url, { max: 1 }), 'SELECT 1 AS one', {
          before: async (pool) => {
            held.push(await pool.connect()); // held to the end
            // Only now the 50 ms wait for a connection: the one held may take longer than that to open on a busy
            // machine, which failed the set-up instead of the statement.
            pool.options.connectionTimeoutMillis = 50;
          },
        }),
      null,
    ],
    [
      'a statement name taken on the connection, DATABASE_STATEMENTS=named (500)',
      () =>
        both(() => openPool(twinUrls()[0].url, { max: 1 }), 'SELECT 1 AS one', {
          mode: 'named',
          before: async (pool) => void (await pool.query('PREPARE petstore_0 AS SELECT 2')),
        }),
      '42P05',
    ],
  ];

  it.each(cases)(
    '%s',
    async (_, run, sqlstate) => {
      const [oracle, direct] = await run();
      expect('error' in oracle && oracle.error.sqlstate).toBe(sqlstate);
      expect(direct).toStrictEqual(oracle);
    },
    timeouts.server,
  );

  it(
    'a statement name taken, DATABASE_STATEMENTS=auto: both send it again unnamed and answer',
    async () => {
      const [oracle, direct] = await both(() => openPool(twinUrls()[0].url, { max: 1 }), 'SELECT 1 AS one', {
        mode: 'auto',
        before: async (pool) => void (await pool.query('PREPARE petstore_0 AS SELECT 2')),
      });
      expect(oracle).toStrictEqual({ rows: [{ one: 1 }] });
      expect(direct).toStrictEqual(oracle);
    },
    timeouts.server,
  );
});

/**
 * Call sites of `.rows(` that send a statement of their own (the wrappers pass theirs on): in src, and in
 * @petstore/migrations, whose start-up check and readiness query run on the `Sql` the api hands it.
 */
const HOT_STATEMENTS = 19;

it('no hot statement is left out: src and @petstore/migrations have as many `.rows(` call sites as the commands above send', async () => {
  const migrations = join(
    dirname(createRequire(import.meta.url).resolve('@petstore/migrations/package.json')),
    'src',
  );
  let sites = 0;
  for (const root of [join(import.meta.dirname, '..'), migrations]) {
    const files = (await readdir(root, { recursive: true })).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('generated'),
    );
    for (const file of files) {
      const text = await readFile(join(root, file), 'utf8');
      // Wrappers forward the statement they were given: `rows(statement, args)`.
      sites += [...text.matchAll(/\.rows\((?!statement, args\))/g)].length;
    }
  }
  expect(sites).toBe(HOT_STATEMENTS);
});
