import { z } from 'zod';

// The only module that reads the environment. Everything else receives a Config, so tests pass their own.

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** An API key must be usable in an Authorization header as is and long enough not to be guessed. */
const API_KEY_PATTERN = /^[\x21-\x7e]{16,256}$/;

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

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
    z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      )
      .pipe(
        z
          .array(
            z
              .string()
              .regex(API_KEY_PATTERN, 'each key must be 16 to 256 printable ASCII characters without spaces'),
          )
          .min(1, 'must list at least one key'),
      )
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
});

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL when set; otherwise the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Keys from API_KEYS; undefined when none were configured (main then generates a development key). */
  apiKeys: string[] | undefined;
  /** undefined: a local development run. */
  appEnv: 'production' | 'staging' | undefined;
  logLevel: LogLevel;
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
  if (env.APP_ENV === 'production' && env.API_KEYS === undefined) {
    throw new ConfigError(
      'invalid configuration:\n  API_KEYS: is required when APP_ENV=production (a comma-separated list of keys)',
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
  };
}
