import { type ApiError, ErrorSchema, parseJson } from '@petstore/schema';
import type { TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperationHandlers } from '../src/app.js';
import { EVENTS_DEFAULTS } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createAppRouter } from '../src/trpc/router.js';
import { createTrpcRoot } from '../src/trpc/trpc.js';
import { type Reply, rawCall } from './support/http.js';
import { rawSend } from './support/raw-send.js';
import {
  DATABASE_KINDS,
  startTestServer,
  TEST_API_KEY,
  TEST_CALLER,
  type TestServer,
} from './support/test-server.js';

/** The Error body tRPC puts in `data.error`, read back from an HTTP reply (superjson-encoded). */
const errorOf = (body: unknown) => {
  const shape = superjson.deserialize<{ data: { error: ApiError } }>((body as { error: never }).error);
  return ErrorSchema.parse(shape.data.error);
};

function callers(server: TestServer) {
  const { keepAliveMs } = EVENTS_DEFAULTS;
  const createCaller = createTrpcRoot(keepAliveMs).createCallerFactory(
    createAppRouter(createOperationHandlers({ sql: server.database.sql, logger: createLogger('silent') }), {
      keepAliveMs,
    }),
  );
  return { caller: createCaller({ caller: { subject: TEST_CALLER }, onInternalError: () => {} }) };
}

