// The tRPC fast path (src/trpc/trpc-fast-path.ts) answers plain JSON calls without tRPC's fetch adapter. It must
// answer exactly as tRPC's own handler does: the same requests go to two servers over identical fresh databases,
// one with the fast path and one without, and every status, body and meaningful header must be equal.
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePetCursor } from '../src/pets/pet-cursor.js';
import { rawCall } from './support/http.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const HEADERS = ['content-type', 'vary', 'deprecation', 'sunset', 'link', 'www-authenticate', 'retry-after'];

const input = (value: unknown) => encodeURIComponent(JSON.stringify(superjson.serialize(value)));
const batchInput = (values: unknown[]) =>
  encodeURIComponent(JSON.stringify(Object.fromEntries(values.map((v, i) => [i, superjson.serialize(v)]))));

/** [method, path under /v1, body] — run in order on both servers. */
const REQUESTS: [string, string, string?][] = [
  [
    'POST',
    '/trpc/pets.create',
    JSON.stringify(superjson.serialize({ name: 'Rex', categoryId: 9007199254740993n })),
  ],
  [
    'POST',
    '/trpc/pets.create',
    JSON.stringify(superjson.serialize({ name: 'Kit', categoryId: 2, status: 'sold' })),
  ],
  ['GET', `/trpc/pets.list?input=${input({ limit: 5 })}`],
  ['GET', '/trpc/pets.list'],
  ['GET', `/trpc/pets.list?input=${input({ status: 'sold' })}`],
  ['GET', `/trpc/pets.get?input=${input({ petId: 1n })}`],
  ['GET', `/trpc/pets.get?input=${input({ petId: 9223372036854775807n })}`],
  ['GET', `/trpc/pets.list?input=${input({ limit: 0 })}`],
  ['GET', `/trpc/pets.list,pets.get?batch=1&input=${batchInput([{ limit: 1 }, { petId: 2n }])}`],
  ['GET', `/trpc/pets.get,pets.get?batch=1&input=${batchInput([{ petId: 1n }, { petId: 99n }])}`],
  ['GET', `/trpc/pets.list,pets.list?batch=1&input=${batchInput([{ limit: 0 }, { status: 'lost' }])}`],
  [
    'POST',
    '/trpc/pets.create,pets.create?batch=1',
    JSON.stringify({
      0: superjson.serialize({ name: 'A', categoryId: 1 }),
      1: superjson.serialize({ name: '', categoryId: 1 }),
    }),
  ],
  ['POST', '/trpc/pets.create', JSON.stringify(superjson.serialize({ name: 'x', categoryId: 1, id: 5 }))],
  ['GET', '/trpc/pets.create'],
  ['POST', '/trpc/pets.list', '{}'],
  ['GET', '/trpc/pets.nope'],
  ['GET', '/trpc/pets.get'],
  [
    'GET',
    `/trpc/pets.get?input=${encodeURIComponent('{"json":{"a":{}},"meta":{"values":{"a":[["class","X"]]}}}')}`,
  ],
  [
    'GET',
    `/trpc/pets.get?input=${encodeURIComponent('{"json":{"petId":"1"},"meta":{"values":{"petId":["custom","x"]}}}')}`,
  ],
  [
    'GET',
    `/trpc/pets.get?input=${encodeURIComponent('{"json":{"petId":1},"meta":{"referentialEqualities":{"petId":["__proto__"]}}}')}`,
  ],
  ['POST', '/trpc/pets.create', '{"json":null}'],
  [
    'POST',
    '/trpc/pets.create',
    '{"json":{"name":"Rex","categoryId":"1"},"meta":{"values":{"categoryId":["bigint"]}}}',
  ],
  ['GET', `/trpc/pets.list?input=${encodeURIComponent('{"json":{"limit":1e21}}')}`],
  ['GET', `/trpc/pets.page?input=${input({ limit: 1 })}`],
  ['GET', '/trpc/pets.page'],
  ['GET', `/trpc/pets.page?input=${input({ limit: 1, cursor: encodePetCursor({ after: 1n }) })}`],
  ['GET', `/trpc/pets.page?input=${input({ status: 'sold', cursor: encodePetCursor({ after: 1n }) })}`],
  ['GET', `/trpc/pets.page?input=${input({ cursor: 'not.ours' })}`],
  ['GET', `/trpc/pets.page,pets.list?batch=1&input=${batchInput([{ limit: 2 }, { limit: 1 }])}`],
  ['GET', `/trpc/pets.list,pets.list?batch=1&input=${encodeURIComponent('{"1":{"json":{"limit":2}}}')}`],
  // Without batch=1 the whole path is one (unknown) name, commas and all: 404, nothing stored, nothing run.
  [
    'POST',
    '/trpc/pets.create,pets.create,pets.create',
    JSON.stringify(superjson.serialize({ name: 'Thrice', categoryId: 1 })),
  ],
  ['GET', `/trpc/${Array.from({ length: 1500 }, () => 'pets.list').join(',')}`],
  ['GET', '/trpc/pets.list,pets.list?batch=0'],
  ['GET', '/trpc/pets.list,pets.list?batch=true'],
  ['GET', '/trpc/pets.list?input='],
  ['GET', '/trpc/nested/pets.list'],
  ['GET', '/trpc/pets.list%'],
  // An annotation for a field the input lacks, and superjson's value copying: refused, never dropped or applied.
  [
    'GET',
    `/trpc/pets.list?input=${encodeURIComponent('{"json":{},"meta":{"values":{"limit":["undefined"]}}}')}`,
  ],
  [
    'POST',
    '/trpc/pets.create',
    '{"json":{"name":"sold","categoryId":1},"meta":{"referentialEqualities":{"name":["status"]}}}',
  ],
  // An int64 past 2^53 as a plain JSON number: exact, as on REST.
  ['POST', '/trpc/pets.create', '{"json":{"name":"Big","categoryId":9007199254740993}}'],
  ['GET', `/trpc/pets.get?input=${encodeURIComponent('{"json":{"petId":9007199254740993}}')}`],
  [
    'POST',
    '/trpc/pets.create,pets.create?batch=1',
    '{"0":{"json":{"name":"B0","categoryId":9223372036854775807}},"1":{"json":{"name":"B1","categoryId":9223372036854775808}}}',
  ],
  ['GET', '/trpc/pets.list'],
];

