import { API_BASE_PATH, checkApiBaseUrl } from '@petstore/schema';
import { integerOfText } from '@petstore/schema/internal';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { DEFAULT_DATABASE_LIMITS, QUERY_TIMEOUT_MARGIN_MS } from './db/database-limits.js';
import type { StatementMode } from './db/sql.js';
import { API_KEY_PATTERN, API_KEY_RULE } from './keys/api-key-format.js';

// The only module that reads the environment. Everything else receives a Config, so tests pass their own.

/** Node's longest timer (about 24.8 days): a longer delay fires at once. PostgreSQL's time limits stop there too. */
const MAX_TIMER_MS = 2_147_483_647;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A comma-separated list of at least one `what`, each entry trimmed, empty entries dropped, checked by `item`. */
const commaList = <T extends z.ZodType<unknown, string>>(item: T, what: string) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .pipe(z.array(item).min(1, `must list at least one ${what}`));

/**
 * A public base URL (PETSTORE_*_URL), by the contract's rule (`checkApiBaseUrl`), as the clients check presets, and
 * without credentials, which the clients refuse too: the URL is sent to every client (`servers`, `Link`, `Location`).
 */
const PublicUrlSchema = z
  .string()
  .transform((url, ctx) => {
    const checked = checkApiBaseUrl(url);
    const parsed = URL.parse(url);
    if (checked.ok && parsed?.username === '' && parsed.password === '') return checked.url;
    const message = `must be an http(s) URL ending in ${API_BASE_PATH}`;
    ctx.addIssue({
      code: 'custom',
      message:
        !checked.ok && checked.problem === 'not-a-url'
          ? message
          : `${message}, without credentials, query or fragment`,
    });
    return z.NEVER;
  })
  .optional();

/** A range, and what a value out of it is told (by default, the range in `unit`s). */
type Range = { min: number; max?: number; tooSmall?: string; tooLarge?: string; spelled?: string };

/**
 * A whole number of `unit` from its text, by the one rule for integers in text (@petstore/schema's integerOfText,
 * as on the wire: `30000` and `3e4` are 30000; `0x10`, ` 5` and `1.5` are refused), within [min, max].
 */
const whole = (unit: string, { min, max, tooSmall, tooLarge, spelled }: Range) => {
  const notWhole = spelled ?? `must be a whole number of ${unit}`;
  return z
    .string()
    .transform((text) => integerOfText(text) ?? Number.NaN)
    .pipe(
      z
        .number({ error: notWhole })
        .int(notWhole)
        .min(min, tooSmall ?? `must be at least ${min} ${unit}`)
        .max(max ?? Number.MAX_SAFE_INTEGER, tooLarge ?? `must be at most ${max} ${unit}`),
    );
};

/**
 * Every duration in milliseconds (*_MS): from `min` (1 unless said: 0 would switch Node's protection off) to
 * `max`, never past MAX_TIMER_MS, Node's longest timer and PostgreSQL's longest time limit (INT_MAX ms).
 */
const milliseconds = ({ min = 1, max = MAX_TIMER_MS, tooLarge }: Partial<Range> = {}) =>
  whole('milliseconds', {
    min,
    max: Math.min(max, MAX_TIMER_MS),
    tooLarge,
    tooSmall: min === 1 ? 'must be at least 1 millisecond' : `must be ${min} or more milliseconds`,
  });

/** Whole seconds, from 1 to `days` days. */
const seconds = (days: number) =>
  whole('seconds', {
    min: 1,
    max: days * 86_400,
    tooSmall: 'must be at least 1 second',
    tooLarge: `must be at most ${days} days (${days * 86_400} seconds)`,
  });

const PORT_RANGE = 'must be a port number between 0 and 65535';
/** A TCP port, 0 (any free one) to 65535. */
const port = whole('', {
  min: 0,
  max: 65535,
  spelled: 'must be a port number',
  tooSmall: PORT_RANGE,
  tooLarge: PORT_RANGE,
});

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
const httpUrl = (example: string) =>
  z.url({ protocol: /^https?$/, error: `must be an http(s) URL such as ${example}` }).optional();
