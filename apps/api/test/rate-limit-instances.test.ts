// Two instances on one PostgreSQL database, RATE_LIMIT_PER_MINUTE=5: a tRPC batch refused on one instance must not
// make the other refuse a request that fits. It did: the batch was added to the count and given back afterwards, and
// a charge landing in between saw the inflated count (429 with `r=-1`, "costs 1, -1 left"), after which that
// instance refused the key from memory for the rest of the window. The interleaving is forced, not hoped for: a
// separate connection holds the key's row (FOR UPDATE) until both instances' statements wait on it, in that order.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyPendingMigrations } from '@petstore/migrations';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { createApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { createLogger } from '../src/logger.js';
import { atStartOfRateWindow, call, type Reply } from './support/http.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { TEST_API_KEY } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

const logger = createLogger('silent');

describe('a refused batch on one instance and a fitting request on another (PostgreSQL)', () => {
  let database: TestDatabase;
  const baseUrls: string[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ratelimit_instances');
    for (let i = 0; i < 2; i++) {
      const db = await openDatabase({ databaseUrl: database.url, dataDir: '', logger });
      if (i === 0) await applyPendingMigrations(db.migrationAdapter);
      const app = createApp({
        sql: db.sql,
        logger,
        apiKeys: [TEST_API_KEY],
        migrations: [],
        rateLimitPerMinute: 5,
      });
      const server: Server = await new Promise((resolve) => {
        const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
      });
      baseUrls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
      closers.push(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await db.close();
      });
    }
  }, timeouts.hook);
  afterAll(async () => {
    for (const close of closers) await close();
    await database?.drop();
  }, timeouts.hook);

  const remaining = (reply: Reply) =>
    /^"per-key";r=(-?\d+);t=\d+$/.exec(reply.headers.get('ratelimit') ?? '')?.[1];
  const batch = (calls: number) => {
    const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { json: { limit: 1 } }]));
    return `/trpc/${Array(calls).fill('pets.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
  };

  it('answers the fitting request 200 with what is left, never a negative r, and locks nobody out', async () => {
    const [a, b] = baseUrls as [string, string];
    await atStartOfRateWindow();
    expect((await call(a, '/pets?limit=1')).status).toBe(200);
    expect(remaining(await call(b, '/pets?limit=1'))).toBe('3');

    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT count FROM rate_limit_windows FOR UPDATE');
      /** Waits until `n` statements of the instances wait for the held row. */
      const waiting = async (n: number) => {
        for (;;) {
          const { rows } = await holder.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          if ((rows[0]?.n ?? 0) >= n) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      const refused = call(a, batch(4));
      await waiting(1);
      const fitting = call(b, '/pets?limit=1');
      await waiting(2);
      await holder.query('COMMIT');

      const [batchReply, fittingReply] = await Promise.all([refused, fitting]);
      expect(batchReply.status).toBe(429);
      // Left when the batch was refused: 3, or 2 if the fitting request was charged before the batch read the count.
      expect(['2', '3']).toContain(remaining(batchReply));
      expect({ status: fittingReply.status, r: remaining(fittingReply) }).toEqual({ status: 200, r: '2' });
    } finally {
      await holder.end();
    }
    // Neither instance holds the key to a count it never had: the two calls left are served, on either.
    expect(remaining(await call(b, '/pets?limit=1'))).toBe('1');
    expect(remaining(await call(a, '/pets?limit=1'))).toBe('0');
    const over = await call(b, '/pets?limit=1');
    expect({ status: over.status, r: remaining(over) }).toEqual({ status: 429, r: '0' });
  });
});
