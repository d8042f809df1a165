// Runs the naive reference server as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS, POOL_SIZE.
// The Prisma client is the bench's own (src/generated/prisma, from the repository's schema), over a pg.Pool of the
// api's size through @prisma/adapter-pg, as the api does.
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { createNaiveApp } from './naive-server.js';

const env = process.env;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: Number(env.POOL_SIZE ?? 10) });
pool.on('error', (error) => process.stderr.write(`idle PostgreSQL connection lost: ${error.message}\n`));
const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });

const app = createNaiveApp(prisma, (env.API_KEYS ?? '').split(',').filter(Boolean));
const server = app.listen(Number(env.PORT ?? 0), env.HOST ?? '127.0.0.1', (error) => {
  if (error) throw error;
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`naive server listening on http://127.0.0.1:${port}/v1\n`);
});

const stop = () => {
  server.close(() =>
    prisma
      .$disconnect()
      .then(() => pool.end())
      .finally(() => process.exit(0)),
  );
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
