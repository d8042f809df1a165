import { AppError } from '../errors.js';
import type { RateLimitStore } from './rate-limit.store.js';

export interface RateLimitOptions {
  /** Requests each subject may make per window. */
  limit: number;
  windowSeconds?: number;
  now?: () => number;
  /** Told about a failed sweep of old windows (it runs off the request path). */
  onSweepError?: (error: unknown) => void;
}

/** Where a subject stands in its window once a request is charged (or refused). */
export interface RateLimitState {
  limit: number;
  windowSeconds: number;
  /** Requests left in this window (0 when refused). */
  remaining: number;
  /** Seconds until the window ends and the count starts again; at least 1. */
  resetSeconds: number;
}

/**
 * Charges `cost` requests to `subject` and says where it stands; throws 429 `rate_limited` once over the limit,
 * with `Retry-After` and the same `RateLimit` fields.
 */
export type RateLimiter = (subject: string, cost?: number) => Promise<RateLimitState>;

/** The name of our one quota policy in `RateLimit-Policy` / `RateLimit`: requests per API key. */
const RATE_LIMIT_POLICY = 'per-key';

/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11, Structured
 * Field lists): the policy's quota `q` per window `w` seconds, and the requests remaining `r` with `t` seconds
 * until the quota is restored. `t` equals `Retry-After` on a 429.
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"${RATE_LIMIT_POLICY}";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"${RATE_LIMIT_POLICY}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

const rateLimited = (limit: number, windowSeconds: number, retryAfterSeconds: number) =>
  new AppError('rate_limited', `rate limit of ${limit} requests per ${windowSeconds} s exceeded`, {
    ...rateLimitHeaders({ limit, windowSeconds, remaining: 0, resetSeconds: retryAfterSeconds }),
    'Retry-After': String(retryAfterSeconds),
  });

/**
 * Per-key fixed-window rate limiting, counted in the database so that every instance on it shares the counts.
 * Concurrent requests of one key share writes: while a charge for the key is in flight, the requests that
 * arrive join the next one, which carries their total cost (one statement, however many requests), and each is
 * admitted by its own position in the count, so the limit stays exact. Under 50 concurrent connections on one
 * key, a write per request serialised them all on that key's row. A key that is over its limit is refused from
 * memory until the window ends, without writing again; old windows are swept once per window per instance, in
 * the background, never inside a request.
 */
export function createRateLimiter(
  store: RateLimitStore,
  { limit, windowSeconds = 60, now = Date.now, onSweepError = () => {} }: RateLimitOptions,
): RateLimiter {
  const windowMs = windowSeconds * 1000;
  let lastSweep = 0;
  /** Subjects known to be over the limit, until the end of their window. */
  const refusedUntil = new Map<string, number>();
  /** Per subject and window: the charge in flight, and the requests waiting for the next one. */
  const inFlight = new Set<string>();
  const waiting = new Map<string, { cost: number; requests: ((total: number | Error) => void)[] }>();

  const flush = (subject: string, windowStart: Date, key: string) => {
    const batch = waiting.get(key);
    if (batch === undefined) return;
    waiting.delete(key);
    inFlight.add(key);
    store
      .charge(subject, windowStart, batch.cost)
      .then(
        (total) => {
          for (const settle of batch.requests) settle(total);
        },
        (error: Error) => {
          for (const settle of batch.requests) settle(error);
        },
      )
      .finally(() => {
        inFlight.delete(key);
        flush(subject, windowStart, key);
      });
  };

  /** This request's position in the window's count once its cost is added. */
  const charge = (subject: string, windowStart: Date, cost: number) =>
    new Promise<number>((resolve, reject) => {
      const key = `${subject}\n${windowStart.getTime()}`;
      let batch = waiting.get(key);
      if (batch === undefined) {
        batch = { cost: 0, requests: [] };
        waiting.set(key, batch);
      }
      const before = batch.cost;
      batch.cost += cost;
      const total = batch;
      batch.requests.push((result) => {
        if (result instanceof Error) reject(result);
        else resolve(result - total.cost + before + cost);
      });
      if (!inFlight.has(key)) flush(subject, windowStart, key);
    });

  return async (subject, cost = 1) => {
    const at = now();
    const windowStartMs = at - (at % windowMs);
    const windowEnd = windowStartMs + windowMs;
    const retryAfter = () => Math.max(1, Math.ceil((windowEnd - at) / 1000));
    if (windowStartMs !== lastSweep) {
      lastSweep = windowStartMs;
      refusedUntil.clear();
      store.sweep(new Date(windowStartMs - windowMs)).catch(onSweepError);
    }
    if ((refusedUntil.get(subject) ?? 0) > at) throw rateLimited(limit, windowSeconds, retryAfter());
    const position = await charge(subject, new Date(windowStartMs), cost);
    if (position > limit) {
      refusedUntil.set(subject, windowEnd);
      throw rateLimited(limit, windowSeconds, retryAfter());
    }
    return { limit, windowSeconds, remaining: limit - position, resetSeconds: retryAfter() };
  };
}

/**
 * Failed authentications per client address, in this process's memory (a guessing client is refused here, before
 * any key is hashed or looked up): at most `limit` per window, then 429 until the window ends. Bounded: at most
 * `maxAddresses` addresses are tracked per window.
 */
export function createFailureLimiter({
  limit,
  windowSeconds = 60,
  now = Date.now,
  maxAddresses = 10_000,
}: {
  limit: number;
  windowSeconds?: number;
  now?: () => number;
  maxAddresses?: number;
}) {
  const windowMs = windowSeconds * 1000;
  let windowStart = 0;
  const failures = new Map<string, number>();
  const roll = (at: number) => {
    const start = at - (at % windowMs);
    if (start !== windowStart) {
      windowStart = start;
      failures.clear();
    }
  };
  return {
    /** Throws 429 when the address has used up its failures in this window. */
    check(address: string): void {
      const at = now();
      roll(at);
      if ((failures.get(address) ?? 0) >= limit) {
        const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
        throw new AppError(
          'rate_limited',
          `too many requests with a missing or wrong API key from this address; retry in ${retryAfter} s`,
          { 'Retry-After': String(retryAfter) },
        );
      }
    },
    record(address: string): void {
      roll(now());
      if (!failures.has(address) && failures.size >= maxAddresses) return;
      failures.set(address, (failures.get(address) ?? 0) + 1);
    },
  };
}
