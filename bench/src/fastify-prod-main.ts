// Runs the production Fastify reference as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS,
// POOL_SIZE, RATE_LIMIT_PER_MINUTE (requests per key per minute; by default far above what a bench run makes, so
// it counts every request and refuses none, as the api would with a limit set). Its request log goes to stdout.
import { listenAddress, openReferencePool, referenceKeys, stopOnSignal } from './fastify-process.js';
import { createProductionFastifyServer } from './fastify-prod-server.js';

/** More than 50 connections on loopback can make in a minute: the limiter counts, it never refuses. */
const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

const pool = openReferencePool();
const app = await createProductionFastifyServer(pool, referenceKeys(), {
  rateLimitPerMinute: Number(process.env.RATE_LIMIT_PER_MINUTE ?? BENCH_RATE_LIMIT_PER_MINUTE),
});
await app.listen(listenAddress());
// pino writes what its destination still holds when the process exits.
stopOnSignal(app, pool);
