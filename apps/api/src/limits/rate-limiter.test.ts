import type { Request, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors.js';
import { createAccessGuard, createKeyVerifier } from '../http/auth.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { createFailureLimiter, createRateLimiter, rateLimitHeaders } from './rate-limiter.js';

/** A store that counts like the database does (adding only what fits) and records what it was asked. */
function fakeStore(sweep: () => Promise<void> = async () => {}) {
  const counts = new Map<string, number>();
  const calls = { charge: 0, count: 0, sweep: 0 };
  const countOf = (subject: string, windowStart: Date) =>
    counts.get(`${subject}@${windowStart.getTime()}`) ?? 0;
  const store: RateLimitStore = {
    async charge(subject, windowStart, cost, limit) {
      calls.charge += 1;
      const count = countOf(subject, windowStart);
      if (count + cost > limit) return { admitted: false, count };
      counts.set(`${subject}@${windowStart.getTime()}`, count + cost);
      return { admitted: true, count: count + cost };
    },
    async count(subject, windowStart) {
      calls.count += 1;
      return countOf(subject, windowStart);
    },
    sweep() {
      calls.sweep += 1;
      return sweep();
    },
  };
  return { store, calls, countOf };
}

/** A caller identity as the key verifier derives them (keys/api-key-digest.ts). */
const CALLER = `key:${'0123456789abcdef'.repeat(2)}`;

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof AppError ? error.status : 500),
  );

describe('the per-key rate limiter', () => {
  it('stops writing once a key has nothing left, until the window ends', async () => {
    let now = 60_000;
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 3, now: () => now });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push(await statusOf(limit(CALLER)));
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect(calls.charge).toBe(3);
    now += 60_000;
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(calls.charge).toBe(4);
  });

  it('charges a batch as its number of calls in one write', async () => {
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 10, now: () => 0 });
    expect(await statusOf(limit(CALLER, 10))).toBe(200);
    expect(await statusOf(limit(CALLER, 1))).toBe(429);
    expect(calls.charge).toBe(1);
  });

  it('charges a refused batch nothing: the r it was told still buys that many calls (issue 35)', async () => {
    const { store } = fakeStore();
    const limit = createRateLimiter(store, { limit: 4, now: () => 0 });
    expect((await limit(CALLER, 2)).remaining).toBe(2);
    const refused = await limit(CALLER, 3).catch((error: AppError) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).headers.RateLimit).toBe('"per-key";r=2;t=60');
    expect((await limit(CALLER, 2)).remaining).toBe(0);
  });

  it('refuses a request that costs more than a whole window allows as 400, not a 429 to retry for ever', async () => {
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 5, now: () => 0 });
    const refused = await limit(CALLER, 6).catch((error: AppError) => error);
    expect(refused).toMatchObject({ code: 'validation_failed' });
    expect((refused as AppError).headers['Retry-After']).toBeUndefined();
    expect(calls.charge).toBe(0);
    expect((await limit(CALLER, 5)).remaining).toBe(0);
  });

  it('admits a waiting request that fits after a refused one in the same shared write', async () => {
    const { store, calls, countOf } = fakeStore();
    const limit = createRateLimiter(store, { limit: 5, now: () => 0 });
    // The first charge is in flight while the next two wait for one shared write: 1 + (5 refused) + 4.
    const statuses = await Promise.all([1, 5, 4].map((cost) => statusOf(limit(CALLER, cost))));
    expect(statuses).toEqual([200, 429, 200]);
    // Counted: the admitted calls only, charged as they fit: nothing is added and then given back.
    expect(countOf(CALLER, new Date(0))).toBe(5);
    expect(calls.charge).toBe(2);
  });

  it('shares writes between concurrent requests of one key, and still admits exactly the limit', async () => {
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 30, now: () => 0 });
    const statuses = await Promise.all(Array.from({ length: 50 }, () => statusOf(limit(CALLER))));
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    // The first request's write and the shared one of the 29 of the 49 that waited that fit.
    expect(calls.charge).toBe(2);
  });

  it('decides again on the count the store read when another instance charged meanwhile', async () => {
    const { store, calls, countOf } = fakeStore();
    const here = createRateLimiter(store, { limit: 5, now: () => 0 });
    const there = createRateLimiter(store, { limit: 5, now: () => 0 });
    expect((await here(CALLER, 1)).remaining).toBe(4);
    expect((await there(CALLER, 3)).remaining).toBe(1);
    // `here` last saw 1, so its first request (2) is sent, and refused by the store (4 counted): told r=1 with no
    // second write. The two that waited for it are decided on 4: the 1 fits and is charged, the 2 is refused.
    const replies = await Promise.all(
      [2, 1, 2].map((cost) =>
        here(CALLER, cost).then(
          (state) => `200 r=${state.remaining}`,
          (error: AppError) => `${error.status} ${error.headers.RateLimit}`,
        ),
      ),
    );
    expect(replies).toEqual(['429 "per-key";r=1;t=60', '200 r=0', '429 "per-key";r=0;t=60']);
    expect(countOf(CALLER, new Date(0))).toBe(5);
    expect(calls.charge).toBe(4);
  });

  // A tRPC batch of 11 or 30 calls was told "makes 10 calls": the transport passed min(calls, 10). The limiter's own
  // part: its messages name the cost it is given.
  it('names the cost it was given in its refusals, whatever that cost', async () => {
    const limit = createRateLimiter(fakeStore().store, { limit: 5, now: () => 0 });
    for (const cost of [11, 30]) {
      await expect(limit(CALLER, cost)).rejects.toThrow(`this request makes ${cost} calls, more than the 5`);
    }
    await limit(CALLER, 3);
    await expect(limit(CALLER, 4)).rejects.toThrow('this request costs 4, 2 left');
  });

  it('sweeps old windows off the request path: a hung sweep delays no request', async () => {
    const { store, calls } = fakeStore(() => new Promise(() => {}));
    const limit = createRateLimiter(store, { limit: 5, now: () => 120_000 });
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(calls.sweep).toBe(1);
  });
});

