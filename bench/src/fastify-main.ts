// Runs the Fastify reference server as its own process, like the api: PORT, HOST, DATABASE_URL, API_KEYS,
// POOL_SIZE.
import { listenAddress, openReferencePool, referenceKeys, stopOnSignal } from './fastify-process.js';
import { createFastifyServer } from './fastify-server.js';

const pool = openReferencePool();
const app = createFastifyServer(pool, referenceKeys());
const address = await app.listen(listenAddress());
process.stdout.write(`fastify server listening on ${address}/v1\n`);
stopOnSignal(app, pool);