describe.each(DATABASE_KINDS)('tRPC /v1/trpc on %s', (kind) => {
  let server: TestServer;
  let caller: ReturnType<typeof callers>['caller'];

  beforeAll(async () => {
    server = await startTestServer(kind, 'trpc');
    ({ caller } = callers(server));
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates, reads and lists pets with the REST semantics', async () => {
    const pet = await caller.pets.create({ name: 'Rex', categoryId: 9007199254740993n });
    expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 9007199254740993n });
    expect(pet).not.toHaveProperty('status');
    expect(await caller.pets.get({ petId: pet.id })).toEqual(pet);
    const sold = await caller.pets.create({ name: 'Sold', categoryId: 1, status: 'sold' });
    expect(await caller.pets.list({ status: 'sold' })).toEqual([sold]);
    expect((await caller.pets.list()).map((p) => p.id)).toEqual([pet.id, sold.id]);
  });

  it('checks the API key once per HTTP request, before tRPC reads anything', async () => {
    const origin = server.baseUrl;
    const invalidInput = await rawCall(origin, '/trpc/pets.create', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"json":{"name":"","categoryId":"x"}}',
    });
    const unknownProcedure = await rawCall(origin, '/trpc/pets.nope');
    const queryOnMutation = await rawCall(origin, '/trpc/pets.create');
    const wrongMediaType = await rawCall(origin, '/trpc/pets.create', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x--',
    });
    const bigBatch = await rawCall(origin, `/trpc/${Array(1000).fill('pets.list').join(',')}?batch=1`);
    // A path or query that cannot be read (bad percent-encoding, a parameter twice) is refused after the key
    // check too, as on REST.
    const badPath = await rawCall(origin, '/trpc/pets.%E0%A4%A');
    const repeatedBatch = await rawCall(origin, '/trpc/pets.list,pets.list?batch=1&batch=1');
    for (const reply of [
      invalidInput,
      unknownProcedure,
      queryOnMutation,
      wrongMediaType,
      bigBatch,
      badPath,
      repeatedBatch,
    ]) {
      expect(reply.status).toBe(401);
      expect(errorOf(reply.body)).toMatchObject({ code: 'unauthorized', status: 401 });
      expect(reply.text.length).toBeLessThan(1000);
    }
  });

  it('maps domain errors to tRPC codes', async () => {
    const notFound = await caller.pets.get({ petId: 9223372036854775807n }).catch((e: unknown) => e);
    expect((notFound as TRPCError).code).toBe('NOT_FOUND');
    const invalid = await caller.pets.list({ limit: 0 }).catch((e: unknown) => e);
    expect((invalid as TRPCError).code).toBe('BAD_REQUEST');
  });

  describe('over HTTP', () => {
    const trpcUrl = (path: string) => `${server.baseUrl}/trpc/${path}`;
    const get = (
      path: string,
      input: unknown,
      headers: Record<string, string> = { authorization: `Bearer ${TEST_API_KEY}` },
    ) =>
      fetch(`${trpcUrl(path)}?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`, {
        headers,
      });

    it('answers 401 with the REST Error body and a Bearer challenge', async () => {
      const response = await get('pets.list', {}, {});
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
      expect(errorOf(await response.json())).toMatchObject({ code: 'unauthorized', status: 401 });
    });

    it('carries the REST Error body, with the REST message, for invalid input', async () => {
      const response = await get('pets.list', { limit: 101 });
      expect(response.status).toBe(400);
      expect(errorOf(await response.json())).toEqual({
        code: 'validation_failed',
        message: 'limit: must be an integer between 1 and 100',
        status: 400,
      });
      const unknownKey = await get('pets.list', { offset: 5 });
      expect(errorOf(await unknownKey.json()).message).toBe('unknown query parameter "offset"');
    });

    describe('holds raw input to the rules REST applies to the same input', () => {
      const post = (path: string, body: string | Buffer, contentType = 'application/json') =>
        rawCall(server.baseUrl, `/trpc/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': contentType },
          body,
        });
      const getRaw = (path: string, query: string) =>
        rawCall(server.baseUrl, `/trpc/${path}?${query}`, {
          headers: { authorization: `Bearer ${TEST_API_KEY}` },
        });
      const expectRefusal = (reply: Reply, status: number, code: string, message?: RegExp) => {
        expect(reply.status, reply.text).toBe(status);
        const error = errorOf(reply.body);
        expect(error).toMatchObject({ code, status });
        if (message) expect(error.message).toMatch(message);
      };

      it('refuses bigint texts that are not decimal digits instead of reading 0x10 as 16', async () => {
        for (const text of ['0x10', '0b11', '0o7', '', ' 12 ', '12n', '1e3', '+5', '١٢']) {
          const body = JSON.stringify({
            json: { name: 'Rex', categoryId: text },
            meta: { values: { categoryId: ['bigint'] } },
          });
          expectRefusal(
            await post('pets.create', body),
            400,
            'validation_failed',
            /^categoryId: must be an integer/,
          );
        }
        const ok = JSON.stringify({
          json: { name: 'Rex', categoryId: '-9223372036854775808' },
          meta: { values: { categoryId: ['bigint'] } },
        });
        expect((await post('pets.create', ok)).status).toBe(200);
      });

      it('refuses numbers whose text is not exactly an integer, as REST does', async () => {
        for (const text of ['4.0000000000000000001', '1e-400']) {
          const body = `{"json":{"name":"Rex","categoryId":${text}}}`;
          expectRefusal(
            await post('pets.create', body),
            400,
            'validation_failed',
            /^categoryId: must be an integer/,
          );
        }
        const exact = await post('pets.create', '{"json":{"name":"Rex","categoryId":7000e-3}}');
        expect(exact.status).toBe(200);
      });

      it('refuses what is not a superjson envelope instead of ignoring it', async () => {
        expectRefusal(
          await getRaw('pets.list', `input=${encodeURIComponent('{"limit":101}')}`),
          400,
          'validation_failed',
          /superjson envelope/,
        );
        expectRefusal(await post('pets.create', '{"name":"Rex","categoryId":1}'), 400, 'validation_failed');
        expectRefusal(
          await getRaw('pets.list', `input=${encodeURIComponent('{"json":{"limit":101}}')}`),
          400,
          'validation_failed',
          /^limit: must be an integer between 1 and 100$/,
        );
      });

      it("refuses an Idempotency-Key header, which tRPC would ignore: the key is the call's idempotencyKey", async () => {
        for (const path of ['pets.create', 'pets.create,pets.create?batch=1']) {
          const body = path.includes('batch')
            ? '{"0":{"json":{"name":"Rex","categoryId":1}},"1":{"json":{"name":"Rex","categoryId":1}}}'
            : '{"json":{"name":"Rex","categoryId":1}}';
          const reply = await rawCall(server.baseUrl, `/trpc/${path}`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${TEST_API_KEY}`,
              'content-type': 'application/json',
              'idempotency-key': 'sent-as-a-header',
            },
            body,
          });
          expectRefusal(reply, 400, 'validation_failed', /Idempotency-Key header .*"idempotencyKey"/);
        }
      });

      it('refuses invalid UTF-8, __proto__ keys and other media types as REST does', async () => {
        const invalidUtf8 = Buffer.concat([
          Buffer.from('{"json":{"name":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('","categoryId":1}}'),
        ]);
        expectRefusal(await post('pets.create', invalidUtf8), 400, 'malformed_json');
        expectRefusal(
          await getRaw('pets.list', 'input=%7B%22json%22%3A%7B%22status%22%3A%22%FF%22%7D%7D'),
          400,
          'malformed_json',
        );
        const proto = '{"json":{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}}';
        expectRefusal(
          await post('pets.create', proto),
          400,
          'validation_failed',
          /unknown field "__proto__"/,
        );
        for (const type of [
          'application/json; charset=latin1',
          'multipart/form-data; boundary=x',
          'application/octet-stream',
          'text/plain',
        ]) {
          expectRefusal(
            await post('pets.create', '{"json":{"name":"Rex","categoryId":1}}', type),
            415,
            'unsupported_media_type',
          );
        }
      });

      it('caps a batch at 10 calls and refuses more before running any', async () => {
        const paths = (n: number) => Array(n).fill('pets.list').join(',');
        const ten = await getRaw(paths(10), 'batch=1');
        expect(ten.status).toBe(200);
        expect(ten.body).toHaveLength(10);
        expectRefusal(await getRaw(paths(11), 'batch=1'), 400, 'validation_failed', /at most 10 calls/);
        const creates = JSON.stringify(
          Object.fromEntries(
            Array.from({ length: 11 }, (_, i) => [i, { json: { name: `b${i}`, categoryId: 1 } }]),
          ),
        );
        const before = (await caller.pets.list({ limit: 100 })).length;
        expectRefusal(
          await post(`${Array(11).fill('pets.create').join(',')}?batch=1`, creates),
          400,
          'validation_failed',
        );
        expect((await caller.pets.list({ limit: 100 })).length).toBe(before);
      });
    });

    it('marks pets.get deprecated with the REST headers and sends no stack traces', async () => {
      const response = await get('pets.get', { petId: 9223372036854775807n });
      expect(response.status).toBe(404);
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
      const text = await response.text();
      expect(text).not.toContain('stack');
      expect(errorOf(parseJson(text))).toMatchObject({ code: 'pet_not_found', status: 404 });
    });

    it('marks every answer naming pets.get deprecated, refusals made before the call included', async () => {
      const input = `input=${encodeURIComponent('{"json":{"petId":"1"},"meta":{"values":{"petId":["bigint"]}}}')}`;
      const auth = { authorization: `Bearer ${TEST_API_KEY}` };
      const refusals: [string, string, Record<string, string>][] = [
        ['GET', `pets.get?${input}`, {}], // 401
        ['GET', 'pets.get?input=%7B', auth], // 400
        ['POST', 'pets.get', auth], // 405
        ['OPTIONS', 'pets.get', auth], // 204
        ['GET', `pets.get?${input}`, { ...auth, 'if-match': '"x"' }], // 412
      ];
      for (const [method, target, headers] of refusals) {
        const reply = await rawSend(server.baseUrl, `/trpc/${target}`, { method, headers });
        expect(reply.headers.get('sunset'), `${method} ${target}: ${reply.status}`).toBe(
          'Thu, 05 Dec 2030 00:00:00 GMT',
        );
        expect(reply.headers.get('deprecation'), `${method} ${target}`).toMatch(/^@\d+$/);
      }
    });

    it('refuses methods other than GET and POST with 405 and Allow, after the key check', async () => {
      // node:http rather than fetch, which refuses to send TRACE.
      for (const method of ['TRACE', 'PUT', 'DELETE', 'PATCH']) {
        const reply = await rawCall(server.baseUrl, '/trpc/pets.list', {
          method,
          headers: { authorization: `Bearer ${TEST_API_KEY}` },
        });
        expect(reply.status, method).toBe(405);
        expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        // tRPC's error shape, as every answer under /v1/trpc (test/trpc-methods.test.ts).
        expect(errorOf(reply.body)).toMatchObject({ code: 'method_not_allowed', status: 405 });
        expect((await rawCall(server.baseUrl, '/trpc/pets.list', { method })).status).toBe(401);
      }
    });

    it('answers HEAD as the GET it stands for, OPTIONS with Allow, and names the allowed methods in every 405', async () => {
      const auth = { authorization: `Bearer ${TEST_API_KEY}` };
      const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify({ json: value }))}`;
      // Reads (the fast path, a 404, tRPC's own handler for an unknown procedure): HEAD's status and headers are GET's.
      for (const target of [
        `pets.list?${input({ limit: 3 })}`,
        `pets.get?${input({ petId: '999999' })}`,
        'nope',
      ]) {
        const get = await rawSend(server.baseUrl, `/trpc/${target}`, { headers: auth });
        const head = await rawSend(server.baseUrl, `/trpc/${target}`, { method: 'HEAD', headers: auth });
        expect(head.text, target).toBe('');
        expect(head.status, target).toBe(get.status);
        for (const name of ['content-type', 'content-length', 'cache-control', 'deprecation']) {
          expect(head.headers.get(name), `${target} ${name}`).toBe(get.headers.get(name));
        }
      }
      // A subscription's HEAD: the stream's headers, then the answer ends (no stream left open behind it).
      const events = await rawSend(server.baseUrl, `/trpc/pets.events?${input({})}`, {
        method: 'HEAD',
        headers: auth,
      });
      expect(events.status).toBe(200);
      expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
      // The methods each procedure takes: in OPTIONS, and in every 405 (RFC 9110 section 15.5.6).
      const allowed: [string, string, string][] = [
        ['pets.list', 'GET, HEAD, OPTIONS', 'POST'],
        ['pets.create', 'POST, OPTIONS', 'GET'],
        ['pets.list,pets.create?batch=1', 'OPTIONS', 'POST'],
        // A batch naming a known procedure exists (its GET answers each call; the unknown one's is a 404 inside):
        // its methods are the known procedures'.
        ['pets.list,nope?batch=1', 'GET, HEAD, OPTIONS', 'POST'],
        ['nope,pets.create?batch=1', 'POST, OPTIONS', 'GET'],
      ];
      for (const [target, allow, wrong] of allowed) {
        const options = await rawSend(server.baseUrl, `/trpc/${target}`, {
          method: 'OPTIONS',
          headers: auth,
        });
        expect({ status: options.status, allow: options.headers.get('allow') }, target).toEqual({
          status: 204,
          allow,
        });
        for (const method of [wrong, 'PUT']) {
          const refused = await rawSend(server.baseUrl, `/trpc/${target}`, { method, headers: auth });
          expect(
            { status: refused.status, allow: refused.headers.get('allow') },
            `${method} ${target}`,
          ).toEqual({
            status: 405,
            allow,
          });
        }
      }
    });

    it('answers every method on a path naming no known procedure with 404 route_not_found, as GET, never 405', async () => {
      const auth = { authorization: `Bearer ${TEST_API_KEY}` };
      // A probe found OPTIONS 204 and PUT 405 there, with `Allow: GET, HEAD, POST, OPTIONS`; REST's unknown paths
      // are 404 to every method.
      for (const target of [
        'nope',
        'pets.nope',
        'nope?batch=1',
        'nope,alsonope?batch=1',
        'pets.list,pets.create', // no batch: one name, commas and all
      ]) {
        const calls = target.endsWith('?batch=1') ? target.split('?')[0]?.split(',').length : undefined;
        const input = JSON.stringify(
          calls === undefined
            ? { json: {} }
            : Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { json: {} }])),
        );
        for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE']) {
          const reply = await rawSend(server.baseUrl, `/trpc/${target}`, {
            method,
            headers: method === 'POST' ? { ...auth, 'content-type': 'application/json' } : auth,
            ...(method === 'POST' ? { body: input } : {}),
          });
          // tRPC's error, or a batch's list of them.
          const body = reply.text === '' ? undefined : (parseJson(reply.text) as { code?: string });
          const codes = [body ?? []].flat().map((one) => one.code ?? errorOf(one).code);
          const code = codes.length === 0 ? undefined : [...new Set(codes)].join();
          expect(
            { status: reply.status, allow: reply.headers.get('allow'), code },
            `${method} ${target}`,
          ).toEqual({
            status: 404,
            allow: null,
            code: method === 'HEAD' ? undefined : 'route_not_found',
          });
        }
      }
    });

    it('answers a query sent as a mutation, or a batch that mixes them, with one 405 naming the call', async () => {
      const auth = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
      const cases: [string, RequestInit, string][] = [
        [
          'pets.list,pets.create?batch=1',
          {
            method: 'POST',
            headers: auth,
            body: `{"0":{"json":{}},"1":{"json":{"name":"m","categoryId":1}}}`,
          },
          'pets.list is a query: send it with GET; a batch carries only queries (GET) or only mutations (POST)',
        ],
        [
          `pets.list,pets.create?batch=1&input=${encodeURIComponent('{"0":{"json":{}}}')}`,
          { headers: auth },
          'pets.create is a mutation: send it with POST; a batch carries only queries (GET) or only mutations (POST)',
        ],
        ['pets.create', { headers: auth }, 'pets.create is a mutation: send it with POST'],
        [
          'pets.list',
          { method: 'POST', headers: auth, body: '{"json":{}}' },
          'pets.list is a query: send it with GET',
        ],
      ];
      const before = await caller.pets.create({ name: 'before the mixed batch', categoryId: 1 });
      for (const [target, init, message] of cases) {
        const response = await fetch(`${server.baseUrl}/trpc/${target}`, init);
        expect(response.status, target).toBe(405);
        expect(response.headers.get('content-type'), target).toMatch(/^application\/json/);
        expect(errorOf(parseJson(await response.text())), target).toEqual({
          code: 'method_not_allowed',
          message,
          status: 405,
        });
      }
      // The mutation in the mixed batch never ran: it would have taken the next id.
      const after = await caller.pets.create({ name: 'after the mixed batch', categoryId: 1 });
      expect(after.id).toBe(BigInt(before.id) + 1n);
    });

    it('stops a mutation on a false precondition (412, as REST), before anything is stored', async () => {
      const list = async () => (await caller.pets.list({ limit: 100 })).length;
      const before = await list();
      const send = (condition: Record<string, string>) =>
        fetch(trpcUrl('pets.create'), {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TEST_API_KEY}`,
            'content-type': 'application/json',
            ...condition,
          },
          body: JSON.stringify(superjson.serialize({ name: 'Conditional', categoryId: 1 })),
        });
      for (const condition of [{ 'if-none-match': '*' }, { 'if-match': '"no-such-tag"' }] as Record<
        string,
        string
      >[]) {
        const response = await send(condition);
        expect(response.status, JSON.stringify(condition)).toBe(412);
        const body = (await response.json()) as { error: { json?: { data?: { code?: string } } } };
        expect(JSON.stringify(body)).toContain('precondition_failed');
      }
      // A malformed field names no condition: a mutation is not made under it (`*, *` is two `*` lines joined).
      for (const condition of [
        { 'if-match': 'xx"a"yy' },
        { 'if-none-match': 'xx"a"yy' },
        { 'if-none-match': '*, *' },
      ] as Record<string, string>[]) {
        expect((await send(condition)).status, JSON.stringify(condition)).toBe(412);
        expect(await list()).toBe(before);
      }
    });

    it('keeps int64 exact over the wire', async () => {
      const response = await fetch(trpcUrl('pets.create'), {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(superjson.serialize({ name: 'Big', categoryId: 9223372036854775807n })),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        result: { data: Parameters<typeof superjson.deserialize>[0] };
      };
      expect(superjson.deserialize(body.result.data)).toMatchObject({ categoryId: 9223372036854775807n });
    });
  });
});
