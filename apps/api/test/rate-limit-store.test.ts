// The rate-limit store's sweep is a hot statement (db/sql.ts) instead of the Prisma client's deleteMany, so that
// the server never loads the client's query compiler (issue 28). It must forget exactly the windows deleteMany
// forgets: checked here on generated windows and cut-offs, deleteMany as the oracle, on a real (in-memory PGlite)
// database.

import { appliedMigrationNames } from '@petstore/migrations';
import { TRPC_MAX_BATCH_SIZE } from '@petstore/schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import type { AppError } from '../src/errors.js';
import { createRateLimitStore } from '../src/limits/rate-limit.store.js';
import { createRateLimiter } from '../src/limits/rate-limiter.js';
import { openMigratedMemoryDatabase } from './support/memory-database.js';

let database: Database;
beforeAll(async () => {
  database = await openMigratedMemoryDatabase();
});
afterAll(async () => {
  await database?.close();
});

// Millisecond dates over the years the column holds without surprises (timestamptz(0) rounds to the second, so
// cut-offs within a second of a window are the interesting ones: see the cut-offs below).
const MIN = Date.UTC(1990, 0, 1);
const MAX = Date.UTC(2090, 0, 1);
const instant = fc.integer({ min: MIN, max: MAX });
const window = fc.record({
  subject: fc.string({ maxLength: 12 }),
  start: instant,
  count: fc.integer({ min: 1, max: 5 }),
});

/** What is left in the table, in a stable order. */
async function remaining(): Promise<string[]> {
  const rows = await database.sql.rows(
    'SELECT subject, window_start::text, count FROM rate_limit_windows ORDER BY subject, window_start',
  );
  return rows.map((row) => JSON.stringify(row));
}

/** The subject's count in the window, as the database has it (0 with no row). */
async function countOf(subject: string, windowStart: Date): Promise<number> {
  const [row] = await database.sql.rows<{ count: number }>(
    'SELECT count FROM rate_limit_windows WHERE subject = $1 AND window_start = $2::timestamptz',
    [
      { value: subject, type: 'string' },
      { value: windowStart.toISOString(), type: 'string' },
    ],
  );
  return row?.count ?? 0;
}

