import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFastifyServer } from './fastify-server.js';
import { BAD_LIST_QUERIES, BAD_NEW_PETS, BAD_PET_IDS } from './reference-cases.js';
import { KEY, rex, stubPool } from './stub-pool.js';

const queries: { name: string; values: unknown[] }[] = [];
const pool = stubPool((query) => queries.push(query));

const app = createFastifyServer(pool, [KEY]);
let base = '';
beforeAll(async () => {
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

const call = async (method: string, path: string, body?: string, key = KEY) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

// The Fastify server must refuse what the raw reference refuses (reference-rules.test.ts), with its schemas.
describe('fastify reference server', () => {
  it('lists through its response schema, int64 exact, no status when absent', async () => {
    const { status, headers, text } = await call('GET', '/v1/pets?limit=2&status=sold');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(text).toBe(
      '[{"id":9007199254740993,"name":"Rex","categoryId":7},{"id":2,"name":"Rex","categoryId":7,"status":"sold"}]',
    );
    expect(queries.at(-1)).toEqual({ name: 'list_by_status', values: ['sold', 2] });
    await call('GET', '/v1/pets');
    expect(queries.at(-1)).toEqual({ name: 'list_all', values: [20] });
  });

  it('refuses bad list queries and keys with Error bodies', async () => {
    for (const query of BAD_LIST_QUERIES) {
      const reply = await call('GET', `/v1/pets?${query}`);
      expect(reply.status, query).toBe(400);
      expect(JSON.parse(reply.text), query).toMatchObject({ code: 'validation_failed', status: 400 });
    }
    const denied = await call('GET', '/v1/pets', undefined, 'wrong-key');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_token"');
    expect(JSON.parse(denied.text)).toEqual({
      code: 'unauthorized',
      message: 'invalid API key',
      status: 401,
    });
  });

  it('gets by a positive int64 id, with the deprecation headers', async () => {
    const found = await call('GET', '/v1/pets/9007199254740993');
    expect(found.text).toBe('{"id":9007199254740993,"name":"Rex","categoryId":7}');
    expect(found.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect((await call('GET', '/v1/pets/5')).status).toBe(404);
    for (const bad of BAD_PET_IDS) expect((await call('GET', `/v1/pets/${bad}`)).status, bad).toBe(400);
  });

  it('creates with exact int64 and refuses what the raw reference refuses', async () => {
    const created = await call('POST', '/v1/pets', '{"name":"Rex","categoryId":9007199254740993}');
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/pets/10');
    expect(created.text).toBe('{"id":10,"name":"Rex","categoryId":9007199254740993}');
    expect(queries.at(-1)).toEqual({ name: 'insert', values: ['Rex', '9007199254740993', null] });
    for (const bad of BAD_NEW_PETS) expect((await call('POST', '/v1/pets', bad)).status, bad).toBe(400);
    const text = await fetch(`${base}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    expect((await call('DELETE', '/v1/pets')).status).toBe(405);
    expect((await call('GET', '/v1/nothing')).status).toBe(404);
  });

  it('answers the tRPC procedures in superjson', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { limit: 1 } }));
    const list = await call('GET', `/v1/trpc/pets.list?input=${input}`);
    expect(list.status).toBe(200);
    expect(JSON.parse(list.text).result.data.json[0]).toEqual({
      id: '9007199254740993',
      name: 'Rex',
      categoryId: '7',
    });
    const created = await call('POST', '/v1/trpc/pets.create', '{"json":{"name":"Rex","categoryId":7}}');
    expect(JSON.parse(created.text).result.data.meta.values).toEqual({
      id: ['bigint'],
      categoryId: ['bigint'],
    });
    expect((await call('GET', `/v1/trpc/pets.list?input=${input}`, undefined, 'wrong-key')).status).toBe(401);
    const bad = encodeURIComponent(JSON.stringify({ json: { limit: 0 } }));
    expect((await call('GET', `/v1/trpc/pets.list?input=${bad}`)).status).toBe(400);
  });
});
