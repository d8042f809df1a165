import { API_BASE_PATH, checkApiBaseUrl } from '@petstore/schema';
import { integerOfText } from '@petstore/schema/internal';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { type DatabaseLimits, DEFAULT_DATABASE_LIMITS } from './db/database-limits.js';
import type { StatementMode } from './db/sql.js';
import { API_KEY_PATTERN, API_KEY_RULE } from './keys/api-key-format.js';

// The only module that reads the environment. Everything else receives a Config, so tests pass their own.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A comma-separated list, each entry trimmed, empty entries dropped, then checked by `item`. */
const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .pipe(z.array(item));

/** What is wrong with a public base URL, by the contract's name for it. */
const PUBLIC_URL_PROBLEMS = {
  'not-a-url': `must be an http(s) URL ending in ${API_BASE_PATH}`,
  'not-http': `must be an http(s) URL ending in ${API_BASE_PATH}, without query or fragment`,
  'no-version': `must be an http(s) URL ending in ${API_BASE_PATH}, without query or fragment`,
} as const;

/**
 * The public base URL of an environment, as clients reach it (behind any proxy). The rule is the contract's
 * (`checkApiBaseUrl`: http(s), ending in `/v1`, no query or fragment, trailing slashes dropped), the same one
 * the clients apply to their presets.
 */
const PublicUrlSchema = z
  .string()
  .transform((url, ctx) => {
    const checked = checkApiBaseUrl(url);
    if (checked.ok) return checked.url;
    ctx.addIssue({ code: 'custom', message: PUBLIC_URL_PROBLEMS[checked.problem] });
    return z.NEVER;
  })
  .optional();

/**
 * A whole number of `unit` from its text, by the one rule for integers in text (@petstore/schema's integerOfText,
 * as on the wire: `30000` and `3e4` are 30000; `0x10`, ` 5` and `1.5` are refused), within [min, max].
 */
const whole = (
  unit: string,
  { min, max, tooSmall, tooLarge }: { min: number; max?: number; tooSmall?: string; tooLarge?: string },
) => {
  const spelled = `must be a whole number of ${unit}`;
  return z
    .string()
    .transform((text) => integerOfText(text) ?? Number.NaN)
    .pipe(
      z
        .number({ error: spelled })
        .int(spelled)
        .min(min, tooSmall ?? `must be at least ${min} ${unit}`)
        .max(max ?? Number.MAX_SAFE_INTEGER, tooLarge ?? `must be at most ${max} ${unit}`),
    );
};

/** A duration in milliseconds, at least 1 (0 would switch Node's protection off). */
const milliseconds = (fallback: number) =>
  whole('milliseconds', { min: 1, tooSmall: 'must be at least 1 millisecond' }).default(fallback);

/** Node's longest timer (about 24.8 days): a longer delay would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A timer's period in milliseconds: at least 1, at most what a Node timer can wait. */
const timerMilliseconds = (fallback: number) =>
  whole('milliseconds', { min: 1, max: MAX_TIMER_MS, tooSmall: 'must be at least 1 millisecond' }).default(
    fallback,
  );

/** A TCP port, 0 (any free one) to 65535, from its text. */
const portNumber = () =>
  z
    .string()
    .transform((text) => integerOfText(text) ?? Number.NaN)
    .pipe(
      z
        .number({ error: 'must be a port number' })
        .int('must be a port number')
        .min(0, 'must be a port number between 0 and 65535')
        .max(65535, 'must be a port number between 0 and 65535'),
    );

/**
 * The change feed's settings when the environment says nothing (EVENTS_*): also what the app and the test servers
 * use when they make a feed of their own.
 */
export const EVENTS_DEFAULTS = {
  pollIntervalMs: 1_000,
  retentionSeconds: 7 * 24 * 60 * 60,
  pruneIntervalMs: 60_000,
  maxPerCaller: 100,
  stallMs: 30_000,
  keepAliveMs: 15_000,
} as const;

const postgresUrl = (error: string) => z.url({ protocol: /^postgres(ql)?$/, error });
const trueOrFalse = z.enum(['true', 'false'], { error: 'must be true or false' });

