import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { createAccessGuard, createKeyVerifier } from '../http/auth.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { createFailureLimiter, createRateLimiter } from './rate-limiter.js';

/** A store that counts like the database does and records what it was asked. */
function fakeStore(sweep: () => Promise<void> = async () => {}) {
  const counts = new Map<string, number>();
  const calls = { charge: 0, sweep: 0 };
  const store: RateLimitStore = {
    async charge(subject, windowStart, cost) {
      calls.charge += 1;
      const key = `${subject}@${windowStart.getTime()}`;
      counts.set(key, (counts.get(key) ?? 0) + cost);
      return counts.get(key) as number;
    },
    sweep() {
      calls.sweep += 1;
      return sweep();
    },
  };
  return { store, calls };
}

/** A caller identity as the key verifier derives them (keys/api-key-digest.ts). */
const CALLER = `key:${'0123456789abcdef'.repeat(2)}`;

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => (error instanceof AppError ? error.status : 500),
  );

describe('the per-key rate limiter', () => {
  it('stops writing once a key is over its limit, until the window ends', async () => {
    let now = 60_000;
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 3, now: () => now });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push(await statusOf(limit(CALLER)));
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect(calls.charge).toBe(4);
    now += 60_000;
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(calls.charge).toBe(5);
  });

  it('charges a batch as its number of calls in one write', async () => {
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 10, now: () => 0 });
    expect(await statusOf(limit(CALLER, 10))).toBe(200);
    expect(await statusOf(limit(CALLER, 1))).toBe(429);
    expect(calls.charge).toBe(2);
  });

  it('shares writes between concurrent requests of one key, and still admits exactly the limit', async () => {
    const { store, calls } = fakeStore();
    const limit = createRateLimiter(store, { limit: 30, now: () => 0 });
    const statuses = await Promise.all(Array.from({ length: 50 }, () => statusOf(limit(CALLER))));
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(calls.charge).toBeLessThanOrEqual(2);
  });

  it('sweeps old windows off the request path: a hung sweep delays no request', async () => {
    const { store, calls } = fakeStore(() => new Promise(() => {}));
    const limit = createRateLimiter(store, { limit: 5, now: () => 120_000 });
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(await statusOf(limit(CALLER))).toBe(200);
    expect(calls.sweep).toBe(1);
  });
});

describe('failed authentications per client address', () => {
  it('answers 429 once an address has used up its failures, before any key is checked', async () => {
    let lookups = 0;
    const verify = createKeyVerifier(['good-key-0123456789'], {
      prefix: 'psk_',
      find: async () => {
        lookups += 1;
        return undefined;
      },
    });
    const guard = createAccessGuard(verify, { failures: createFailureLimiter({ limit: 3, now: () => 0 }) });
    const attempt = (key: string, address: string) => statusOf(guard(`Bearer ${key}`, { address }));
    expect([
      await attempt('psk_guess1', '10.0.0.1'),
      await attempt('psk_guess2', '10.0.0.1'),
      await attempt('psk_guess3', '10.0.0.1'),
      await attempt('psk_guess4', '10.0.0.1'),
    ]).toEqual([401, 401, 401, 429]);
    expect(lookups).toBe(3);
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
