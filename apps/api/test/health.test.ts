// /healthz and /readyz through the real app over a real (in-memory PGlite) database.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { appliedMigrationNames, listMigrationNames } from '@petstore/migrations';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import type { Sql } from '../src/db/sql.js';
import { createHealth, type HealthOptions } from '../src/http/health.js';
import type { Logger } from '../src/logger.js';
import { call, expectError } from './support/http.js';
import { openMigratedMemoryDatabase } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

const FUTURE_MIGRATION = '29991231000000_from_the_future';

let database: Database;
let migrations: string[];
beforeAll(async () => {
  database = await openMigratedMemoryDatabase();
  migrations = await listMigrationNames();
});
afterAll(async () => {
  await database?.close();
});

/** The hot statements, counting the statements sent through them. */
function countingSql(sql: Sql): { sql: Sql; queries: () => number } {
  let queries = 0;
  return {
    sql: {
      rows(statement, args) {
        queries++;
        return sql.rows(statement, args);
      },
    },
    queries: () => queries,
  };
}

/** A logger whose lines the test can read. */
function capturingLogger(): { logger: Logger; lines: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream) as unknown as Logger, lines: () => text };
}

async function serve(options: Partial<HealthOptions> = {}) {
  const { logger, lines } = capturingLogger();
  const counted = countingSql(database.sql);
  const health = createHealth({
    appliedMigrations: () => appliedMigrationNames(counted.sql),
    migrations,
    logger,
    ...options,
  });
  const app = createApp({
    sql: database.sql,
    logger,
    apiKeys: [TEST_API_KEY],
    migrations,
    health,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    root,
    health,
    queries: counted.queries,
    logs: lines,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('/readyz', () => {
  it('answers exactly {"status":"ready"} when the database has every migration', async () => {
    const api = await serve();
    try {
      const reply = await call(api.root, '/readyz', { apiKey: null });
      expect({ status: reply.status, text: reply.text }).toEqual({ status: 200, text: '{"status":"ready"}' });
      expect((await call(api.root, '/healthz', { apiKey: null })).text).toBe('{"status":"ok"}');
    } finally {
      await api.close();
    }
  });

  it('is 503 with a generic message when a migration is missing, and logs which one instead', async () => {
    const api = await serve({ migrations: [...migrations, FUTURE_MIGRATION] });
    try {
      const reply = await call(api.root, '/readyz', { apiKey: null });
      expectError(reply, 503, 'service_unavailable');
      expect(reply.text).not.toContain(FUTURE_MIGRATION);
      expect(reply.text).not.toMatch(/migration/i);
      expect(api.logs()).toContain(FUTURE_MIGRATION);
    } finally {
      await api.close();
    }
  });

  it('costs at most one query per period, however many probes arrive', async () => {
    // A period of an hour: every probe of the test falls in the first one, however slow the machine.
    const api = await serve({ cacheMs: 3_600_000 });
    try {
      const flood = await Promise.all(
        Array.from({ length: 50 }, () => call(api.root, '/readyz', { apiKey: null })),
      );
      expect(flood.map((reply) => reply.status)).toEqual(flood.map(() => 200));
      for (let i = 0; i < 10; i++)
        expect((await call(api.root, '/readyz', { apiKey: null })).status).toBe(200);
      expect(api.queries()).toBe(1);
    } finally {
      await api.close();
    }
  });

  it('asks the database again once the period has passed', async () => {
    const api = await serve({ cacheMs: 50 });
    try {
      expect((await call(api.root, '/readyz', { apiKey: null })).status).toBe(200);
      expect(api.queries()).toBe(1);
      // Waiting at least the period guarantees a new one has begun (only a lower bound on time is relied on).
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect((await call(api.root, '/readyz', { apiKey: null })).status).toBe(200);
      expect(api.queries()).toBe(2);
    } finally {
      await api.close();
    }
  });

  it('is 503 once draining has started, without asking the database; /healthz stays 200', async () => {
    const api = await serve();
    try {
      expect((await call(api.root, '/readyz', { apiKey: null })).status).toBe(200);
      api.health.startDraining();
      const reply = await call(api.root, '/readyz', { apiKey: null });
      expectError(reply, 503, 'service_unavailable');
      expect((await call(api.root, '/healthz', { apiKey: null })).status).toBe(200);
      expect(api.queries()).toBe(1);
    } finally {
      await api.close();
    }
  });
});