// Every variable as its text; an empty one is as good as unset (parseConfig drops it before this reads it).
const EnvSchema = z.object({
  PORT: portNumber().default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: postgresUrl('must be a postgres:// or postgresql:// URL').optional(),
  DATA_DIR: z.string().default('./.data'),
  API_KEYS: commaList(z.string().regex(API_KEY_PATTERN, `each key must be ${API_KEY_RULE}`))
    .refine((keys) => keys.length > 0, 'must list at least one key')
    .optional(),
  APP_ENV: z
    .enum(['production', 'staging'], {
      error: 'must be production or staging (or unset for local development)',
    })
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  CORS_ORIGINS: commaList(
    z.union([z.literal('*'), z.url({ protocol: /^https?$/ }).refine((url) => new URL(url).origin === url)], {
      error: 'each entry must be * or an origin such as https://app.example.com (no path or trailing slash)',
    }),
  ).optional(),
  RATE_LIMIT_PER_MINUTE: whole('requests per minute', {
    min: 1,
    tooSmall: 'must be at least 1 (unset it to turn rate limiting off)',
  }).optional(),
  // Deprecated operations (getPet) as MCP tools too: hidden from agents unless asked for.
  MCP_DEPRECATED_TOOLS: trueOrFalse.default('false'),
  // How long createPet's idempotency keys are remembered (the IETF draft suggests at least 24 hours).
  IDEMPOTENCY_KEY_TTL_SECONDS: whole('seconds', {
    min: 1,
    max: 30 * 24 * 60 * 60,
    tooSmall: 'must be at least 1 second',
    tooLarge: 'must be at most 30 days (2592000 seconds)',
  }).default(24 * 60 * 60),
  // Defaults for a service of small JSON requests, usually behind a load balancer. See server-limits.ts.
  HTTP_REQUEST_TIMEOUT_MS: milliseconds(30_000),
  HTTP_HEADERS_TIMEOUT_MS: milliseconds(10_000),
  // Above the idle timeout of common load balancers (AWS ALB 60 s, nginx 60 s), so that the balancer, not
  // this server, closes an idle connection: otherwise it may send a request on a socket we are closing.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(65_000),
  HTTP_MAX_CONNECTIONS: whole('connections', { min: 1, tooSmall: 'must be at least 1' }).default(1_000),
  // Same names as @petstore/client's environment presets, so one deployment setting serves both.
  PETSTORE_PRODUCTION_URL: PublicUrlSchema,
  PETSTORE_STAGING_URL: PublicUrlSchema,
  // Operating at scale (docs/operations.md#production-topology): metrics, traces, draining before exit.
  METRICS_PORT: portNumber().optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SHUTDOWN_DRAIN_MS: whole('milliseconds', {
    min: 0,
    max: 300_000,
    tooSmall: 'must be 0 or more milliseconds',
    tooLarge: 'must be at most 300000 milliseconds (5 minutes)',
  }).optional(),
  // The api's PostgreSQL connections (db/database-limits.ts; docs/operations.md#database-restarts-and-failovers).
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_LIMITS.statementTimeoutMs),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_LIMITS.idleInTransactionTimeoutMs),
  DATABASE_ACQUIRE_TIMEOUT_MS: milliseconds(DEFAULT_DATABASE_LIMITS.acquireTimeoutMs),
  // Streaming replicas for the reads, with read-your-writes (db/read-replicas.ts; docs/operations.md).
  DATABASE_READ_URL: commaList(
    postgresUrl('each entry must be a postgres:// or postgresql:// URL'),
  ).optional(),
  DATABASE_READ_MAX_LAG_MS: milliseconds(1_000),
  // Named prepared statements or unnamed ones (db/sql.ts; docs/operations.md#connection-poolers).
  DATABASE_STATEMENTS: z
    .enum(['auto', 'named', 'unnamed'] satisfies StatementMode[], {
      error:
        'must be auto (named, unless a transaction-mode pooler is found), named or unnamed (for a ' +
        'transaction-mode pooler such as PgBouncer before 1.21)',
    })
    .default('auto'),
  // The change feed (events/pet-feed.ts; docs/operations.md#the-change-feed).
  EVENTS_POLL_MS: timerMilliseconds(EVENTS_DEFAULTS.pollIntervalMs),
  EVENTS_RETENTION_SECONDS: whole('seconds', {
    min: 1,
    max: 365 * 24 * 60 * 60,
    tooSmall: 'must be at least 1 second',
    tooLarge: 'must be at most 365 days (31536000 seconds)',
  }).default(EVENTS_DEFAULTS.retentionSeconds),
  EVENTS_PRUNE_INTERVAL_MS: timerMilliseconds(EVENTS_DEFAULTS.pruneIntervalMs),
  EVENTS_MAX_PER_CALLER: whole('streams', { min: 1, tooSmall: 'must be at least 1' }).default(
    EVENTS_DEFAULTS.maxPerCaller,
  ),
  EVENTS_STALL_MS: timerMilliseconds(EVENTS_DEFAULTS.stallMs),
  EVENTS_KEEPALIVE_MS: timerMilliseconds(EVENTS_DEFAULTS.keepAliveMs),
  EVENTS_LISTEN_URL: postgresUrl('must be a postgres:// or postgresql:// URL').optional(),
  // OpenTelemetry's own variable names (the exporter also reads its other OTEL_EXPORTER_OTLP_* settings).
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://collector:4318' })
    .optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://collector:4318/v1/traces' })
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('petstore-api'),
  OTEL_SDK_DISABLED: trueOrFalse.optional(),
});