// Every boolean, by the OpenTelemetry environment specification's rule: "true", case-insensitive. Where the spec
// falls back to false on any other value with a warning, a bad value stops start-up here, as for every variable.
const trueOrFalse = z.stringbool({
  truthy: ['true'],
  falsy: ['false'],
  case: 'insensitive',
  error: 'must be true or false',
});

// Every variable as its text. An empty one is as good as unset in local development (parseConfig drops it before
// this reads it); in a deployed environment, and a blank one anywhere, it is refused there.
const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: postgresUrl('must be a postgres:// or postgresql:// URL').optional(),
  DATA_DIR: z.string().default('./.data'),
  API_KEYS: commaList(
    z.string().regex(API_KEY_PATTERN, `each key must be ${API_KEY_RULE}`),
    'key',
  ).optional(),
  APP_ENV: z
    .enum(['production', 'staging'], {
      error: 'must be production or staging (or unset for local development)',
    })
    .optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  // One check per entry, so that every refusal is this message (URL.parse: never a throw).
  CORS_ORIGINS: commaList(
    z
      .string()
      .refine((entry) => entry === '*' || (/^https?:/.test(entry) && URL.parse(entry)?.origin === entry), {
        error:
          'each entry must be * or an origin such as https://app.example.com (no path or trailing slash)',
      }),
    'origin',
  ).optional(),
  RATE_LIMIT_PER_MINUTE: whole('requests per minute', {
    min: 1,
    tooSmall: 'must be at least 1 (unset it to turn rate limiting off)',
  }).optional(),
  // Deprecated operations (getPet) as MCP tools too: hidden from agents unless asked for.
  MCP_DEPRECATED_TOOLS: trueOrFalse.default(false),
  // How long createPet's idempotency keys are remembered (the IETF draft suggests at least 24 hours).
  IDEMPOTENCY_KEY_TTL_SECONDS: seconds(30).default(24 * 60 * 60),
  // Defaults for a service of small JSON requests, usually behind a load balancer. See server-limits.ts.
  HTTP_REQUEST_TIMEOUT_MS: milliseconds().default(30_000),
  HTTP_HEADERS_TIMEOUT_MS: milliseconds().default(10_000),
  // Above the idle timeout of common load balancers (AWS ALB 60 s, nginx 60 s), so that the balancer, not
  // this server, closes an idle connection: otherwise it may send a request on a socket we are closing.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds().default(65_000),
  HTTP_MAX_CONNECTIONS: whole('connections', { min: 1, tooSmall: 'must be at least 1' }).default(1_000),
  // Same names as @petstore/client's environment presets, so one deployment setting serves both.
  PETSTORE_PRODUCTION_URL: PublicUrlSchema,
  PETSTORE_STAGING_URL: PublicUrlSchema,
  // Operating at scale (docs/operations.md#production-topology): metrics, traces, draining before exit.
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SHUTDOWN_DRAIN_MS: milliseconds({
    min: 0,
    max: 300_000,
    tooLarge: 'must be at most 300000 milliseconds (5 minutes)',
  }).optional(),
  // The api's PostgreSQL connections (db/database-limits.ts; docs/operations.md#database-restarts-and-failovers).
  // The client waits QUERY_TIMEOUT_MARGIN_MS longer than the server's limit (db/database.ts): room for it below the maximum.
  DATABASE_STATEMENT_TIMEOUT_MS: milliseconds({ max: MAX_TIMER_MS - QUERY_TIMEOUT_MARGIN_MS }).default(
    DEFAULT_DATABASE_LIMITS.statementTimeoutMs,
  ),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: milliseconds().default(
    DEFAULT_DATABASE_LIMITS.idleInTransactionTimeoutMs,
  ),
  DATABASE_ACQUIRE_TIMEOUT_MS: milliseconds().default(DEFAULT_DATABASE_LIMITS.acquireTimeoutMs),
  // Streaming replicas for the reads, with read-your-writes (db/read-replicas.ts; docs/operations.md).
  DATABASE_READ_URL: commaList(
    postgresUrl('each entry must be a postgres:// or postgresql:// URL'),
    'replica URL',
  ).optional(),
  DATABASE_READ_MAX_LAG_MS: milliseconds().default(1_000),
  // Named prepared statements or unnamed ones (db/sql.ts; docs/operations.md#connection-poolers).
  DATABASE_STATEMENTS: z
    .enum(['auto', 'named', 'unnamed'] satisfies StatementMode[], {
      error:
        'must be auto (named, unless a transaction-mode pooler is found), named or unnamed (for a ' +
        'transaction-mode pooler such as PgBouncer before 1.21)',
    })
    .default('auto'),
  // The change feed (events/pet-feed.ts; docs/operations.md#the-change-feed).
  EVENTS_POLL_MS: milliseconds().default(EVENTS_DEFAULTS.pollIntervalMs),
  EVENTS_RETENTION_SECONDS: seconds(365).default(EVENTS_DEFAULTS.retentionSeconds),
  EVENTS_PRUNE_INTERVAL_MS: milliseconds().default(EVENTS_DEFAULTS.pruneIntervalMs),
  EVENTS_MAX_PER_CALLER: whole('streams', { min: 1, tooSmall: 'must be at least 1' }).default(
    EVENTS_DEFAULTS.maxPerCaller,
  ),
  EVENTS_STALL_MS: milliseconds().default(EVENTS_DEFAULTS.stallMs),
  // tRPC's subscription clients reconnect after three keep-alives of silence (trpc/trpc.ts): that must fit a timer.
  EVENTS_KEEPALIVE_MS: milliseconds({
    max: Math.floor(MAX_TIMER_MS / 3),
    tooLarge: `must be at most ${Math.floor(MAX_TIMER_MS / 3)} milliseconds (a tRPC client waits three of them, and Node's longest timer is ${MAX_TIMER_MS})`,
  }).default(EVENTS_DEFAULTS.keepAliveMs),
  EVENTS_LISTEN_URL: postgresUrl('must be a postgres:// or postgresql:// URL').optional(),
  // OpenTelemetry's own variable names (the exporter also reads its other OTEL_EXPORTER_OTLP_* settings).
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('http://collector:4318'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('http://collector:4318/v1/traces'),
  OTEL_SERVICE_NAME: z.string().min(1).default('petstore-api'),
  OTEL_SDK_DISABLED: trueOrFalse.optional(),
});

