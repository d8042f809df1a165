import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyPendingMigrations, listMigrationNames } from '@petstore/migrations';
import { type AppDeps, createApp } from '../../src/app.js';
import { EVENTS_DEFAULTS } from '../../src/config.js';
import { type Database, type DatabaseKind, openDatabase } from '../../src/db/database.js';
import { createPetFeed, type FollowOptions, type PetFeed } from '../../src/events/pet-feed.js';
import { edgeListener } from '../../src/http/edge.js';
import { callerIdentity, sha256 } from '../../src/keys/api-key-digest.js';
import { createLogger } from '../../src/logger.js';
import { messageClasses } from '../../src/server-limits.js';
import { responseValidator, validatingListener } from './response-validator.js';
import { createTestDatabase } from './test-database.js';

export const TEST_API_KEY = 'test-key-0123456789abcdef';
export const OTHER_API_KEY = 'other-key-0123456789abcdef';
/** Keys a test lists in apiKeys when it needs budgets of their own (rate limits). */
export const THIRD_API_KEY = 'third-key-0123456789abcdef';
export const FOURTH_API_KEY = 'fourth-key-0123456789abcdef';

/** The caller identity (Caller.subject) of TEST_API_KEY, as every instance derives it. */
export const TEST_CALLER = callerIdentity(sha256(TEST_API_KEY));

/** A PostgreSQL URL where nothing listens: every query fails at once with "connection refused" (a 503). */
export const UNREACHABLE_DATABASE = 'postgresql://postgres@127.0.0.1:9/unreachable';

/** Answers a test server sent that its OpenAPI document does not describe: its close() fails with them. */
export class UndocumentedResponses extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `${problems.length} answer(s) the OpenAPI document does not describe:\n${[...new Set(problems)].slice(0, 50).join('\n')}`,
    );
  }
}

/** The databases every HTTP test runs against. */
export const DATABASE_KINDS: DatabaseKind[] = ['postgresql', 'pglite'];

export interface TestServer {
  kind: DatabaseKind;
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  database: Database;
  /** The PostgreSQL database's URL; undefined on PGlite. */
  databaseUrl: string | undefined;
  /** The Express app it serves: its router lists the routes (test/every-route.test.ts walks them). */
  app: ReturnType<typeof createApp>;
  /** Streams following the change feed on this server now (0 before the first). */
  followers(): number;
  close(): Promise<void>;
}

/**
 * The real app on a real port (127.0.0.1, ephemeral) over a real, freshly migrated database:
 * a new PostgreSQL database on the test server, or an in-memory PGlite.
 */
export async function startTestServer(
  kind: DatabaseKind,
  label: string,
  options: Pick<
    AppDeps,
    | 'corsOrigins'
    | 'rateLimitPerMinute'
    | 'trpcFastPath'
    | 'publicBaseUrl'
    | 'metrics'
    | 'tracer'
    | 'idempotencyKeyTtlSeconds'
    | 'contract'
    | 'mcpDeprecatedTools'
    | 'eventsKeepAliveMs'
    | 'servers'
  > & {
    /** The keys API_KEYS would list, in order; TEST_API_KEY and OTHER_API_KEY when absent. */
    apiKeys?: AppDeps['apiKeys'];
    /** Serve over this database instead, unmigrated (UNREACHABLE_DATABASE for outages). */
    databaseUrl?: string;
    /**
     * Another instance over that server's database, which stays its: on PostgreSQL this one opens its own pool
     * on it, as a second process would; an in-memory PGlite lives in one process, so it is shared. Close this server before that one.
     */
    sharing?: TestServer;
    /**
     * PostgreSQL: route reads as DATABASE_READ_URL would, with the primary itself listed as the replica (never a
     * standby, so every read stays on the primary) and read-your-writes on: each write answers Petstore-Read-After.
     */
    readAfterWrites?: boolean;
    /** How long an idle connection is kept (Node's 5 s when absent): set long, a socket closed sooner was closed for a reason. */
    keepAliveTimeoutMs?: number;
  } = {},
): Promise<TestServer> {
  const {
    databaseUrl: givenUrl,
    sharing,
    readAfterWrites = false,
    keepAliveTimeoutMs,
    ...appOptions
  } = options;
  if (sharing !== undefined && sharing.kind !== kind)
    throw new Error('a shared database is of the same kind');
  const databaseUrl = givenUrl ?? sharing?.databaseUrl;
  // Every answer checked against the document this server serves (support/response-validator.ts).
  const validator = await responseValidator(appOptions.contract?.operations);
  const logger = createLogger('silent');
  const postgres =
    kind === 'postgresql' && databaseUrl === undefined ? await createTestDatabase(label) : undefined;
  const ownDatabase =
    sharing !== undefined && kind === 'pglite'
      ? undefined
      : await openDatabase({
          databaseUrl: databaseUrl ?? postgres?.url,
          dataDir: 'memory://',
          logger,
          databaseReadUrls: readAfterWrites ? [(databaseUrl ?? postgres?.url) as string] : [],
        });
  const database = ownDatabase ?? (sharing as TestServer).database;
  if (databaseUrl === undefined && sharing === undefined)
    await applyPendingMigrations(database.migrationAdapter);
  // The change feed as start.ts makes it (LISTEN wake-ups besides polling), made on the first subscription only:
  // most test servers never open one, and need no listening connection.
  let feed: PetFeed | undefined;
  const petFeed = {
    follow: async (options: FollowOptions) => {
      feed ??= createPetFeed(database.sql, await database.petEventWakeups(), {
        ...EVENTS_DEFAULTS,
        keepAliveMs: appOptions.eventsKeepAliveMs ?? EVENTS_DEFAULTS.keepAliveMs,
        onError: () => {},
      });
      return feed.follow(options);
    },
    wake: () => feed?.wake(),
  };
  const app = createApp({
    petFeed,
    sql: database.sql,
    logger,
    apiKeys: [TEST_API_KEY, OTHER_API_KEY],
    migrations: await listMigrationNames(),
    replicas: database.replicas,
    ...appOptions,
  });
  const violations: string[] = [];
  const checked = validatingListener(validator, app, (problems) => violations.push(...problems));
  // As start.ts serves it: requests and responses made with Express's prototypes (server-limits.ts messageClasses).
  const server: Server = await new Promise((resolve, reject) => {
    const listening = createServer(messageClasses(app), edgeListener(checked)).listen(0, '127.0.0.1', () =>
      resolve(listening),
    );
    listening.once('error', reject);
    // An Expect other than 100-continue reaches the app, whose edge answers 417, as production's server does
    // (server-limits.ts guardServer); Node would answer it itself otherwise.
    listening.on('checkExpectation', edgeListener(checked));
    if (keepAliveTimeoutMs !== undefined) listening.keepAliveTimeout = keepAliveTimeoutMs;
  });
  const { port } = server.address() as AddressInfo;
  return {
    kind,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    database,
    databaseUrl: kind === 'postgresql' ? (databaseUrl ?? postgres?.url) : undefined,
    app,
    followers: () => feed?.subscribers ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await feed?.close();
      await ownDatabase?.close();
      await postgres?.drop();
      if (violations.length > 0) throw new UndocumentedResponses(violations);
    },
  };
}
