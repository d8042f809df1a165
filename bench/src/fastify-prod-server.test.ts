import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProductionFastifyServer } from './fastify-prod-server.js';
import { createFastifyServer } from './fastify-server.js';
import { BAD_LIST_QUERIES, BAD_NEW_PETS, BAD_PET_IDS } from './reference-cases.js';
import { KEY, stubPool } from './stub-pool.js';

const OTHER_KEY = 'other-key-0123456789abcdef';
const pool = stubPool();

/** What pino writes, one JSON line at a time. */
const logLines: Record<string, unknown>[] = [];
const logStream = { write: (line: string) => void logLines.push(JSON.parse(line)) };
const requestLines = () => logLines.filter((line) => line.msg === 'request');

const plain = createFastifyServer(pool, [KEY]);
const prod = await createProductionFastifyServer(pool, [KEY, OTHER_KEY], {
  rateLimitPerMinute: 1_000_000,
  logStream,
});
/** A limit small enough to reach, on its own log. */
const tight = await createProductionFastifyServer(pool, [KEY, OTHER_KEY], {
  rateLimitPerMinute: 3,
  logStream: { write: () => {} },
});
const bases = { plain: '', prod: '', tight: '' };
beforeAll(async () => {
  bases.plain = await plain.listen({ port: 0, host: '127.0.0.1' });
  bases.prod = await prod.listen({ port: 0, host: '127.0.0.1' });
  bases.tight = await tight.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => Promise.all([plain.close(), prod.close(), tight.close()]));

interface Call {
  method: string;
  path: string;
  body?: string;
  /** The bearer key; null: no Authorization header. */
  key?: string | null;
  type?: string;
  requestId?: string;
}

const call = async (server: keyof typeof bases, { method, path, body, key = KEY, type, requestId }: Call) => {
  const headers: Record<string, string> = {};
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = type ?? 'application/json';
  if (requestId !== undefined) headers['X-Request-Id'] = requestId;
  const response = await fetch(`${bases[server]}${path}`, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

const trpcInput = (value: unknown) => encodeURIComponent(JSON.stringify({ json: value }));

/** The bench's requests (its scenarios and the cases every reference refuses). */
const CASES: Call[] = [
  { method: 'GET', path: '/v1/pets?limit=20' },
  { method: 'GET', path: '/v1/pets' },
  { method: 'GET', path: '/v1/pets?limit=100&status=available' },
  { method: 'GET', path: '/v1/pets/9007199254740993' },
  { method: 'GET', path: '/v1/pets/5' },
  {
    method: 'POST',
    path: '/v1/pets',
    body: '{"name":"Bench Rex","categoryId":9007199254740993,"status":"available"}',
  },
  { method: 'POST', path: '/v1/pets', body: '{}', type: 'text/plain' },
  { method: 'GET', path: '/v1/pets?limit=20', key: 'wrong-key-0123456789abcdef' },
  { method: 'GET', path: '/v1/pets?limit=20', key: null },
  { method: 'DELETE', path: '/v1/pets' },
  { method: 'GET', path: '/v1/nothing' },
  { method: 'GET', path: `/v1/trpc/pets.list?input=${trpcInput({ limit: 20 })}` },
  { method: 'GET', path: `/v1/trpc/pets.list?input=${trpcInput({ limit: 0 })}` },
  { method: 'GET', path: `/v1/trpc/pets.list?input=${trpcInput({ limit: 20 })}`, key: 'wrong-key' },
  {
    method: 'POST',
    path: '/v1/trpc/pets.create',
    body: '{"json":{"name":"Bench Rex","categoryId":7,"status":"available"}}',
  },
  ...BAD_LIST_QUERIES.map((query) => ({ method: 'GET', path: `/v1/pets?${query}` })),
  ...BAD_PET_IDS.map((id) => ({ method: 'GET', path: `/v1/pets/${id}` })),
  ...BAD_NEW_PETS.map((body) => ({ method: 'POST', path: '/v1/pets', body })),
];

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

describe('production fastify reference server', () => {
  it('answers every case of the bench as the Fastify reference does (status and bytes)', async () => {
    for (const request of CASES) {
      const [expected, got] = await Promise.all([call('plain', request), call('prod', request)]);
      const what = `${request.method} ${request.path} ${request.body ?? ''}`;
      expect({ status: got.status, text: got.text }, what).toEqual({
        status: expected.status,
        text: expected.text,
      });
      for (const name of ['content-type', 'location', 'www-authenticate', 'allow', 'sunset']) {
        expect(got.headers.get(name), `${what}: ${name}`).toBe(expected.headers.get(name));
      }
    }
  });

  it('sends the security headers and the request id on every answer', async () => {
    for (const request of CASES) {
      const { headers } = await call('prod', request);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
        expect(headers.get(name), `${request.method} ${request.path}: ${name}`).toBe(value);
      }
      expect(headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const echoed = await call('prod', { method: 'GET', path: '/v1/pets', requestId: 'caller-id.1' });
    expect(echoed.headers.get('x-request-id')).toBe('caller-id.1');
  });

  it('writes one log line per request at info, with its id, method, path, status and time', async () => {
    const before = requestLines().length;
    const ids = ['log-1', 'log-2', 'log-3', 'log-4'];
    await call('prod', { method: 'GET', path: '/v1/pets?limit=2', requestId: 'log-1' });
    await call('prod', { method: 'GET', path: '/v1/pets', key: 'wrong-key', requestId: 'log-2' });
    await call('prod', {
      method: 'POST',
      path: '/v1/pets',
      body: '{"name":"Rex","categoryId":1}',
      requestId: 'log-3',
    });
    await call('prod', { method: 'GET', path: '/v1/nothing?secret=1', requestId: 'log-4' });
    // The line is written once the response has finished, which may be just after the client has it.
    await vi.waitFor(() => expect(requestLines().length).toBe(before + ids.length));
    const lines = requestLines().slice(before);
    expect(lines.map((line) => line.requestId)).toEqual(ids);
    expect(lines.map((line) => [line.method, line.path, line.status])).toEqual([
      ['GET', '/v1/pets', 200],
      ['GET', '/v1/pets', 401],
      ['POST', '/v1/pets', 201],
      ['GET', '/v1/nothing', 404],
    ]);
    for (const line of lines) {
      expect(line.level).toBe(30);
      expect(typeof line.ms).toBe('number');
    }
    // Nothing else per request: Fastify's own two lines are off (only start-up's "Server listening" remains).
    expect(logLines.filter((line) => line.msg !== 'request').map((line) => line.msg)).toEqual([
      expect.stringMatching(/^Server listening at /),
    ]);
  });

  it('refuses a wrong or missing key with 401, on REST and tRPC', async () => {
    const wrong = await call('prod', { method: 'GET', path: '/v1/pets', key: 'wrong-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_token"');
    expect(JSON.parse(wrong.text)).toEqual({ code: 'unauthorized', message: 'invalid API key', status: 401 });
    expect((await call('prod', { method: 'GET', path: '/v1/pets', key: null })).status).toBe(401);
    const input = trpcInput({ limit: 1 });
    expect(
      (await call('prod', { method: 'GET', path: `/v1/trpc/pets.list?input=${input}`, key: 'x' })).status,
    ).toBe(401);
  });

  it('rate-limits per key per minute, with the rate-limit headers', async () => {
    const first = await call('tight', { method: 'GET', path: '/v1/pets' });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    // A request without a valid key is refused by the key check, not counted.
    const denied = await call('tight', { method: 'GET', path: '/v1/pets', key: 'wrong-key' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('x-ratelimit-limit')).toBeNull();
    // tRPC counts too.
    const input = trpcInput({ limit: 1 });
    expect((await call('tight', { method: 'GET', path: `/v1/trpc/pets.list?input=${input}` })).status).toBe(
      200,
    );
    expect((await call('tight', { method: 'GET', path: '/v1/pets/9007199254740993' })).status).toBe(200);
    const refused = await call('tight', { method: 'GET', path: '/v1/pets' });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({
      code: 'rate_limited',
      message: 'rate limit of 3 requests per 60 s exceeded',
      status: 429,
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-request-id')).not.toBeNull();
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    // Counted per key: the other key has its own minute.
    const other = await call('tight', { method: 'GET', path: '/v1/pets', key: OTHER_KEY });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
    // And the bench's production server, at its limit, counts without refusing.
    const counted = await call('prod', { method: 'GET', path: '/v1/pets' });
    expect(counted.headers.get('x-ratelimit-limit')).toBe('1000000');
  });
});
