import { z } from 'zod';
import { API_KEY_PATTERN, API_KEY_RULE } from './keys/api-key-format.js';

// The only module that reads the environment. Everything else receives a Config, so tests pass their own.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

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

/**
 * The public base URL of an environment, as clients reach it (behind any proxy): http(s), ending in the
 * version segment `/v1`, no query or fragment. A trailing slash is dropped. The same rule as the client's.
 */
const PublicUrlSchema = z.preprocess(
  emptyAsUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL ending in /v1' })
    .transform((url) => url.replace(/\/+$/, ''))
    .refine((url) => {
      const parsed = new URL(url);
      return parsed.pathname.endsWith('/v1') && parsed.search === '' && parsed.hash === '';
    }, 'must be an http(s) URL ending in /v1, without query or fragment')
    .optional(),
);

const EnvSchema = z.object({
  PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a port number' })
      .int('must be a port number')
      .min(0, 'must be a port number between 0 and 65535')
      .max(65535, 'must be a port number between 0 and 65535')
      .default(3000),
  ),
  HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('127.0.0.1')),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' }).optional(),
  ),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./.data')),
  API_KEYS: z.preprocess(
    emptyAsUndefined,
    commaList(z.string().regex(API_KEY_PATTERN, `each key must be ${API_KEY_RULE}`))
      .refine((keys) => keys.length > 0, 'must list at least one key')
      .optional(),
  ),
  APP_ENV: z.preprocess(
    emptyAsUndefined,
    z
      .enum(['production', 'staging'], {
        error: 'must be production or staging (or unset for local development)',
      })
      .optional(),
  ),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
  CORS_ORIGINS: z.preprocess(
    emptyAsUndefined,
    commaList(
      z.union(
        [z.literal('*'), z.url({ protocol: /^https?$/ }).refine((url) => new URL(url).origin === url)],
        {
          error:
            'each entry must be * or an origin such as https://app.example.com (no path or trailing slash)',
        },
      ),
    ).optional(),
  ),
  RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number({ error: 'must be a whole number of requests per minute' })
      .int('must be a whole number of requests per minute')
      .min(1, 'must be at least 1 (unset it to turn rate limiting off)')
      .optional(),
  ),
  // Same names as @petstore/client's environment presets, so one deployment setting serves both.
  PETSTORE_PRODUCTION_URL: PublicUrlSchema,
  PETSTORE_STAGING_URL: PublicUrlSchema,
});

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL when set; otherwise the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
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
  /** Public base URLs (ending in /v1) of both environments, listed as the OpenAPI `servers`; each optional. */
  productionUrl: string | undefined;
  stagingUrl: string | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the configuration; a bad value throws a ConfigError naming the variable. */
export function parseConfig(source: Record<string, string | undefined>): Config {
  const result = EnvSchema.safeParse(source);
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
  return {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    apiKeys: env.API_KEYS,
    appEnv: env.APP_ENV,
    logLevel: env.LOG_LEVEL,
    corsOrigins: env.CORS_ORIGINS,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    productionUrl: env.PETSTORE_PRODUCTION_URL,
    stagingUrl: env.PETSTORE_STAGING_URL,
  };
}