export type LogLevel = (typeof LOG_LEVELS)[number];

/** How long a client may take to send a request, and how many connections it may hold. */
export interface ServerLimits {
  /** The whole request, headers and body; then 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** The request line and headers; at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open after a response. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are closed as soon as they are accepted. */
  maxConnections: number;
}

export interface EventsConfig {
  /** EVENTS_POLL_MS: the feed reads the outbox at least this often, notifications or not. */
  pollIntervalMs: number;
  /** EVENTS_RETENTION_SECONDS: events older than this are pruned (7 days by default). */
  retentionSeconds: number;
  /** EVENTS_PRUNE_INTERVAL_MS: how often each instance prunes. */
  pruneIntervalMs: number;
  /** EVENTS_MAX_PER_CALLER: open streams per caller on one instance. */
  maxPerCaller: number;
  /** EVENTS_STALL_MS: a stream that has not taken an available event this long is closed. */
  stallMs: number;
  /** EVENTS_KEEPALIVE_MS: a keep-alive comment on an idle stream this often. */
  keepAliveMs: number;
  /** EVENTS_LISTEN_URL, else DATABASE_URL: where LISTEN connects; undefined on PGlite (its own listen). */
  listenUrl: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL when set; otherwise the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL statement, idle-transaction and pool-acquire time limits (unused on PGlite). */
  databaseLimits: DatabaseLimits;
  /** How the hot statements are sent to PostgreSQL: `auto` finds a transaction-mode pooler (db/sql.ts). */
  databaseStatements: StatementMode;
  /** Streaming replicas of DATABASE_URL for the reads (none: every read on the primary), and their lag bound. */
  databaseReadUrls: string[];
  databaseReadMaxLagMs: number;
  /**
   * Keys from API_KEYS; undefined only in local development (APP_ENV unset), where main then uses a
   * generated development key.
   */
  apiKeys: string[] | undefined;
  /** undefined: a local development run. */
  appEnv: 'production' | 'staging' | undefined;
  logLevel: LogLevel;
  /** Origins allowed to call from a browser (CORS); undefined: none (no CORS headers are sent). */
  corsOrigins: string[] | undefined;
  /** Requests per minute per API key, counted across instances; undefined: no limit. */
  rateLimitPerMinute: number | undefined;
  /** How long an idempotency key of createPet is remembered, in seconds. */
  idempotencyKeyTtlSeconds: number;
  /** Whether deprecated operations (getPet) are MCP tools too (MCP_DEPRECATED_TOOLS). */
  mcpDeprecatedTools: boolean;
  /** Public base URLs (ending in /v1) of both environments, listed as the OpenAPI `servers`; each optional. */
  productionUrl: string | undefined;
  stagingUrl: string | undefined;
  serverLimits: ServerLimits;
  /** Where Prometheus scrapes GET /metrics; undefined: no metrics are collected or served. */
  metrics: { port: number; host: string } | undefined;
  /**
   * After SIGTERM, how long the process keeps serving (with /readyz at 503) before it closes, so that a load
   * balancer takes it out of rotation first: 10 s by default when APP_ENV is set, 0 in local development.
   */
  shutdownDrainMs: number;
  /** The change feed (events/pet-feed.ts), its wake-ups (db/wakeups.ts) and its streams (the transports). */
  events: EventsConfig;
  /** OTLP/HTTP traces, when an endpoint is configured (and OTEL_SDK_DISABLED is not true). */
  tracing: { tracesUrl: string; serviceName: string } | undefined;
}

