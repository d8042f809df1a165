// Two instances on one PostgreSQL database, RATE_LIMIT_PER_MINUTE=5: a tRPC batch refused on one instance must not
// make the other refuse a request that fits. It did: the batch was added to the count and given back afterwards, and
// a charge landing in between saw the inflated count (429 with `r=-1`, "costs 1, -1 left"), after which that
// instance refused the key from memory for the rest of the window. The interleaving is forced, not hoped for: a
// separate connection holds the key's row (FOR UPDATE) until both instances' statements wait on it, in that order.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyPendingMigrations } from '@petstore/migrations';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { createApp } from '../src/app.js';
import { type Database, openDatabase } from '../src/db/database.js';
import type { Sql } from '../src/db/sql.js';
import type { AppError } from '../src/errors.js';
import { createRateLimitStore } from '../src/limits/rate-limit.store.js';
import { createRateLimiter } from '../src/limits/rate-limiter.js';
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

/**
 * An instance's statements on the request path, each held until the schedule runs it (to its end). The sweep of old
 * windows, off the request path, is not held.
 */
function heldSql(sql: Sql) {
  const held: (() => Promise<void>)[] = [];
  const gated: Sql = {
    rows: (statement, args) =>
      statement.startsWith('DELETE')
        ? sql.rows(statement, args)
        : new Promise((resolve, reject) => {
            held.push(() => sql.rows(statement, args).then(resolve, reject));
          }),
  };
  return { sql: gated, held };
}

/** Lets every continuation waiting on what just settled run (the limiters' next statements are then held). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

// A 429 refused from one instance's memory reported the count that instance last saw, a lower bound on the
// database's: four calls charged elsewhere later, a batch of 8 with 3 left was told `r=6`, and a client that trusted
// it was refused again. The class: the `r` of every answer, 200 or 429, is never more than what is truly left when
// it is decided. Two instances on one PostgreSQL database (a pool each); every statement either sends is held, and a
// generated schedule starts requests on either instance and runs the held statements one at a time, in a generated
// order between them, so the count at each moment is known exactly. Checked on every answer: counts only grow in a
// window, so nothing is left beyond the limit less the count when the request was sent, less its cost if admitted;
// a 429 carries exactly what is left when it settles (no other statement has run since its verdict); a 200 is never
// told less than that either. After the schedule the count is what was admitted, within the limit.
describe('two limiters on one PostgreSQL database, statements run in generated orders', () => {
  let database: TestDatabase;
  const instances: Database[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ratelimit_schedules');
    for (let i = 0; i < 2; i++) {
      instances.push(await openDatabase({ databaseUrl: database.url, dataDir: '', logger }));
      if (i === 0) await applyPendingMigrations((instances[0] as Database).migrationAdapter);
    }
  }, timeouts.hook);
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await database?.drop();
  }, timeouts.hook);

  it('never tells an r above what is left, and a 429 exactly what is left', async () => {
    const at = Date.UTC(2032, 0, 1, 0, 0, 30);
    const windowStart = new Date(at - (at % 60_000));
    const [reader] = instances as [Database];
    let run = 0;
    const instance = fc.integer({ min: 0, max: 1 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }).chain((limit) =>
          fc.tuple(
            fc.constant(limit),
            fc.array(
              // Two statements run for each request sent, on the whole: most requests are answered in the schedule.
              fc.oneof(
                {
                  arbitrary: fc.record({ send: instance, cost: fc.integer({ min: 1, max: limit }) }),
                  weight: 1,
                },
                { arbitrary: fc.record({ run: instance }), weight: 2 },
              ),
              { minLength: 1, maxLength: 20 },
            ),
          ),
        ),
        async ([limit, schedule]) => {
          const subject = `schedule-${run++}`;
          const held = instances.map((each) => heldSql(each.sql));
          const limiters = held.map(({ sql }) =>
            createRateLimiter(createRateLimitStore(sql), { limit, now: () => at }),
          );
          const countNow = async () => {
            const [row] = await reader.sql.rows<{ count: number }>(
              'SELECT count FROM rate_limit_windows WHERE subject = $1 AND window_start = $2::timestamptz',
              [
                { value: subject, type: 'string' },
                { value: windowStart.toISOString(), type: 'string' },
              ],
            );
            return row?.count ?? 0;
          };
          let count = 0;
          let admitted = 0;
          let outstanding = 0;
          const settled: { instance: number; cost: number; sentAt: number; ok: boolean; r: number }[] = [];
          const send = (instance: number, cost: number) => {
            const sentAt = count;
            outstanding += 1;
            void (limiters[instance] as (typeof limiters)[number])(subject, cost)
              .then(
                (state) => ({ ok: true, r: state.remaining }),
                (error: AppError) => ({
                  ok: false,
                  r: Number(/^"per-key";r=(-?\d+);t=\d+$/.exec(error.headers.RateLimit ?? '')?.[1]),
                }),
              )
              .then(({ ok, r }) => {
                outstanding -= 1;
                if (ok) admitted += cost;
                settled.push({ instance, cost, sentAt, ok, r });
              });
          };
          // What settled since the last check, against the count now: no statement has run since it settled.
          const check = () => {
            for (const answer of settled.splice(0)) {
              const { cost, sentAt, ok, r } = answer;
              const said = JSON.stringify({ ...answer, limit, left: limit - count });
              expect(r, said).toBeGreaterThanOrEqual(0);
              expect(r, said).toBeLessThanOrEqual(limit - sentAt - (ok ? cost : 0));
              if (ok) expect(r, said).toBeGreaterThanOrEqual(limit - count);
              else expect(r, said).toBe(limit - count);
            }
          };
          /** Runs the oldest statement the instance holds to its end, then reads the count it left. */
          const step = async (instance: number) => {
            const next = held[instance]?.held.shift();
            if (next === undefined) return;
            await next();
            count = await countNow();
          };
          for (const action of schedule) {
            if ('send' in action) send(action.send, action.cost);
            else await step(action.run);
            await settle();
            check();
          }
          // Then what is still held, alternating, until every answer is in.
          for (let turn = 0; outstanding > 0 || held.some((each) => each.held.length > 0); turn++) {
            if (held.every((each) => each.held.length === 0))
              throw new Error('a request waits on no statement');
            await step(turn % 2);
            await settle();
            check();
          }
          expect(count).toBe(admitted);
          expect(count).toBeLessThanOrEqual(limit);
        },
      ),
      {
        numRuns: 300,
        // The probe's finding: one call on one instance, three on the other, then a batch of 8 on the first (told
        // r=7 with 4 left), a batch of 5 and a call.
        examples: [
          [
            [
              8,
              [
                { send: 0, cost: 1 },
                { run: 0 },
                ...[1, 2, 3].flatMap(() => [{ send: 1, cost: 1 }, { run: 1 }]),
                { send: 0, cost: 8 },
                { send: 0, cost: 5 },
                { run: 0 },
                { send: 0, cost: 1 },
                { run: 0 },
              ],
            ],
          ],
        ],
      },
    );
  });
});
