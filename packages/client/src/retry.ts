// Retries, deadlines and cancellation for both clients, at the level of one `fetch`: one logical call is one
// call of the fetch returned by `createRetryingFetch`, which makes up to `attempts` HTTP requests within the
// call's deadline. Which requests may be repeated is the caller's rule (`canRetry`): reads always; a create
// only when it carries an idempotency key, so that a repeat of a request whose answer was lost cannot store
// the pet twice (the service replays the first answer instead).

import { ERROR_CODES } from '@petstore/schema';
import { PetStoreApiError } from './client-error.js';
import { shareIdentity } from './shared-identity.js';

/** How failed calls are retried. */
export interface RetryOptions {
  /** Most HTTP requests per call, the first included (default 3). */
  attempts?: number;
  /** The first backoff's ceiling, in ms (default 200); it doubles at each retry, up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** The largest backoff ceiling, in ms (default 5 000). */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` the client waits for, in ms (default 10 000). A longer one ends the retries: the
   * call fails at once with that answer, which carries the `Retry-After`.
   */
  maxRetryAfterMs?: number;
}

/** Retry and deadline settings of a client, shared by every call it makes. */
export interface CallPolicyOptions {
  /**
   * Retries on network errors, 429, 502, 503, 504, and 409 `idempotency_key_in_use` (on by default; `false`
   * turns them off).
   */
  retries?: RetryOptions | false;
  /** Longest a call may take, all attempts and waits included, in ms (default 30 000); then it fails. */
  timeoutMs?: number;
}

/** Per-call options every method of both clients takes. */
export interface CallOptions {
  /** Aborts the call (every attempt, and any wait between them). */
  signal?: AbortSignal;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  timeoutMs: number;
  /** [0, 1): the jitter source (tests pass their own). */
  random: () => number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The statuses that say "try again": rate limited, the gateway or service unavailable for a moment, and 409
 * `idempotency_key_in_use`: an earlier attempt of this very call (whose answer was lost) is still running on the
 * server, and a repeat once it is done gets its stored answer. Only requests that may be repeated are retried at
 * all (reads, and creates under an idempotency key), and for those 409 has no other meaning.
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([
  // Ours, by the error codes that say so (their statuses come from the one list, ERROR_CODES).
  ERROR_CODES.idempotency_key_in_use,
  ERROR_CODES.rate_limited,
  ERROR_CODES.service_unavailable,
  // A gateway in front of the service: Bad Gateway and Gateway Timeout, which the service never sends itself.
  502,
  504,
]);

const positive = (name: string, value: number | undefined, fallback: number, min = 0) => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(`${name} must be a number of at least ${min}`);
  }
  return value;
};

/** The policy from a client's options: defaults filled in, nonsense refused when the client is created. */
export function retryPolicy(
  options: CallPolicyOptions = {},
  random: () => number = Math.random,
): RetryPolicy {
  const retries = options.retries === false ? { attempts: 1 } : (options.retries ?? {});
  return {
    attempts: Math.floor(positive('retries.attempts', retries.attempts, 3, 1)),
    baseDelayMs: positive('retries.baseDelayMs', retries.baseDelayMs, 200),
    maxDelayMs: positive('retries.maxDelayMs', retries.maxDelayMs, 5_000),
    maxRetryAfterMs: positive('retries.maxRetryAfterMs', retries.maxRetryAfterMs, 10_000),
    timeoutMs: positive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    random,
  };
}

/** `Retry-After` (RFC 9110 section 10.2.3) as a delay in ms: delay-seconds or an HTTP date; undefined if neither. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1 for the first): the server's `Retry-After` when it sent
 * one (undefined, meaning "do not retry", when that is over `maxRetryAfterMs`) plus a jitter of up to a fifth of
 * it (at least `baseDelayMs`, at most `maxDelayMs`), so that the clients a database restart turned away do not
 * all come back in the same millisecond; otherwise exponential backoff with full jitter: a uniform pick in
 * [0, min(maxDelayMs, baseDelayMs * 2^(retry-1))).
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfterMs?: number): number | undefined {
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) return undefined;
    const spread = Math.min(policy.maxDelayMs, Math.max(policy.baseDelayMs, retryAfterMs / 5));
    return retryAfterMs + Math.floor(policy.random() * spread);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * ceiling);
}

/** How many HTTP requests a failure (or a final answer) took, when it went through a retrying fetch. */
const ATTEMPTS = new WeakMap<object, number>();

/**
 * The number of attempts behind a Response or an error from `createRetryingFetch` (or a PetStoreApiError made of
 * one), if it came from one, looking through `cause` and tRPC's `meta.response`.
 */
export function attemptsOf(value: unknown): number | undefined {
  for (let current = value, depth = 0; current instanceof Object && depth < 5; depth++) {
    const attempts = current instanceof PetStoreApiError ? current.attempts : ATTEMPTS.get(current);
    if (attempts !== undefined) return attempts;
    const { cause, meta } = current as { cause?: unknown; meta?: { response?: unknown } };
    current = meta?.response ?? cause;
  }
  return undefined;
}

/** ` (after 3 attempts)`, for messages of failures that were retried; empty after one attempt. */
export const attemptsSuffix = (attempts: number | undefined) =>
  attempts !== undefined && attempts > 1 ? ` (after ${attempts} attempts)` : '';

/** A failure of the call as a whole: aborted by the caller, or out of time. `cause` is the last failure. */
export class CallAbortedError extends Error {
  override name = 'CallAbortedError';
}
shareIdentity(CallAbortedError, '@petstore/client.CallAbortedError');

/** Resolves after `ms`, or rejects with the reason as soon as `signal` aborts. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A `fetch` that makes each call within the policy's deadline and, for requests `canRetry` allows, repeats it
 * on a network error or a retryable status, waiting between attempts as `retryDelayMs` says. The caller's
 * `init.signal` aborts the whole call. It resolves with the last Response, or rejects with the last network
 * error, and `attemptsOf` tells how many requests either took; a call that ran out of time or was aborted
 * rejects with a {@link CallAbortedError} saying so.
 */
export function createRetryingFetch(
  fetchImpl: typeof globalThis.fetch,
  policy: RetryPolicy,
  canRetry: (url: string, init: RequestInit) => boolean,
): typeof globalThis.fetch {
  return async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const deadline = AbortSignal.timeout(policy.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const maxAttempts = canRetry(url, init) ? policy.attempts : 1;
    const started = Date.now();
    const stopped = (attempts: number, cause: unknown) => {
      const why =
        init.signal?.aborted === true ? 'was aborted' : `timed out after ${policy.timeoutMs} ms (timeoutMs)`;
      const error = new CallAbortedError(`${init.method ?? 'GET'} ${url} ${why}${attemptsSuffix(attempts)}`, {
        cause,
      });
      ATTEMPTS.set(error, attempts);
      return error;
    };
    for (let attempt = 1; ; attempt++) {
      let retryAfterMs: number | undefined;
      try {
        const response = await fetchImpl(input, { ...init, signal });
        ATTEMPTS.set(response, attempt);
        if (attempt >= maxAttempts || !RETRYABLE_STATUSES.has(response.status)) return response;
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        const delay = retryDelayMs(policy, attempt, retryAfterMs);
        if (delay === undefined || Date.now() - started + delay >= policy.timeoutMs) return response;
        // The answer is discarded: read it to the end so that its connection can be reused.
        await response.arrayBuffer().catch(() => undefined);
        await sleep(delay, signal).catch((reason: unknown) => {
          throw stopped(attempt, reason);
        });
      } catch (error) {
        if (error instanceof CallAbortedError) throw error;
        if (signal.aborted) throw stopped(attempt, error);
        if (attempt >= maxAttempts) {
          if (error instanceof Object) ATTEMPTS.set(error, attempt);
          throw error;
        }
        const delay = retryDelayMs(policy, attempt) ?? 0;
        if (Date.now() - started + delay >= policy.timeoutMs) {
          if (error instanceof Object) ATTEMPTS.set(error, attempt);
          throw error;
        }
        await sleep(delay, signal).catch((reason: unknown) => {
          throw stopped(attempt, reason);
        });
      }
    }
  };
}

/** A new idempotency key: a random UUID (crypto.randomUUID where the platform has it, else from random bytes). */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
