import { ipKeyGenerator, MemoryStore } from 'express-rate-limit';
import { AppError } from '../errors.js';
import type { Charge, RateLimitStore } from './rate-limit.store.js';

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
  /** Requests left in this window: a request costing at most this many is admitted, unless others spend them. */
  remaining: number;
  /** Seconds until the window ends and the count starts again; at least 1. */
  resetSeconds: number;
}

/**
 * Charges `cost` requests to `subject` and says where it stands; throws 429 `rate_limited` when the cost does not
 * fit in what is left, with `Retry-After` and the same `RateLimit` fields. A refused request is charged nothing.
 */
export type RateLimiter = (subject: string, cost?: number) => Promise<RateLimitState>;

/**
 * The IETF `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11;
 * docs/operations.md#rate-limiting-across-instances), serialised canonically as the draft's examples are
 * (express-rate-limit's `draft-8` adds spaces and a partition key).
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"per-key";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"per-key";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

const rateLimited = (state: RateLimitState, cost: number) =>
  new AppError(
    'rate_limited',
    `rate limit of ${state.limit} requests per ${state.windowSeconds} s exceeded: this request costs ${cost}, ${state.remaining} left`,
    { ...rateLimitHeaders(state), 'Retry-After': String(state.resetSeconds) },
  );

/** A request waiting for its key's next charge: told the count it got, or the count that refused it. */
interface Waiting {
  cost: number;
  resolve: (result: Charge) => void;
  reject: (error: unknown) => void;
}

/**
 * Per-key fixed-window rate limiting, counted in the database so that every instance shares the counts (why not
 * express-rate-limit: docs/development.md, the ledger). Each charge is one conditional statement that adds only what
 * fits, so nothing is ever given back and no instance sees a count that was not admitted. Requests of one key
 * arriving while a charge is in flight join the next one: those that fit in arrival order are charged together, the
 * others refused. A key whose count last seen is the limit is refused from memory: nothing is left (the database's
 * count is never less, nor more). Any other refusal reports the database's count, read after the request arrived:
 * the count last seen is only a lower bound once another instance charged, and its `r` would promise calls that
 * are gone.
 */
export function createRateLimiter(
  store: RateLimitStore,
  { limit, windowSeconds = 60, now = Date.now, onSweepError = () => {} }: RateLimitOptions,
): RateLimiter {
  const windowMs = windowSeconds * 1000;
  let currentWindow = 0;
  /** Each subject's count in the current window, as last seen: never more than the database's. */
  const seen = new Map<string, number>();
  const inFlight = new Set<string>();
  const waiting = new Map<string, Waiting[]>();

  const chargeBatch = async (subject: string, windowStart: Date, requests: Waiting[]) => {
    // What fits is decided on a count that is never above the database's; when the database refuses the sum (another
    // instance charged meanwhile), again on the count it read, which is higher: this ends within `limit` rounds.
    let count = seen.get(subject) ?? 0;
    // Whether `count` was read from the database after every request here arrived: a refusal reports only such a one.
    let read = false;
    for (;;) {
      let fitting = 0;
      const fits = requests.map((request) => {
        if (count + fitting + request.cost > limit) return false;
        fitting += request.cost;
        return true;
      });
      // When nothing fits there is nothing to charge: every request is refused on this count, read first if it may be
      // stale (a count at the limit cannot be).
      const charged =
        fitting > 0
          ? await store.charge(subject, windowStart, fitting, limit)
          : read || count >= limit
            ? { admitted: true, count }
            : { admitted: false, count: await store.count(subject, windowStart) };
      read = true;
      if (windowStart.getTime() === currentWindow)
        seen.set(subject, Math.max(seen.get(subject) ?? 0, charged.count));
      if (!charged.admitted) {
        count = charged.count;
        continue;
      }
      let running = charged.count - fitting;
      for (const [index, request] of requests.entries()) {
        if (fits[index]) running += request.cost;
        request.resolve(
          fits[index] ? { count: running, admitted: true } : { count: charged.count, admitted: false },
        );
      }
      return;
    }
  };

  const flush = (subject: string, windowStart: Date, key: string) => {
    const batch = waiting.get(key);
    if (batch === undefined) return;
    waiting.delete(key);
    inFlight.add(key);
    chargeBatch(subject, windowStart, batch)
      .catch((error: unknown) => {
        for (const request of batch) request.reject(error);
      })
      .finally(() => {
        inFlight.delete(key);
        flush(subject, windowStart, key);
      });
  };

  /** The window's count once this request is admitted, or the count that refused it. */
  const charge = (subject: string, windowStart: Date, cost: number) =>
    new Promise<Charge>((resolve, reject) => {
      const key = `${subject}\n${windowStart.getTime()}`;
      const batch = waiting.get(key) ?? [];
      waiting.set(key, batch);
      batch.push({ cost, resolve, reject });
      if (!inFlight.has(key)) flush(subject, windowStart, key);
    });

  return async (subject, cost = 1) => {
    // More than a whole window allows (a tRPC batch of more calls than the quota) would never be admitted: a 429
    // would have the client wait and retry for ever. Refused as what it is, like a batch over TRPC_MAX_BATCH_SIZE.
    if (cost > limit) {
      throw new AppError(
        'validation_failed',
        `this request makes ${cost} calls, more than the ${limit} per ${windowSeconds} s this API key may make: ` +
          `send at most ${limit} per request`,
      );
    }
    const at = now();
    const windowStart = at - (at % windowMs);
    if (windowStart !== currentWindow) {
      currentWindow = windowStart;
      seen.clear();
      store.sweep(new Date(windowStart - windowMs)).catch(onSweepError);
    }
    const known = seen.get(subject) ?? 0;
    const { count, admitted } =
      known >= limit ? { count: known, admitted: false } : await charge(subject, new Date(windowStart), cost);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
    const state = { limit, windowSeconds, remaining: Math.max(0, limit - count), resetSeconds };
    if (!admitted) throw rateLimited(state, cost);
    return state;
  };
}

/**
 * Failed authentications per client address and minute, in this process's memory (express-rate-limit's
 * MemoryStore and ipKeyGenerator). Checked once the key is known to be wrong, so that a valid key from a limited
 * address (behind a balancer, every client's) is still served: a made-up `psk_` key from it still costs its one
 * lookup (then cached).
 */
export function createFailureLimiter({ limit }: { limit: number }) {
  const store = new MemoryStore();
  store.init({ windowMs: 60_000 } as Parameters<MemoryStore['init']>[0]);
  return {
    /** Throws 429 when the address has used up its failures in this window. */
    async check(address: string): Promise<void> {
      const failures = await store.get(ipKeyGenerator(address));
      const left = (failures?.resetTime?.getTime() ?? 0) - Date.now();
      if (failures !== undefined && left > 0 && failures.totalHits >= limit) {
        const retryAfter = Math.max(1, Math.ceil(left / 1000));
        throw new AppError(
          'rate_limited',
          `too many requests with a missing or wrong API key from this address; retry in ${retryAfter} s`,
          { 'Retry-After': String(retryAfter) },
        );
      }
    },
    async record(address: string): Promise<void> {
      await store.increment(ipKeyGenerator(address));
    },
  };
}