describe('the tRPC fast path', () => {
  let fast: TestServer;
  let slow: TestServer;
  beforeAll(async () => {
    fast = await startTestServer('pglite', 'fast', { trpcFastPath: true });
    slow = await startTestServer('pglite', 'slow', { trpcFastPath: false });
  });
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
  });

  it('answers every call exactly as tRPC itself does: status, body and headers', async () => {
    for (const [method, path, body] of REQUESTS) {
      const send = (server: TestServer) =>
        rawCall(server.baseUrl, path, {
          method,
          headers: {
            authorization: `Bearer ${TEST_API_KEY}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body,
        });
      const [viaFast, viaSlow] = [await send(fast), await send(slow)];
      const view = (reply: Awaited<ReturnType<typeof send>>) => ({
        status: reply.status,
        text: reply.text,
        headers: Object.fromEntries(HEADERS.map((name) => [name, reply.headers.get(name)])),
      });
      expect(view(viaFast), `${method} ${path}`).toEqual(view(viaSlow));
    }
  });

  it('gives the verdicts of tRPC to the forms reviewers found, and reads int64 exactly', async () => {
    const send = (path: string, method = 'GET', body?: string, headers: Record<string, string> = {}) =>
      rawCall(fast.baseUrl, path, {
        method,
        headers: {
          authorization: `Bearer ${TEST_API_KEY}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body,
      });
    const create = (text: string) => send('/trpc/pets.create', 'POST', text);
    const before = JSON.parse((await send('/pets?limit=100')).text).length;
    const thrice = await send(
      '/trpc/pets.create,pets.create,pets.create',
      'POST',
      JSON.stringify(superjson.serialize({ name: 'Thrice', categoryId: 1 })),
    );
    expect(thrice.status).toBe(404);
    expect(JSON.parse((await send('/pets?limit=100')).text).length).toBe(before);
    expect((await send(`/trpc/${Array(1500).fill('pets.list').join(',')}`)).status).toBe(404);
    const big = await create('{"json":{"name":"Big","categoryId":9007199254740993}}');
    expect(big.status).toBe(200);
    expect(superjson.deserialize<{ categoryId: bigint }>(JSON.parse(big.text).result.data).categoryId).toBe(
      9007199254740993n,
    );
    expect(
      (await create('{"json":{"name":"x","categoryId":1},"meta":{"values":{"nope":["undefined"]}}}')).status,
    ).toBe(400);
    const copied = await create(
      '{"json":{"name":"sold","categoryId":1},"meta":{"referentialEqualities":{"name":["status"]}}}',
    );
    expect(copied.status).toBe(400);
    // A streamed call that is not a batch: tRPC's 400, as JSON a client can read.
    const unbatched = await send('/trpc/pets.list', 'GET', undefined, { 'trpc-accept': 'application/jsonl' });
    expect(unbatched.status).toBe(400);
    expect(unbatched.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(unbatched.text).error.json.data.error.code).toBe('validation_failed');
  });
});
