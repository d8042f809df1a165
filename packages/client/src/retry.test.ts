import { describe, expect, it } from 'vitest';
import { PetStoreApiError } from './client-error.js';
import { createRestClient } from './rest-client.js';
import {
  CallAbortedError,
  createRetryingFetch,
  parseRetryAfter,
  retryDelayMs,
  retryPolicy,
} from './retry.js';

/** A fetch that answers from a script, one entry per request, and records what it was sent. */
function scriptedFetch(script: (() => Response | Promise<Response>)[]) {
  const seen: { method: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = (async (_url: string, init: RequestInit = {}) => {
    seen.push({
      method: init.method ?? 'GET',
      headers: { ...(init.headers as Record<string, string>) },
      body: init.body,
    });
    const next = script[Math.min(seen.length - 1, script.length - 1)];
    if (next === undefined) throw new Error('script is empty');
    return next();
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
const unavailable = (retryAfter?: string) =>
  json(
    503,
    { code: 'service_unavailable', message: 'the database is unavailable', status: 503 },
    retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  );
const PET = { id: 1, name: 'Rex', categoryId: 2 };
const baseUrl = 'http://127.0.0.1:9/v1';
const fast = { baseDelayMs: 1, maxDelayMs: 2 };

describe('Retry-After and backoff', () => {
  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 5 ', now)).toBe(5_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('backs off exponentially with full jitter, capped; honours Retry-After up to its cap', () => {
    const top = retryPolicy({ retries: { baseDelayMs: 100, maxDelayMs: 350 } }, () => 0.999999);
    expect([1, 2, 3, 4].map((retry) => retryDelayMs(top, retry))).toEqual([99, 199, 349, 349]);
    const bottom = retryPolicy({}, () => 0);
    expect(retryDelayMs(bottom, 3)).toBe(0);
    expect(retryDelayMs(bottom, 1, 4_000)).toBe(4_000);
    expect(retryDelayMs(bottom, 1, 60_000)).toBeUndefined();
  });

  it('waits at least Retry-After, spread by up to a fifth of it so that turned-away clients come back apart', () => {
    const low = retryPolicy({}, () => 0);
    const high = retryPolicy({}, () => 0.999999);
    expect(retryDelayMs(low, 1, 5_000)).toBe(5_000);
    expect(retryDelayMs(high, 1, 5_000)).toBe(5_999);
    // Retry-After: 0 still spreads over baseDelayMs (200 ms by default), and no spread exceeds maxDelayMs.
    expect(retryDelayMs(high, 1, 0)).toBe(199);
    const capped = retryPolicy({ retries: { maxDelayMs: 300, maxRetryAfterMs: 60_000 } }, () => 0.999999);
    expect(retryDelayMs(capped, 1, 10_000)).toBe(10_299);
  });

  it('refuses nonsense settings when the client is created', () => {
    expect(() => retryPolicy({ retries: { attempts: 0 } })).toThrow(TypeError);
    expect(() => retryPolicy({ timeoutMs: -1 })).toThrow(TypeError);
  });
});

describe('createRetryingFetch', () => {
  it('repeats a retryable answer until success, and says how many attempts it took', async () => {
    const { fetch, seen } = scriptedFetch([unavailable('0'), json(429, {}), json(200, [])]);
    const retrying = createRetryingFetch(fetch, retryPolicy({ retries: fast }), () => true);
    const response = await retrying(`${baseUrl}/pets`);
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(3);
  });

  it('makes one request when the request may not be repeated, or retries are off', async () => {
    for (const [options, canRetry] of [
      [{ retries: fast }, false],
      [{ retries: false }, true],
    ] as const) {
      const { fetch, seen } = scriptedFetch([unavailable('0'), json(200, [])]);
      const response = await createRetryingFetch(fetch, retryPolicy(options), () => canRetry)(baseUrl);
      expect(response.status).toBe(503);
      expect(seen).toHaveLength(1);
    }
  });

  it('gives up at once on a Retry-After longer than its cap, or than the time left', async () => {
    for (const options of [{ retries: { maxRetryAfterMs: 1_000 } }, { timeoutMs: 2_000 }]) {
      const { fetch, seen } = scriptedFetch([unavailable('5'), json(200, [])]);
      const response = await createRetryingFetch(fetch, retryPolicy(options), () => true)(baseUrl);
      expect(response.status).toBe(503);
      expect(seen).toHaveLength(1);
    }
  });

  it('stops at the deadline and when the caller aborts, saying which', async () => {
    const slow: typeof globalThis.fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    const timedOut = createRetryingFetch(slow, retryPolicy({ timeoutMs: 50 }), () => true)(baseUrl);
    await expect(timedOut).rejects.toThrow(/timed out after 50 ms/);
    await expect(timedOut).rejects.toBeInstanceOf(CallAbortedError);
    const controller = new AbortController();
    const aborted = createRetryingFetch(
      slow,
      retryPolicy({}),
      () => true,
    )(baseUrl, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toThrow(/was aborted/);
  });
});

describe('REST client retries', () => {
  it('a 503 with Retry-After: 0 is retried without the caller noticing', async () => {
    const { fetch, seen } = scriptedFetch([unavailable('0'), json(200, [PET])]);
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch, retries: fast });
    expect(await rest.listPets()).toEqual([{ id: 1n, name: 'Rex', categoryId: 2n }]);
    expect(seen).toHaveLength(2);
  });

  it('createPet sends one idempotency key per call, the same on every attempt; a given key is used', async () => {
    const { fetch, seen } = scriptedFetch([unavailable('0'), json(502, {}), json(201, PET)]);
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch, retries: fast });
    await rest.createPet({ name: 'Rex', categoryId: 2 });
    const keys = seen.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await rest.createPet({ name: 'Rex', categoryId: 2 });
    expect(seen.at(-1)?.headers['idempotency-key']).not.toBe(keys[0]);
    await rest.createPet({ name: 'Rex', categoryId: 2 }, { idempotencyKey: 'mine' });
    expect(seen.at(-1)?.headers['idempotency-key']).toBe('mine');
  });

  it('createPet repeats a 409 idempotency_key_in_use (its lost first attempt still running) and gets the pet', async () => {
    const inUse = json(409, {
      code: 'idempotency_key_in_use',
      message: 'a request with this Idempotency-Key is still being processed: retry it',
      status: 409,
    });
    const { fetch, seen } = scriptedFetch([inUse, json(201, PET)]);
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch, retries: fast });
    expect(await rest.createPet({ name: 'Rex', categoryId: 2 })).toEqual({
      id: 1n,
      name: 'Rex',
      categoryId: 2n,
    });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.headers['idempotency-key']).toBe(seen[0]?.headers['idempotency-key']);
  });

  it('createPet without retries sends no key unless given one, and is never repeated', async () => {
    const { fetch, seen } = scriptedFetch([unavailable('0'), json(201, PET)]);
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch, retries: false });
    const error = await rest.createPet({ name: 'Rex', categoryId: 2 }).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ kind: 'api', status: 503, attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('the error after the last attempt says how many attempts were made', async () => {
    const { fetch, seen } = scriptedFetch([unavailable('0')]);
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch, retries: { ...fast, attempts: 4 } });
    const error = await rest.getPet(1).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PetStoreApiError);
    expect(error).toMatchObject({ kind: 'api', status: 503, attempts: 4 });
    expect((error as Error).message).toMatch(/\(after 4 attempts\)$/);
    expect(seen).toHaveLength(4);
  });

  it('a call takes an AbortSignal', async () => {
    const slow: typeof globalThis.fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    const rest = createRestClient({ baseUrl, apiKey: 'k', fetch: slow });
    const controller = new AbortController();
    const pending = rest.listPets({}, { signal: controller.signal }).catch((failure: unknown) => failure);
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'network', message: expect.stringMatching(/was aborted/) });
  });
});
