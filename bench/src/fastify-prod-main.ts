// Runs the production Fastify reference as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS,
// POOL_SIZE, RATE_LIMIT_PER_MINUTE (requests per key per minute; by default far above what a bench run makes, so
// it counts every request and refuses none, as the api would with a limit set). Its request log goes to stdout.
import pg from 'pg';
import { createProductionFastifyServer } from './fastify-prod-server.js';

/** More than 50 connections on loopback can make in a minute: the limiter counts, it never refuses. */
const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

const env = process.env;
// int8 columns as bigint: fast-json-stringify writes a bigint as its exact digits.
pg.types.setTypeParser(pg.types.builtins.INT8, BigInt);
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  // The api's pool size (apps/api/src/db/database.ts): the comparison is about the code, not the pool.
  max: Number(env.POOL_SIZE ?? 10),
  connectionTimeoutMillis: 5_000,
});
pool.on('error', (error) => process.stderr.write(`idle PostgreSQL connection lost: ${error.message}\n`));

const app = await createProductionFastifyServer(pool, (env.API_KEYS ?? '').split(',').filter(Boolean), {
  rateLimitPerMinute: Number(env.RATE_LIMIT_PER_MINUTE ?? BENCH_RATE_LIMIT_PER_MINUTE),
});
await app.listen({ port: Number(env.PORT ?? 0), host: env.HOST ?? '127.0.0.1' });

// pino writes what its destination still holds when the process exits.
const stop = () => {
  app
    .close()
    .then(() => pool.end())
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
