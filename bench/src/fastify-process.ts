// What the two Fastify reference processes share (fastify-main.ts, fastify-prod-main.ts): their pool on
// DATABASE_URL, the keys of API_KEYS, and a stop on SIGTERM or SIGINT that closes the server, then the pool.
import pg from 'pg';

const env = process.env;

/** The pool, int8 columns read as bigint (fast-json-stringify writes a bigint as its exact digits). */
export function openReferencePool(): pg.Pool {
  pg.types.setTypeParser(pg.types.builtins.INT8, BigInt);
  const pool = new pg.Pool({
    connectionString: env.DATABASE_URL,
    // The api's pool size (apps/api/src/db/database.ts): the comparison is about the code, not the pool.
    max: Number(env.POOL_SIZE ?? 10),
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', (error) => process.stderr.write(`idle PostgreSQL connection lost: ${error.message}\n`));
  return pool;
}

/** API_KEYS, comma-separated. */
export const referenceKeys = (): string[] => (env.API_KEYS ?? '').split(',').filter(Boolean);

/** Where to listen: PORT (any free one when unset) and HOST. */
export const listenAddress = () => ({ port: Number(env.PORT ?? 0), host: env.HOST ?? '127.0.0.1' });

/** Closes the server, then the pool, and exits, on SIGTERM or SIGINT. */
export function stopOnSignal(app: { close(): Promise<unknown> }, pool: pg.Pool): void {
  const stop = () => {
    app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
