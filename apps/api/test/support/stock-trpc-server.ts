import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyPendingMigrations } from '@petstore/migrations';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express from 'express';
import { createOperationHandlers } from '../../src/app.js';
import { EVENTS_DEFAULTS } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { createAppRouter } from '../../src/trpc/router.js';

/**
 * Our tRPC router served by tRPC's stock Express adapter and nothing else (no key, no pre-checks, no fast path),
 * over its own fresh in-memory PGlite: the oracle the tRPC fuzzer holds our server to. `baseUrl` ends in /v1.
 */
export async function startStockTrpcServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const logger = createLogger('silent');
  const database = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', logger });
  await applyPendingMigrations(database.migrationAdapter);
  const app = express();
  app.use(
    '/v1/trpc',
    createExpressMiddleware({
      router: createAppRouter(createOperationHandlers({ sql: database.sql, logger }), {
        keepAliveMs: EVENTS_DEFAULTS.keepAliveMs,
      }),
      createContext: ({ req }) => ({
        caller: { subject: 'stock' },
        onInternalError: () => {},
        method: req.method,
      }),
    }),
  );
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    },
  };
}
