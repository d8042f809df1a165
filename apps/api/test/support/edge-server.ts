// The API as production serves it (createApp on createHttpServer, so the server-level edge is on: 100-continue,
// CONNECT, header counts), over an in-memory PGlite, for the edge's rule tests and its raw-HTTP fuzzer.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyPendingMigrations, listMigrationNames } from '@petstore/migrations';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { createApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { createHttpServer } from '../../src/server-limits.js';
import { responseValidator, validatingListener } from './response-validator.js';
import { TEST_API_KEY, UndocumentedResponses } from './test-server.js';

export interface EdgeServer {
  port: number;
  database: Database;
  close(): Promise<void>;
}

export async function startEdgeServer(): Promise<EdgeServer> {
  const logger = createLogger('silent');
  const database: Database = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://', logger });
  let server: Server | undefined;
  const violations: string[] = [];
  try {
    const validator = await responseValidator();
    await applyPendingMigrations(database.migrationAdapter);
    const app = createApp({
      sql: database.sql,
      logger,
      apiKeys: [TEST_API_KEY],
      migrations: await listMigrationNames(),
    });
    server = createHttpServer(
      // Every answer checked against the document (support/response-validator.ts).
      validatingListener(validator, app, (problems) => violations.push(...problems)),
      {
        requestTimeoutMs: scaled(10_000),
        headersTimeoutMs: scaled(5_000),
        keepAliveTimeoutMs: 5_000,
        maxConnections: 1_000,
      },
      { request: app.request, response: app.response },
    );
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(0, '127.0.0.1', resolve);
    });
  } catch (error) {
    server?.close();
    await database.close();
    throw error;
  }
  const started = server;
  return {
    port: (started.address() as AddressInfo).port,
    database,
    async close() {
      started.closeAllConnections();
      await new Promise((resolve) => started.close(resolve));
      await database.close();
      if (violations.length > 0) throw new UndocumentedResponses(violations);
    },
  };
}
