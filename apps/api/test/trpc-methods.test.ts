// Every method on a tRPC query, mutation and subscription path (and on paths under /v1/trpc naming none): every
// answer with a body is tRPC's (its error envelope, superjson-encoded, with our Error body in `data.error`), as
// tRPC's client reads it, and every 405 and OPTIONS carries the procedure's `Allow`. PUT on a query was a bare REST
// Error body while POST on it was tRPC's.
import { ErrorSchema } from '@petstore/schema';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawSend } from './support/raw-send.js';
import { openSse } from './support/sse.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const AUTH = { authorization: `Bearer ${TEST_API_KEY}` };
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify({ json: value }))}`;

/** The Error body of a tRPC error answer, checked to be tRPC's envelope (what TRPCClientError reads). */
function trpcError(text: string, status: number) {
  const body = JSON.parse(text) as { error?: unknown };
  expect(Object.keys(body)).toEqual(['error']);
  const shape = superjson.deserialize<{
    message: string;
    code: number;
    data: { code: string; httpStatus: number; error: unknown };
  }>(body.error as never);
  expect(typeof shape.code).toBe('number');
  expect(typeof shape.message).toBe('string');
  expect(shape.data.httpStatus).toBe(status);
  return ErrorSchema.parse(shape.data.error);
}

describe('every method under /v1/trpc answers in tRPC shape', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'trpc-methods');
  });
  afterAll(async () => {
    await server?.close();
  });

  const paths = [
    { kind: 'query', target: `pets.list?${input({})}`, takes: 'GET', allow: 'GET, HEAD, OPTIONS' },
    { kind: 'mutation', target: 'pets.create', takes: 'POST', allow: 'POST, OPTIONS' },
    { kind: 'subscription', target: `pets.events?${input({})}`, takes: 'GET', allow: 'GET, HEAD, OPTIONS' },
  ] as const;

  for (const { kind, target, takes, allow } of paths) {
    it(`a ${kind}: its method serves it, OPTIONS is 204 with Allow, any other is a tRPC 405 with Allow`, async () => {
      for (const method of METHODS) {
        const where = `${method} ${target}`;
        if (kind === 'subscription' && method === 'GET') {
          const stream = await openSse(`${server.baseUrl}/trpc/${target}`, AUTH);
          stream.close();
          expect(stream.status, where).toBe(200);
          continue;
        }
        const body =
          method === 'POST' || takes === 'POST' ? '{"json":{"name":"m","categoryId":1}}' : undefined;
        const reply = await rawSend(server.baseUrl, `/trpc/${target}`, {
          method,
          headers: body === undefined ? AUTH : { ...AUTH, 'content-type': 'application/json' },
          ...(method === 'POST' && body !== undefined ? { body } : {}),
        });
        const served = method === takes || (method === 'HEAD' && takes === 'GET');
        if (method === 'OPTIONS') {
          expect(
            { status: reply.status, allow: reply.headers.get('allow'), text: reply.text },
            where,
          ).toEqual({
            status: 204,
            allow,
            text: '',
          });
        } else if (served) {
          expect(reply.status, where).toBe(200);
        } else {
          expect({ status: reply.status, allow: reply.headers.get('allow') }, where).toEqual({
            status: 405,
            allow,
          });
          // HEAD has no body; the headers still say it is JSON, as its GET's do.
          if (method !== 'HEAD') {
            expect(reply.headers.get('content-type'), where).toMatch(/^application\/json/);
            expect(trpcError(reply.text, 405), where).toMatchObject({
              code: 'method_not_allowed',
              status: 405,
            });
          }
        }
      }
    });
  }

  // A subscription is a GET of its own, never in a batch: a batch naming one is served by no method, so its 405
  // (and OPTIONS) must not offer GET, which answered that very 405.
  it('a batch naming the subscription: 405 to GET and POST, Allow offering no method but OPTIONS', async () => {
    for (const names of [
      'pets.events',
      'pets.list,pets.events',
      'pets.events,pets.events',
      'pets.events,nope',
    ]) {
      for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT']) {
        const reply = await rawSend(server.baseUrl, `/trpc/${names}?batch=1`, {
          method,
          headers: method === 'POST' ? { ...AUTH, 'content-type': 'application/json' } : AUTH,
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        const where = `${method} ${names}`;
        expect({ status: reply.status, allow: reply.headers.get('allow') }, where).toEqual({
          status: method === 'OPTIONS' ? 204 : 405,
          allow: 'OPTIONS',
        });
      }
    }
  });

  it('a path naming no procedure is a tRPC 404 to every method, OPTIONS included (as on REST)', async () => {
    for (const target of ['nope', 'x/pets.list', '']) {
      for (const method of METHODS) {
        const reply = await rawSend(server.baseUrl, target === '' ? '/trpc' : `/trpc/${target}`, {
          method,
          headers: method === 'POST' ? { ...AUTH, 'content-type': 'application/json' } : AUTH,
          ...(method === 'POST' ? { body: '{"json":{}}' } : {}),
        });
        const where = `${method} ${target}`;
        expect({ status: reply.status, allow: reply.headers.get('allow') }, where).toEqual({
          status: 404,
          allow: null,
        });
        if (method !== 'HEAD') {
          // The message names the path as sent (`/v1/trpc`, not the `/v1/trpc/` Express shows the middleware).
          expect(trpcError(reply.text, 404), where).toMatchObject({
            code: 'route_not_found',
            status: 404,
            // One message whatever the method (tRPC's own named it only on GET and POST).
            message: `no route for ${method} /v1/trpc${target === '' ? '' : `/${target}`}`,
          });
        }
      }
    }
  });

  it("says one media type on every JSON answer: a call's, tRPC's own and a refusal before any call", async () => {
    const json = { ...AUTH, 'content-type': 'application/json' };
    const requests: [string, string, Record<string, string>, string?][] = [
      ['GET', `/trpc/pets.list?${input({})}`, AUTH], // the fast path
      ['GET', `/trpc/pets.list,nope?batch=1`, AUTH], // tRPC's adapter
      ['POST', '/trpc/pets.create', json, '{"json":{"name":"","categoryId":1}}'], // a call's 400
      ['GET', `/trpc/pets.list?${input({})}`, {}], // 401 before any call
      ['GET', '/trpc/nope', AUTH], // 404
      ['PUT', '/trpc/pets.list', AUTH], // 405
      ['GET', '/trpc/pets.list?input=%7B', AUTH], // unreadable input
      ['GET', '/trpc/pets.list?batch=2', AUTH], // a bad batch parameter
    ];
    const types = new Set<string | null>();
    for (const [method, path, headers, body] of requests) {
      const reply = await rawSend(server.baseUrl, path, { method, headers, ...(body ? { body } : {}) });
      types.add(reply.headers.get('content-type'));
    }
    expect([...types]).toEqual(['application/json']);
  });

  it('a call of a batch naming no procedure is told what a request naming none is, in its slot', async () => {
    for (const [method, names, input] of [
      ['GET', 'pets.list,nope', '{"0":{"json":{}},"1":{"json":{}}}'],
      ['POST', 'nope,pets.create', '{"1":{"json":{"name":"Rex","categoryId":1}}}'],
    ] as const) {
      const query = method === 'GET' ? `&input=${encodeURIComponent(input)}` : '';
      const reply = await rawSend(server.baseUrl, `/trpc/${names}?batch=1${query}`, {
        method,
        headers: method === 'POST' ? { ...AUTH, 'content-type': 'application/json' } : AUTH,
        ...(method === 'POST' ? { body: input } : {}),
      });
      const slots = JSON.parse(reply.text) as { error?: unknown }[];
      const slot = slots[names.split(',').indexOf('nope')] as { error: unknown };
      expect(trpcError(JSON.stringify(slot), 404), `${method} ${names}`).toEqual({
        code: 'route_not_found',
        status: 404,
        message: `no route for ${method} /v1/trpc/nope`,
      });
    }
  });
});
