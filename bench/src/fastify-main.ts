// Runs the Fastify reference server as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS,
// POOL_SIZE.
import pg from 'pg';
import { createFastifyServer } from './fastify-server.js';

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

const app = createFastifyServer(pool, (env.API_KEYS ?? '').split(',').filter(Boolean));
const address = await app.listen({ port: Number(env.PORT ?? 0), host: env.HOST ?? '127.0.0.1' });
process.stdout.write(`fastify server listening on ${address}/v1\n`);

const stop = () => {
  app
    .close()
    .then(() => pool.end())
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