/** Every variable parseConfig reads. */
export const CONFIG_VARIABLES = EnvSchema.keyof().options;

export type LogLevel = (typeof LOG_LEVELS)[number];
export type Config = ReturnType<typeof parseConfig>;
/** How long a client may take to send a request, and how many connections it may hold (server-limits.ts). */
export type ServerLimits = Config['serverLimits'];
/** The EVENTS_* settings (docs/operations.md#the-change-feed). */
export type EventsConfig = Config['events'];

export { ConfigError };

const invalid = (problems: string[]) => new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);

/** Reads and validates the configuration; a bad value throws a ConfigError naming the variable. */
export function parseConfig(source: Record<string, string | undefined>) {
  // A blank value means nothing anywhere; an empty one is "unset" locally (a `VAR=` line), but where APP_ENV says
  // the process is deployed it is a value that was not delivered (a secret not injected), never a default taken.
  const deployed = source.APP_ENV !== undefined && source.APP_ENV !== '';
  const unsaid = CONFIG_VARIABLES.filter((name) => {
    const value = source[name];
    return value !== undefined && value.trim() === '' && (value !== '' || deployed);
  });
  if (unsaid.length > 0) {
    throw invalid(
      unsaid.map((name) =>
        source[name] === ''
          ? `${name}: is empty; APP_ENV=${source.APP_ENV} takes no default for an empty value (unset it, or give a value)`
          : `${name}: is blank (unset it, or give a value)`,
      ),
    );
  }
  const result = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== '')),
  );
  // Name the variable only (`API_KEYS`, not `API_KEYS.1`): the message must never echo a key.
  if (!result.success) {
    throw invalid([
      ...new Set(result.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`)),
    ]);
  }
  const env = result.data;
  // Rules across variables; the first broken one is reported.
  const broken = [
    // A development key is for local runs only: a deployed environment must say which keys it accepts.
    env.APP_ENV !== undefined &&
      env.API_KEYS === undefined &&
      `API_KEYS: is required when APP_ENV=${env.APP_ENV} (a comma-separated list of keys)`,
    // Node refuses a headers timeout longer than the request timeout (which includes the headers).
    env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS &&
      `HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS})`,
    env.DATABASE_READ_URL !== undefined &&
      env.DATABASE_URL === undefined &&
      'DATABASE_READ_URL: needs DATABASE_URL (replicas of a PostgreSQL primary; the embedded database has none)',
    env.EVENTS_LISTEN_URL !== undefined &&
      env.DATABASE_URL === undefined &&
      'EVENTS_LISTEN_URL: needs DATABASE_URL (a direct connection to the same PostgreSQL; the embedded database listens in process)',
    // Metrics are served apart from the API so that they never go out through the API's load balancer.
    env.METRICS_PORT !== 0 &&
      env.METRICS_PORT === env.PORT &&
      `METRICS_PORT: must differ from PORT (${env.PORT}): metrics are served on a port of their own`,
  ].find((problem) => problem !== false);
  if (broken !== undefined) throw invalid([broken]);
  // The traces URL as OpenTelemetry's exporters derive it: the signal's own variable, else `<endpoint>/v1/traces`.
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return {
    port: env.PORT,
    host: env.HOST,
    /** PostgreSQL when set; otherwise the embedded PGlite database in `dataDir`. */
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    databaseLimits: {
      statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      acquireTimeoutMs: env.DATABASE_ACQUIRE_TIMEOUT_MS,
    },
    databaseStatements: env.DATABASE_STATEMENTS,
    /** Replicas for the reads (none: every read on the primary). */
    databaseReadUrls: env.DATABASE_READ_URL ?? [],
    databaseReadMaxLagMs: env.DATABASE_READ_MAX_LAG_MS,
    /** undefined only in local development (APP_ENV unset), where main then uses a generated development key. */
    apiKeys: env.API_KEYS,
    /** undefined: a local development run. */
    appEnv: env.APP_ENV,
    logLevel: env.LOG_LEVEL,
    /** Origins allowed to call from a browser; undefined: none (no CORS headers are sent). */
    corsOrigins: env.CORS_ORIGINS,
    /** Requests per minute per API key, counted across instances; undefined: no limit. */
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    idempotencyKeyTtlSeconds: env.IDEMPOTENCY_KEY_TTL_SECONDS,
    mcpDeprecatedTools: env.MCP_DEPRECATED_TOOLS,
    /** Listed as the OpenAPI `servers`; each optional. */
    productionUrl: env.PETSTORE_PRODUCTION_URL,
    stagingUrl: env.PETSTORE_STAGING_URL,
    serverLimits: {
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    },
    /** undefined: no metrics are collected or served. */
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
    /** After SIGTERM, serving on with /readyz at 503 so that a load balancer takes the instance out first. */
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS ?? (env.APP_ENV === undefined ? 0 : 10_000),
    events: {
      pollIntervalMs: env.EVENTS_POLL_MS,
      retentionSeconds: env.EVENTS_RETENTION_SECONDS,
      pruneIntervalMs: env.EVENTS_PRUNE_INTERVAL_MS,
      maxPerCaller: env.EVENTS_MAX_PER_CALLER,
      stallMs: env.EVENTS_STALL_MS,
      keepAliveMs: env.EVENTS_KEEPALIVE_MS,
      /** Where LISTEN connects; undefined on PGlite (its own listen). */
      listenUrl: env.EVENTS_LISTEN_URL ?? env.DATABASE_URL,
    },
    tracing:
      tracesUrl === undefined || env.OTEL_SDK_DISABLED
        ? undefined
        : { tracesUrl, serviceName: env.OTEL_SERVICE_NAME },
  };
}