describe('rate-limit store sweep', () => {
  it("forgets exactly the windows Prisma's deleteMany forgets", async () => {
    const store = createRateLimitStore(database.sql);
    const fill = async (windows: { subject: string; start: number; count: number }[]) => {
      await database.sql.rows('DELETE FROM rate_limit_windows');
      for (const { subject, start, count } of windows)
        await store.charge(subject, new Date(start), count, 2 ** 31 - 1);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(window, { maxLength: 12 }),
        // A cut-off anywhere; or near one of the windows: a few milliseconds either side, or on one of the whole
        // seconds around it (the column keeps whole seconds, so a cut-off equal to a stored window is one of them).
        fc.oneof(
          instant.map((at) => () => at),
          fc.tuple(fc.nat(), fc.integer({ min: -1_500, max: 1_500 })).map(
            ([pick, offset]) =>
              (starts: number[]) =>
                (starts[pick % starts.length] ?? MIN) + offset,
          ),
          fc.tuple(fc.nat(), fc.integer({ min: -2, max: 2 })).map(
            ([pick, seconds]) =>
              (starts: number[]) =>
                (Math.floor((starts[pick % starts.length] ?? MIN) / 1000) + seconds) * 1000,
          ),
        ),
        async (windows, cutOff) => {
          const before = new Date(cutOff(windows.map((each) => each.start)));
          await fill(windows);
          await database.prisma.rateLimitWindow.deleteMany({ where: { windowStart: { lt: before } } });
          const expected = await remaining();
          await fill(windows);
          await store.sweep(before);
          expect(await remaining()).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// Issue 35: a tRPC batch refused with 429 was still charged, so a client that trusted `RateLimit: r=2` was locked
// out for the rest of the window. The class: a refused request is charged nothing, and the `r` a client was told
// buys that many calls. Generated steps of request costs (a step is one request, or a few sent at once, which share
// writes), on the real store: after every step the window's count is the admitted calls; a lone request costing at
// most the `r` of the answer before it is admitted; a refused lone request is told exactly what is left.
describe('the per-key rate limiter on the database store', () => {
  it('charges a refused request nothing, so the RateLimit remaining a client was told holds', async () => {
    const store = createRateLimitStore(database.sql);
    const at = Date.UTC(2030, 0, 1, 0, 0, 30);
    const windowStart = new Date(at - (at % 60_000));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 25 }),
        fc.array(fc.array(fc.integer({ min: 1, max: TRPC_MAX_BATCH_SIZE }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 12,
        }),
        async (limit, steps) => {
          const subject = `property-${run++}`;
          const limiter = createRateLimiter(store, { limit, now: () => at });
          let admitted = 0;
          let told: number | undefined;
          for (const step of steps) {
            const replies = await Promise.all(
              step.map((cost) =>
                limiter(subject, cost).then(
                  (state) => ({ cost, ok: true, remaining: state.remaining }),
                  (error: AppError) => ({
                    cost,
                    ok: false,
                    // More than a whole window allows is a 400, with nothing to wait for: no RateLimit.
                    tooLarge: error.code === 'validation_failed',
                    remaining: Number(/;r=(\d+);/.exec(error.headers.RateLimit ?? '')?.[1]),
                  }),
                ),
              ),
            );
            for (const reply of replies)
              expect('tooLarge' in reply && reply.tooLarge).toBe(reply.cost > limit);
            for (const reply of replies) if (reply.ok) admitted += reply.cost;
            expect(await countOf(subject, windowStart)).toBe(admitted);
            const [lone] = replies;
            if (replies.length === 1 && lone !== undefined && lone.cost <= limit) {
              if (told !== undefined && lone.cost <= told) expect(lone.ok).toBe(true);
              expect(lone.remaining).toBe(limit - admitted);
              told = lone.remaining;
            } else told = undefined;
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});

// Two instances on one database (two limiters on one store): a refused charge on one must never be seen by the
// other. It was: a batch was added to the count and given back afterwards, and a charge of the other instance landing
// in between was refused with a negative `r`, then that instance refused the key from memory. Generated steps of
// requests sent at once, each to either limiter: after every step the count is what was admitted and never over the
// limit, no `r` is negative, and a refused request did not fit even in what is left after the step (counts only grow
// within a window, so it did not fit when it was refused either).
describe('two limiters on one database store', () => {
  it('admit what fits, charge nothing for a refusal and never tell a negative r', async () => {
    const store = createRateLimitStore(database.sql);
    const at = Date.UTC(2031, 0, 1, 0, 0, 30);
    const windowStart = new Date(at - (at % 60_000));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }).chain((limit) =>
          fc.tuple(
            fc.constant(limit),
            fc.array(
              fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: limit })), {
                minLength: 1,
                maxLength: 4,
              }),
              { minLength: 1, maxLength: 10 },
            ),
          ),
        ),
        async ([limit, steps]) => {
          const subject = `instances-${run++}`;
          const limiters = [0, 1].map(() => createRateLimiter(store, { limit, now: () => at }));
          let admitted = 0;
          for (const step of steps) {
            const replies = await Promise.all(
              step.map(([instance, cost]) =>
                (limiters[instance] as (typeof limiters)[number])(subject, cost).then(
                  (state) => ({ cost, ok: true, remaining: state.remaining }),
                  (error: AppError) => ({
                    cost,
                    ok: false,
                    remaining: Number(/;r=(-?\d+);/.exec(error.headers.RateLimit ?? '')?.[1]),
                  }),
                ),
              ),
            );
            for (const reply of replies) if (reply.ok) admitted += reply.cost;
            const count = await countOf(subject, windowStart);
            expect(count).toBe(admitted);
            expect(count).toBeLessThanOrEqual(limit);
            for (const reply of replies) {
              expect(reply.remaining).toBeGreaterThanOrEqual(0);
              if (!reply.ok) expect(reply.cost).toBeGreaterThan(limit - count);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

// /readyz's question moved off the Prisma client for the same reason: the same answer as the client's $queryRaw
// gave, on generated migration histories (finished or not, rolled back or not).
describe('applied migrations', () => {
  it("answers what the Prisma client's query answered", async () => {
    const entry = fc.record({
      name: fc.string({ minLength: 1, maxLength: 20 }),
      finished: fc.boolean(),
      rolledBack: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(entry, { selector: (each) => each.name, maxLength: 8 }),
        async (entries) => {
          await database.sql.rows("DELETE FROM _prisma_migrations WHERE id LIKE 'generated-%'");
          for (const [index, { name, finished, rolledBack }] of entries.entries()) {
            await database.sql.rows(
              `INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, rolled_back_at, applied_steps_count)
             VALUES ($1, '', $2, ${finished ? 'now()' : 'NULL'}, ${rolledBack ? 'now()' : 'NULL'}, 1)`,
              [
                { value: `generated-${index}`, type: 'string' },
                { value: `generated ${name}`, type: 'string' },
              ],
            );
          }
          const stock = await database.prisma.$queryRaw<{ migration_name: string }[]>`
          SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
          expect(new Set(await appliedMigrationNames(database.sql))).toEqual(
            new Set(stock.map((row) => row.migration_name)),
          );
        },
      ),
      { numRuns: 100 },
    );
    await database.sql.rows("DELETE FROM _prisma_migrations WHERE id LIKE 'generated-%'");
  });
});