/** A response as express-rate-limit writes to it. */
function stockResponse() {
  const headers = new Map<string, string>();
  const response = {
    statusCode: 200,
    headersSent: false,
    setHeader: (name: string, value: string) => headers.set(name.toLowerCase(), value),
    append: (name: string, value: string) => headers.set(name.toLowerCase(), value),
  };
  return { response, headers };
}

const fieldsOf = (value: string | undefined) =>
  /^"per-key"; ?(?:r=(\d+); ?t=(\d+)|q=(\d+); ?w=(\d+))/.exec(value ?? '')?.slice(1);

// Where express-rate-limit can say the same (one call per request, no refusal of a request that would fit: with a
// cost of one a refused request has nothing left to be honoured), it is the oracle: the same verdicts, the same
// `RateLimit` r and t, the same quota and window, the same Retry-After, for generated arrival times in a window.
describe('the per-key rate limiter against express-rate-limit', () => {
  it('answers as express-rate-limit does on single requests', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.array(fc.integer({ min: 0, max: 59_999 }), { maxLength: 20 }),
          async (limit, times) => {
            const stock = rateLimit({
              windowMs: 60_000,
              limit,
              standardHeaders: 'draft-8',
              legacyHeaders: false,
              identifier: 'per-key',
              keyGenerator: () => CALLER,
              handler: (_request, response) => {
                response.statusCode = 429;
              },
              validate: false,
            });
            const ours = createRateLimiter(fakeStore().store, { limit, now: () => Date.now() });
            for (const at of [0, ...times.sort((a, b) => a - b)]) {
              vi.setSystemTime(at);
              const { response, headers } = stockResponse();
              await stock({} as Request, response as unknown as Response, () => {});
              const mine = await ours(CALLER).then(
                (state) => ({ status: 200, headers: rateLimitHeaders(state) as Record<string, string> }),
                (error: AppError) => ({ status: error.status, headers: error.headers }),
              );
              expect(mine.status).toBe(response.statusCode);
              expect(fieldsOf(mine.headers.RateLimit)).toEqual(fieldsOf(headers.get('ratelimit')));
              expect(fieldsOf(mine.headers['RateLimit-Policy'])).toEqual(
                fieldsOf(headers.get('ratelimit-policy')),
              );
              expect(mine.headers['Retry-After']).toBe(headers.get('retry-after'));
            }
          },
        ),
        { numRuns: 200 },
      );
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('failed authentications per client address', () => {
  it('answers 429 to a wrong key once its address has used up its failures; a valid key from it is served', async () => {
    let lookups = 0;
    const verify = createKeyVerifier(['good-key-0123456789'], {
      prefix: 'psk_',
      find: async () => {
        lookups += 1;
        return undefined;
      },
    });
    const guard = createAccessGuard(verify, { failures: createFailureLimiter({ limit: 3 }) });
    const attempt = (key: string, address: string) => statusOf(guard(`Bearer ${key}`, { address }));
    expect([
      await attempt('psk_guess1', '10.0.0.1'),
      await attempt('psk_guess2', '10.0.0.1'),
      await attempt('psk_guess3', '10.0.0.1'),
      await attempt('psk_guess4', '10.0.0.1'),
    ]).toEqual([401, 401, 401, 429]);
    // Each new made-up key is looked up once (an unknown one is then remembered): the limit is on answers, not on
    // lookups, so that a valid key from the same address (every client behind a balancer) is still served.
    expect(lookups).toBe(4);
    expect(await attempt('psk_guess4', '10.0.0.1')).toBe(429);
    expect(lookups).toBe(4);
    expect(await attempt('good-key-0123456789', '10.0.0.1')).toBe(200);
    expect(await attempt('good-key-0123456789', '10.0.0.2')).toBe(200);
  });
});

describe('issued-key lookups', () => {
  it('remember an unknown key briefly, so a flood of one made-up key costs one query', async () => {
    let lookups = 0;
    const verify = createKeyVerifier([], {
      prefix: 'psk_',
      find: async () => {
        lookups += 1;
        return undefined;
      },
    });
    for (let i = 0; i < 5; i++) expect(await verify('psk_made-up')).toBeUndefined();
    expect(lookups).toBe(1);
    expect(await verify('psk_other')).toBeUndefined();
    expect(lookups).toBe(2);
  });
});
