// Runs the reference server as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS, POOL_SIZE.
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createReferenceServer } from './reference-server.js';

const env = process.env;
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  // The api's pool size (apps/api/src/db/database.ts): the comparison is about the code, not the pool.
  max: Number(env.POOL_SIZE ?? 10),
  connectionTimeoutMillis: 5_000,
});
pool.on('error', (error) => process.stderr.write(`idle PostgreSQL connection lost: ${error.message}\n`));

const server = createReferenceServer(pool, (env.API_KEYS ?? '').split(',').filter(Boolean));
server.keepAliveTimeout = 5_000;
server.listen(Number(env.PORT ?? 0), env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`reference server listening on http://127.0.0.1:${port}/v1\n`);
});

const stop = () => {
  server.close(() => pool.end().finally(() => process.exit(0)));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