export { ConfigError };

/** Reads and validates the configuration; a bad value throws a ConfigError naming the variable. */
export function parseConfig(source: Record<string, string | undefined>): Config {
  const result = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== '')),
  );
  if (!result.success) {
    // Name the variable only (`API_KEYS`, not `API_KEYS.1`): the message must never echo a key.
    const problems = [
      ...new Set(result.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`)),
    ];
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const env = result.data;
  // A development key is for local runs only: a deployed environment must say which keys it accepts.
  if (env.APP_ENV !== undefined && env.API_KEYS === undefined) {
    throw new ConfigError(
      `invalid configuration:\n  API_KEYS: is required when APP_ENV=${env.APP_ENV} (a comma-separated list of keys)`,
    );
  }
  // Node refuses a headers timeout longer than the request timeout (which includes the headers).
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS})`,
    );
  }
  if (env.DATABASE_READ_URL !== undefined && env.DATABASE_URL === undefined) {
    throw new ConfigError(
      'invalid configuration:\n  DATABASE_READ_URL: needs DATABASE_URL (replicas of a PostgreSQL primary; the embedded database has none)',
    );
  }
  if (env.EVENTS_LISTEN_URL !== undefined && env.DATABASE_URL === undefined) {
    throw new ConfigError(
      'invalid configuration:\n  EVENTS_LISTEN_URL: needs DATABASE_URL (a direct connection to the same PostgreSQL; the embedded database listens in process)',
    );
  }
  // Metrics are served apart from the API so that they never go out through the API's load balancer.
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
    throw new ConfigError(
      `invalid configuration:\n  METRICS_PORT: must differ from PORT (${env.PORT}): metrics are served on a port of their own`,
    );
  }
  return {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    databaseLimits: {
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      acquireTimeoutMs: env.DATABASE_ACQUIRE_TIMEOUT_MS,
    },
    databaseStatements: env.DATABASE_STATEMENTS,
    databaseReadUrls: env.DATABASE_READ_URL ?? [],
    databaseReadMaxLagMs: env.DATABASE_READ_MAX_LAG_MS,
    apiKeys: env.API_KEYS,
    appEnv: env.APP_ENV,
    logLevel: env.LOG_LEVEL,
    corsOrigins: env.CORS_ORIGINS,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    idempotencyKeyTtlSeconds: env.IDEMPOTENCY_KEY_TTL_SECONDS,
    mcpDeprecatedTools: env.MCP_DEPRECATED_TOOLS === 'true',
    productionUrl: env.PETSTORE_PRODUCTION_URL,
    stagingUrl: env.PETSTORE_STAGING_URL,
    serverLimits: {
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    },
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS ?? (env.APP_ENV === undefined ? 0 : 10_000),
    events: {
      pollIntervalMs: env.EVENTS_POLL_MS,
      retentionSeconds: env.EVENTS_RETENTION_SECONDS,
      pruneIntervalMs: env.EVENTS_PRUNE_INTERVAL_MS,
      maxPerCaller: env.EVENTS_MAX_PER_CALLER,
      stallMs: env.EVENTS_STALL_MS,
      keepAliveMs: env.EVENTS_KEEPALIVE_MS,
      listenUrl: env.EVENTS_LISTEN_URL ?? env.DATABASE_URL,
    },
    tracing: tracingConfig(env),
  };
}

/** The traces URL as OpenTelemetry's exporters derive it: the signal's own variable, else `<endpoint>/v1/traces`. */
function tracingConfig(env: z.output<typeof EnvSchema>): Config['tracing'] {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
      ? undefined
      : `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return tracesUrl === undefined ? undefined : { tracesUrl, serviceName: env.OTEL_SERVICE_NAME };
}
