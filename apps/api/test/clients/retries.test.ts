// Both clients' retries against the real API, through a proxy that fails on purpose, on PostgreSQL and PGlite:
// a create whose answer is lost after the pet was stored is retried and stores it once; a 503 with
// Retry-After: 0 is retried without the caller noticing; every attempt of one create carries the same key.

import { createRestClient, createTrpcClient, type Pet } from '@petstore/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyProxy, type ProxiedRequest, startFaultyProxy } from '../support/faulty-proxy.js';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from '../support/test-server.js';

const UNAVAILABLE = {
  status: 503,
  headers: { 'content-type': 'application/json', 'retry-after': '0' },
  body: JSON.stringify({ code: 'service_unavailable', message: 'the database is unavailable', status: 503 }),
};
// tRPC answers errors in its own envelope; the proxy answers the way the API itself would for a 503.
const TRPC_UNAVAILABLE = {
  ...UNAVAILABLE,
  body: JSON.stringify({
    error: {
      json: {
        message: 'the database is unavailable',
        code: -32603,
        data: {
          code: 'SERVICE_UNAVAILABLE',
          httpStatus: 503,
          error: { code: 'service_unavailable', message: 'the database is unavailable', status: 503 },
        },
      },
    },
  }),
};

/** The idempotency key a create request carried: the REST header, or the tRPC input field. */
function keyOf(request: ProxiedRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (typeof header === 'string') return header;
  const body = JSON.parse(request.body) as Record<string, { json?: { idempotencyKey?: string } }>;
  return (body['0'] ?? (body as { json?: { idempotencyKey?: string } })).json?.idempotencyKey;
}

const isCreate = (request: ProxiedRequest) => request.method === 'POST';

/** The first `count` requests that match get `fault`; everything else is forwarded. */
const firstOnes = (count: number, fault: 'lose-response' | object, match: (r: ProxiedRequest) => boolean) => {
  let left = count;
  return (request: ProxiedRequest) => {
    if (left > 0 && match(request)) {
      left -= 1;
      return fault as never;
    }
    return 'forward' as const;
  };
};

describe.each(DATABASE_KINDS)('client retries against the API on %s', (kind) => {
  let server: TestServer;
  let proxy: FaultyProxy;
  const transports = {
    rest: {
      create: (name: string) =>
        createRestClient({
          baseUrl: proxy.baseUrl,
          apiKey: TEST_API_KEY,
          retries: { baseDelayMs: 5 },
        }).createPet({
          name,
          categoryId: 1,
        }),
      list: () => createRestClient({ baseUrl: proxy.baseUrl, apiKey: TEST_API_KEY }).listPets({ limit: 100 }),
      unavailable: UNAVAILABLE,
    },
    trpc: {
      create: (name: string) =>
        createTrpcClient({
          url: `${proxy.baseUrl}/trpc`,
          apiKey: TEST_API_KEY,
          retries: { baseDelayMs: 5 },
        }).pets.create.mutate({
          name,
          categoryId: 1,
        }),
      list: () =>
        createTrpcClient({ url: `${proxy.baseUrl}/trpc`, apiKey: TEST_API_KEY }).pets.list.query({
          limit: 100,
        }),
      unavailable: TRPC_UNAVAILABLE,
    },
  };
  const stored = async (name: string) =>
    (
      await server.database.sql.rows('SELECT id FROM pets WHERE name = $1', [{ value: name, type: 'string' }])
    ).map((row) => row.id as bigint);

  beforeAll(async () => {
    server = await startTestServer(kind, 'client-retries');
    proxy = await startFaultyProxy(server.baseUrl);
  });
  afterEach(() => {
    proxy.requests.length = 0;
    proxy.plan = () => 'forward';
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  describe.each(['rest', 'trpc'] as const)('%s client', (transport) => {
    const client = () => transports[transport];

    it('a create whose answer was lost after the pet was stored is retried, and leaves exactly one pet', async () => {
      const name = `Lost answer ${transport}`;
      proxy.plan = firstOnes(1, 'lose-response', isCreate);
      const pet: Pet = await client().create(name);
      expect(await stored(name)).toEqual([pet.id]);
      expect(pet).toEqual({ id: pet.id, name, categoryId: 1n });
      const attempts = proxy.requests.filter(isCreate);
      expect(attempts).toHaveLength(2);
      expect(new Set(attempts.map(keyOf)).size).toBe(1);
      expect(keyOf(attempts[0] as ProxiedRequest)).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('a 503 with Retry-After: 0 is retried without the caller noticing, on reads and creates', async () => {
      proxy.plan = firstOnes(1, client().unavailable, () => true);
      expect(Array.isArray(await client().list())).toBe(true);
      expect(proxy.requests).toHaveLength(2);

      const name = `After a 503 ${transport}`;
      proxy.requests.length = 0;
      proxy.plan = firstOnes(1, client().unavailable, isCreate);
      const pet = await client().create(name);
      expect(await stored(name)).toEqual([pet.id]);
      expect(proxy.requests).toHaveLength(2);
    });

    it('after the last attempt the error says how many were made, and nothing was created', async () => {
      const name = `Never stored ${transport}`;
      proxy.plan = () => client().unavailable;
      const error = (await client()
        .create(name)
        .catch((failure: unknown) => failure)) as Error & { attempts?: number };
      expect(error.message).toMatch(/\(after 3 attempts\)$/);
      expect(error.attempts).toBe(3);
      expect(proxy.requests.filter(isCreate)).toHaveLength(3);
      expect(await stored(name)).toEqual([]);
    });

    it('every attempt of one logical create carries the same key; the next create another', async () => {
      const name = `Three attempts ${transport}`;
      let seen = 0;
      proxy.plan = (request) => {
        if (!isCreate(request)) return 'forward';
        seen += 1;
        return seen === 1 ? client().unavailable : seen === 2 ? 'lose-response' : 'forward';
      };
      const pet = await client().create(name);
      const attempts = proxy.requests.filter(isCreate);
      expect(attempts).toHaveLength(3);
      expect(new Set(attempts.map(keyOf)).size).toBe(1);
      expect(await stored(name)).toEqual([pet.id]);

      await client().create(name);
      expect(keyOf(proxy.requests.at(-1) as ProxiedRequest)).not.toBe(keyOf(attempts[0] as ProxiedRequest));
      expect(await stored(name)).toHaveLength(2);
    });
  });
});
