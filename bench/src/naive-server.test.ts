import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from './generated/prisma/client.js';
import { createNaiveApp } from './naive-server.js';
import { BAD_LIST_QUERIES, BAD_NEW_PETS, BAD_PET_IDS } from './reference-cases.js';

const KEY = 'bench-key-0123456789abcdef';
const rex = { id: 9007199254740993n, name: 'Rex', categoryId: 7n, status: null, createdAt: new Date() };
const calls: unknown[] = [];

// Prisma stands in as a stub: the test is about the routes and rules, not the database.
const prisma = {
  pet: {
    findMany: async (args: unknown) => {
      calls.push(args);
      return [rex, { ...rex, id: 2n, status: 'sold' }];
    },
    findUnique: async ({ where }: { where: { id: bigint } }) => (where.id === rex.id ? rex : null),
    create: async ({ data }: { data: object }) => ({ ...rex, ...data, id: 10n, createdAt: new Date() }),
  },
} as unknown as PrismaClient;

let server: ReturnType<ReturnType<typeof createNaiveApp>['listen']>;
let base = '';
beforeAll(async () => {
  server = createNaiveApp(prisma, [KEY]).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const call = async (method: string, path: string, body?: string, key = KEY) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

// The naive server must refuse what the raw reference refuses (reference-rules.test.ts), with zod.
describe('naive reference server', () => {
  it('lists with Prisma findMany, int64 exact, no status when absent, no extra headers', async () => {
    const { status, headers, text } = await call('GET', '/v1/pets?limit=2&status=sold');
    expect(status).toBe(200);
    expect(text).toBe(
      '[{"id":9007199254740993,"name":"Rex","categoryId":7},{"id":2,"name":"Rex","categoryId":7,"status":"sold"}]',
    );
    expect(calls.at(-1)).toEqual({ where: { status: 'sold' }, orderBy: { id: 'asc' }, take: 2 });
    expect([...headers.keys()].sort()).toEqual([
      'connection',
      'content-length',
      'content-type',
      'date',
      'keep-alive',
    ]);
    await call('GET', '/v1/pets');
    expect(calls.at(-1)).toMatchObject({ take: 20 });
  });

  it('refuses bad list queries and keys', async () => {
    for (const query of BAD_LIST_QUERIES) {
      expect((await call('GET', `/v1/pets?${query}`)).status, query).toBe(400);
    }
    const denied = await call('GET', '/v1/pets', undefined, 'wrong-key');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_token"');
  });

  it('gets by a positive int64 id', async () => {
    expect((await call('GET', '/v1/pets/9007199254740993')).text).toBe(
      '{"id":9007199254740993,"name":"Rex","categoryId":7}',
    );
    expect((await call('GET', '/v1/pets/5')).status).toBe(404);
    for (const bad of BAD_PET_IDS) expect((await call('GET', `/v1/pets/${bad}`)).status, bad).toBe(400);
  });

  it('creates with exact int64 and refuses what the raw reference refuses', async () => {
    const created = await call('POST', '/v1/pets', '{"name":"Rex","categoryId":9007199254740993}');
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/pets/10');
    expect(created.text).toBe('{"id":10,"name":"Rex","categoryId":9007199254740993}');
    for (const bad of BAD_NEW_PETS) {
      expect((await call('POST', '/v1/pets', bad)).status, bad).toBe(400);
    }
    const text = await fetch(`${base}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
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
  });
});
