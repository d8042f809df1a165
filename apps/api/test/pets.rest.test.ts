import { contract, PetSchema, PetsSchema, stringifyJson } from '@petstore/schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { call, expectError, rawCall } from './support/http.js';
import { rawSend } from './support/raw-send.js';
import {
  DATABASE_KINDS,
  OTHER_API_KEY,
  startTestServer,
  TEST_API_KEY,
  type TestServer,
} from './support/test-server.js';

// Some tests start servers of their own: the timeout says so.
vi.setConfig({ testTimeout: timeouts.server });

const createBody = (fields: Record<string, unknown>) => stringifyJson(fields);

describe.each(DATABASE_KINDS)('REST /v1 on %s', (kind) => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer(kind, 'rest');
    base = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
  });

  const create = async (fields: Record<string, unknown>) => {
    const reply = await call(base, '/pets', { method: 'POST', body: createBody(fields) });
    expect(reply.status, reply.text).toBe(201);
    return PetSchema.parse(reply.body);
  };

  describe('authentication (every operation)', () => {
    const operations = [
      { name: 'listPets', method: 'GET', path: '/pets' },
      { name: 'createPet', method: 'POST', path: '/pets', body: createBody({ name: 'Rex', categoryId: 1 }) },
      { name: 'getPet', method: 'GET', path: '/pets/1' },
    ];

    it.each(operations)(
      '$name without a key is 401 with a Bearer challenge',
      async ({ method, path, body }) => {
        const reply = await call(base, path, { method, body, apiKey: null });
        expectError(reply, 401, 'unauthorized');
        expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
      },
    );

    it.each(operations)('$name with a wrong key is 401 invalid_token', async ({ method, path, body }) => {
      const reply = await call(base, path, { method, body, apiKey: 'not-a-valid-key-at-all' });
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_token"');
    });

    // RFC 6750 section 3.1: a Bearer attempt that is malformed is `invalid_request`; another scheme (or none) is
    // no attempt at Bearer, and gets the challenge without an error code.
    it.each([
      ['Basic dGVzdDp0ZXN0', ''],
      ['Bearer', ', error="invalid_request"'],
      ['Bearer ', ', error="invalid_request"'],
      ['bearer test-key-0123456789abcdef\u00e9', ', error="invalid_request"'],
      ['Token test-key-0123456789abcdef', ''],
      ['test-key-0123456789abcdef', ''],
      ['Bearer test-key-0123456789abcdef extra', ', error="invalid_request"'],
      // Only spaces may follow the scheme (RFC 9110 section 11.4), but these are still attempts at Bearer.
      ['Bearer\ttest-key-0123456789abcdef', ', error="invalid_request"'],
      ['Bearer,test-key-0123456789abcdef', ', error="invalid_request"'],
      ['Bearerx test-key-0123456789abcdef', ''],
      ['Bearer_ test-key-0123456789abcdef', ''],
    ])('refuses a malformed Authorization header %j', async (authorization, error) => {
      const reply = await call(base, '/pets', { headers: { authorization } });
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers.get('www-authenticate')).toBe(`Bearer realm="petstore"${error}`);
    });

    it('refuses two Authorization headers as a malformed request (RFC 6750: one way of sending the token)', async () => {
      const reply = await rawCall(base, '/pets', {
        headers: { authorization: [`Bearer ${TEST_API_KEY}`, `Bearer ${TEST_API_KEY}`] } as never,
      });
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_request"');
    });

    it('accepts the scheme in any case, and every configured key', async () => {
      for (const authorization of [
        'Bearer test-key-0123456789abcdef',
        'bearer test-key-0123456789abcdef',
        'BEARER test-key-0123456789abcdef',
        `Bearer ${OTHER_API_KEY}`,
      ]) {
        expect((await call(base, '/pets', { headers: { authorization } })).status).toBe(200);
      }
    });

    it('checks the key before anything else: bad input without a key is 401, not 400', async () => {
      expectError(
        await call(base, '/pets', { method: 'POST', body: '{not json', apiKey: null }),
        401,
        'unauthorized',
      );
      expectError(
        await call(base, '/pets', {
          method: 'POST',
          body: 'x',
          headers: { 'content-type': 'text/plain' },
          apiKey: null,
        }),
        401,
        'unauthorized',
      );
      expectError(await call(base, '/pets?limit=0', { apiKey: null }), 401, 'unauthorized');
      expectError(await call(base, '/pets/abc', { apiKey: null }), 401, 'unauthorized');
      expectError(await call(base, '/no-such-route', { apiKey: null }), 401, 'unauthorized');
      expectError(await call(base, '/pets', { method: 'DELETE', apiKey: null }), 401, 'unauthorized');
    });
  });

  describe('createPet: POST /v1/pets', () => {
    it('returns 201 with the Pet, the id the database assigned and a Location header', async () => {
      const reply = await call(base, '/pets', {
        method: 'POST',
        body: '{"name":"Rex","categoryId":3,"status":"available"}',
      });
      expect(reply.status).toBe(201);
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const pet = PetSchema.parse(reply.body);
      expect(pet).toMatchObject({ name: 'Rex', categoryId: 3n, status: 'available' });
      expect(reply.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
      const row = await server.database.prisma.pet.findUnique({ where: { id: pet.id } });
      expect(row).toMatchObject({ id: pet.id, name: 'Rex', categoryId: 3n, status: 'available' });
      const again = await call(base, `/pets/${pet.id}`);
      expect(again.text).toBe(reply.text);
    });

    it('assigns increasing, unique ids', async () => {
      const first = await create({ name: 'A', categoryId: 1 });
      const second = await create({ name: 'B', categoryId: 1 });
      expect(second.id > first.id).toBe(true);
    });

    it('leaves an omitted status absent: no "status" key, never null', async () => {
      const reply = await call(base, '/pets', { method: 'POST', body: '{"name":"Nameless","categoryId":1}' });
      expect(reply.status).toBe(201);
      expect(reply.body).not.toHaveProperty('status');
      expect(reply.text).not.toContain('status');
      const id = PetSchema.parse(reply.body).id;
      const read = await call(base, `/pets/${id}`);
      expect(read.text).not.toContain('status');
      const listed = await call(base, '/pets?limit=100');
      expect(listed.text).not.toContain('"status":null');
    });

    it('keeps categoryId above 2^53 exact, in the raw JSON text, on create, read and list', async () => {
      for (const categoryId of ['9007199254740993', '9223372036854775807', '-9223372036854775808']) {
        const reply = await call(base, '/pets', {
          method: 'POST',
          body: `{"name":"Big","categoryId":${categoryId}}`,
        });
        expect(reply.status, reply.text).toBe(201);
        expect(reply.text).toContain(`"categoryId":${categoryId}`);
        const id = /"id":(\d+)/.exec(reply.text)?.[1];
        expect((await call(base, `/pets/${id}`)).text).toContain(`"categoryId":${categoryId}`);
        const row = await server.database.prisma.pet.findUniqueOrThrow({ where: { id: BigInt(id ?? 0) } });
        expect(row.categoryId).toBe(BigInt(categoryId));
      }
    });

    it.each([
      ['a missing name', '{"categoryId":1}', /^name: is required$/],
      ['a missing categoryId', '{"name":"Rex"}', /^categoryId: is required$/],
      ['both missing', '{}', /name: is required; categoryId: is required/],
      ['an empty name', '{"name":"","categoryId":1}', /^name: must not be empty$/],
      [
        'a blank name',
        '{"name":"   ","categoryId":1}',
        /^name: must contain a visible character, not only whitespace or control characters$/,
      ],
      ['a name too long', `{"name":"${'x'.repeat(256)}","categoryId":1}`, /^name: must be at most 255/],
      ['a numeric name', '{"name":5,"categoryId":1}', /^name: must be a string$/],
      ['a NUL in the name', '{"name":"a\\u0000b","categoryId":1}', /^name: must be valid Unicode/],
      ['a lone surrogate in the name', '{"name":"a\\ud800b","categoryId":1}', /^name: must be valid Unicode/],
      [
        'a string categoryId',
        '{"name":"Rex","categoryId":"1"}',
        /^categoryId: must be an integer \(int64\)$/,
      ],
      ['a fractional categoryId', '{"name":"Rex","categoryId":1.5}', /^categoryId: must be an integer/],
      ['a null categoryId', '{"name":"Rex","categoryId":null}', /^categoryId: must be an integer/],
      [
        'a categoryId above int64',
        '{"name":"Rex","categoryId":9223372036854775808}',
        /^categoryId: must be an integer between/,
      ],
      [
        'a categoryId below int64',
        '{"name":"Rex","categoryId":-9223372036854775809}',
        /^categoryId: must be an integer between/,
      ],
      [
        'an unknown status',
        '{"name":"Rex","categoryId":1,"status":"lost"}',
        /^status: must be one of available, pending, sold$/,
      ],
      ['a null status', '{"name":"Rex","categoryId":1,"status":null}', /^status: must be one of/],
      ['a client-chosen id', '{"id":999,"name":"Rex","categoryId":1}', /^unknown field "id"$/],
      ['a misspelt field', '{"name":"Rex","categoryId":1,"stauts":"sold"}', /^unknown field "stauts"$/],
      ['a JSON array', '[{"name":"Rex","categoryId":1}]', /^must be a JSON object$/],
      ['a JSON string', '"Rex"', /^must be a JSON object$/],
      ['JSON null', 'null', /^must be a JSON object$/],
    ])('refuses %s with 400 validation_failed and stores nothing', async (_case, body, message) => {
      const before = await server.database.prisma.pet.count();
      const reply = await call(base, '/pets', { method: 'POST', body });
      expectError(reply, 400, 'validation_failed');
      expect((reply.body as { message: string }).message).toMatch(message);
      expect(await server.database.prisma.pet.count()).toBe(before);
    });

    it.each([
      '{"name":"Rex",',
      '{name:"Rex"}',
      "{'name':'Rex'}",
      '{"name":"Rex","categoryId":1}}',
      'undefined',
    ])('refuses malformed JSON %j with 400 malformed_json', async (body) => {
      expectError(await call(base, '/pets', { method: 'POST', body }), 400, 'malformed_json');
    });

    it('refuses an empty or absent body with 400', async () => {
      expectError(await call(base, '/pets', { method: 'POST', body: '' }), 400, 'validation_failed');
      expectError(await call(base, '/pets', { method: 'POST' }), 400, 'validation_failed');
    });

    it('refuses a body that is not UTF-8 with 400', async () => {
      const reply = await call(base, '/pets', {
        method: 'POST',
        body: new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]),
        headers: { 'content-type': 'application/json' },
      });
      expectError(reply, 400, 'malformed_json');
    });

    it.each([
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/json; charset=latin1',
    ])('refuses Content-Type %j with 415', async (contentType) => {
      const reply = await call(base, '/pets', {
        method: 'POST',
        body: '{"name":"Rex","categoryId":1}',
        headers: { 'content-type': contentType },
      });
      expectError(reply, 415, 'unsupported_media_type');
    });

    it('refuses a JSON body sent without any Content-Type with 415', async () => {
      const reply = await rawCall(base, '/pets', {
        method: 'POST',
        headers: { authorization: 'Bearer test-key-0123456789abcdef', 'content-length': '29' },
        body: '{"name":"Rex","categoryId":1}',
      });
      expectError(reply, 415, 'unsupported_media_type');
    });

    it('accepts application/json with charset=utf-8 and +json types', async () => {
      for (const contentType of [
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'application/merge-patch+json',
      ]) {
        const reply = await call(base, '/pets', {
          method: 'POST',
          body: '{"name":"Rex","categoryId":1}',
          headers: { 'content-type': contentType },
        });
        expect(reply.status, contentType).toBe(201);
      }
    });

    it('refuses a body over 64 KiB with 413', async () => {
      const body = `{"name":"${'x'.repeat(70 * 1024)}","categoryId":1}`;
      expectError(await call(base, '/pets', { method: 'POST', body }), 413, 'payload_too_large');
    });

    it('keeps names exactly as sent', async () => {
      for (const name of [
        '  spaced  ',
        '\ufeffbyte order mark',
        'Müsli 🐶',
        '名前',
        'quote " and \\ backslash',
        'x'.repeat(255),
      ]) {
        const pet = await create({ name, categoryId: 1 });
        expect(pet.name).toBe(name);
        const read = PetSchema.parse((await call(base, `/pets/${pet.id}`)).body);
        expect(read.name).toBe(name);
      }
    });

    it('loses nothing under 50 concurrent creates: ids unique, every pet readable', async () => {
      const names = Array.from({ length: 50 }, (_, i) => `burst-${kind}-${i}`);
      const pets = await Promise.all(names.map((name) => create({ name, categoryId: 42 })));
      expect(new Set(pets.map((pet) => pet.id)).size).toBe(50);
      for (const pet of pets) {
        expect(PetSchema.parse((await call(base, `/pets/${pet.id}`)).body)).toEqual(pet);
      }
    });
  });

  describe('getPet: GET /v1/pets/{petId} (deprecated)', () => {
    const expectDeprecationHeaders = (headers: Headers) => {
      expect(headers.get('deprecation')).toBe('@1795219200');
      expect(headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
    };

    it('returns 200 with the Pet and the deprecation headers', async () => {
      const created = await create({ name: 'Lassie', categoryId: 9, status: 'pending' });
      const reply = await call(base, `/pets/${created.id}`);
      expect(reply.status).toBe(200);
      expect(PetSchema.parse(reply.body)).toEqual(created);
      expectDeprecationHeaders(reply.headers);
    });

    it('returns 404 pet_not_found for an id no pet has', async () => {
      const reply = await call(base, '/pets/9223372036854775807');
      expectError(reply, 404, 'pet_not_found');
      expectDeprecationHeaders(reply.headers);
    });

    it.each([
      'abc',
      '0',
      '-1',
      '1.5',
      '1e-3',
      '9223372036854775808',
      '99999999999999999999999',
      '%20',
      '0x10',
    ])('returns 400 validation_failed for petId %j, which is not a positive int64', async (petId) => {
      const reply = await call(base, `/pets/${petId}`);
      expectError(reply, 400, 'validation_failed');
      expect((reply.body as { message: string }).message).toMatch(/^petId: must be/);
      expectDeprecationHeaders(reply.headers);
    });

    it('puts the deprecation headers on its 401 and 405 responses too', async () => {
      expectDeprecationHeaders((await call(base, '/pets/1', { apiKey: null })).headers);
      expectDeprecationHeaders((await call(base, '/pets/1', { method: 'DELETE' })).headers);
    });

    it('does not mark the other operations deprecated', async () => {
      const reply = await call(base, '/pets');
      expect(reply.headers.get('deprecation')).toBeNull();
      expect(reply.headers.get('sunset')).toBeNull();
    });
  });

  describe('stability level: Petstore-Stability on every response of a REST operation', () => {
    const level = (reply: { headers: Headers }) => reply.headers.get('petstore-stability');

    it("names the operation's level in the contract on successes and errors alike", async () => {
      const created = await create({ name: 'Level', categoryId: 1 });
      const { listPets, createPet, getPet } = contract;
      for (const [op, status, reply] of [
        [listPets, 200, await call(base, '/pets')],
        [getPet, 200, await call(base, `/pets/${created.id}`)],
        [listPets, 400, await call(base, '/pets?limit=0')],
        [createPet, 400, await call(base, '/pets', { method: 'POST', body: '{' })],
        [listPets, 401, await call(base, '/pets', { apiKey: null })],
        [createPet, 401, await call(base, '/pets', { method: 'POST', body: '{}', apiKey: null })],
        [getPet, 404, await call(base, '/pets/9223372036854775807')],
      ] as const) {
        expect(reply.status, `${op.id} ${status}`).toBe(status);
        expect(level(reply), `${op.id} ${status}`).toBe(op.stability);
      }
    });

    it('names the level of the path on a 405 and OPTIONS (both operations of /pets are stable)', async () => {
      expect([contract.listPets.stability, contract.createPet.stability]).toEqual(['stable', 'stable']);
      const refused = await call(base, '/pets', { method: 'DELETE' });
      expect(refused.status).toBe(405);
      expect(level(refused)).toBe('stable');
      expect(level(await call(base, '/pets', { method: 'OPTIONS' }))).toBe('stable');
    });

    it("is not sent on an answer that is no operation's (an unknown path)", async () => {
      const unknown = await call(base, '/store/orders');
      expect(unknown.status).toBe(404);
      expect(level(unknown)).toBeNull();
    });
  });

  describe('server-level errors are Error bodies too', () => {
    it('an unknown path is 404 route_not_found, inside and outside /v1', async () => {
      expectError(await call(base, '/store/orders'), 404, 'route_not_found');
      expectError(await call(base, '/pets/1/owner'), 404, 'route_not_found');
      expectError(await call(base.replace(/\/v1$/, ''), '/', { apiKey: null }), 404, 'route_not_found');
    });

    it('HEAD answers every GET with its status and headers, errors included (RFC 9110 section 9.3.2)', async () => {
      const key = { authorization: `Bearer ${TEST_API_KEY}` };
      for (const [path, headers] of [
        ['/nope', key],
        ['/pets?limit=0', key],
        ['/pets/999999999', key],
        ['/pets/abc', key],
        ['/pets?limit=2', key],
        ['/pets', {}],
      ] as const) {
        const get = await rawSend(base, path, { headers });
        const head = await rawSend(base, path, { method: 'HEAD', headers });
        expect(head.status, path).toBe(get.status);
        for (const name of ['content-length', 'content-type', 'cache-control', 'allow', 'www-authenticate'])
          expect(head.headers.get(name), `${path}: ${name}`).toBe(get.headers.get(name));
      }
    });

    it("the other transports' paths are spelt exactly too (tRPC's, MCP's)", async () => {
      // Express matches a mount path whatever its case, and tRPC's adapter names a procedure by the last segment.
      for (const path of ['/TRPC/pets.list', '/Trpc/pets.list', '/MCP']) {
        expectError(await call(base, path), 404, 'route_not_found');
      }
      // Under the endpoint itself, every answer is tRPC's (its client reads it), the Error body inside.
      for (const path of ['/trpc/x/pets.list', '/trpc//pets.list']) {
        const answer = await call(base, path);
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({
          error: { json: { data: { httpStatus: 404, error: { code: 'route_not_found', status: 404 } } } },
        });
      }
      expect((await call(base, '/trpc/pets.list')).status).toBe(200);
    });

    it('GET / (no /v1) is a 404 Error body whose message points to /v1 and /docs', async () => {
      const root = await call(base.replace(/\/v1$/, ''), '/', { apiKey: null });
      expectError(root, 404, 'route_not_found');
      expect((root.body as { message: string }).message).toBe(
        'no route for GET /: the API is under /v1 (GET /v1/pets with an API key); its documentation is at /docs and /v1/openapi.json',
      );
      const unknown = await call(base, '/store/orders');
      expect((unknown.body as { message: string }).message).toBe('no route for GET /v1/store/orders');
    });

    it('an unsupported method is 405 with Allow', async () => {
      for (const [method, path, allow] of [
        ['DELETE', '/pets', 'GET, HEAD, POST, OPTIONS'],
        ['PUT', '/pets', 'GET, HEAD, POST, OPTIONS'],
        ['PATCH', '/pets/1', 'GET, HEAD, OPTIONS'],
        ['POST', '/pets/1', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const reply = await call(base, path, { method });
        expectError(reply, 405, 'method_not_allowed');
        expect(reply.headers.get('allow')).toBe(allow);
      }
    });

    it('a path that is not valid percent-encoding is 400, not 500', async () => {
      const reply = await rawCall(base, '/pets/%E0%A4%A', {
        headers: { authorization: 'Bearer test-key-0123456789abcdef' },
      });
      expectError(reply, 400, 'validation_failed');
    });

    it('echoes a sane X-Request-Id and makes one otherwise', async () => {
      expect(
        (await call(base, '/pets', { headers: { 'x-request-id': 'abc-123' } })).headers.get('x-request-id'),
      ).toBe('abc-123');
      expect(
        (await call(base, '/pets', { headers: { 'x-request-id': 'bad id\u00e9' } })).headers.get(
          'x-request-id',
        ),
      ).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});

describe.each(DATABASE_KINDS)('listPets: GET /v1/pets on %s', (kind) => {
  let server: TestServer;
  let base: string;
  const statuses = ['available', 'pending', 'sold', null] as const;

  beforeAll(async () => {
    server = await startTestServer(kind, 'list');
    base = server.baseUrl;
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    await server.database.prisma.pet.deleteMany();
  });

  /** 120 pets cycling through the statuses (and no status), created in id order. */
  const seed = async (count = 120) => {
    for (let i = 0; i < count; i++) {
      await server.database.prisma.pet.create({
        data: { name: `pet-${i}`, categoryId: BigInt(i), status: statuses[i % statuses.length] },
      });
    }
    return server.database.prisma.pet.findMany({ orderBy: { id: 'asc' } });
  };

  it('returns a bare JSON array, [] when there are no pets', async () => {
    const reply = await call(base, '/pets');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('[]');
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('returns 20 pets by default, ordered by id ascending', async () => {
    const rows = await seed();
    const reply = await call(base, '/pets');
    expect(reply.status).toBe(200);
    const pets = PetsSchema.parse(reply.body);
    expect(pets.map((pet) => pet.id)).toEqual(rows.slice(0, 20).map((row) => row.id));
  });

  it.each([1, 7, 100])('returns at most limit=%i pets', async (limit) => {
    const rows = await seed();
    const pets = PetsSchema.parse((await call(base, `/pets?limit=${limit}`)).body);
    expect(pets.map((pet) => pet.id)).toEqual(rows.slice(0, limit).map((row) => row.id));
  });

  it('filters by status, keeping the id order, and leaves status absent for pets without one', async () => {
    const rows = await seed();
    for (const status of ['available', 'pending', 'sold'] as const) {
      const pets = PetsSchema.parse((await call(base, `/pets?status=${status}&limit=100`)).body);
      const expected = rows.filter((row) => row.status === status).map((row) => row.id);
      expect(pets.map((pet) => pet.id)).toEqual(expected);
      expect(pets.every((pet) => pet.status === status)).toBe(true);
    }
    const all = (await call(base, '/pets?limit=4')).body as Record<string, unknown>[];
    expect(all.map((pet) => 'status' in pet)).toEqual([true, true, true, false]);
  });

  it.each([
    ['limit=0', /^limit: must be an integer between 1 and 100$/],
    ['limit=101', /^limit: must be an integer between 1 and 100$/],
    ['limit=-1', /^limit: must be an integer between 1 and 100$/],
    ['limit=1.5', /^limit: must be an integer between 1 and 100$/],
    ['limit=abc', /^limit: must be an integer between 1 and 100$/],
    ['limit=', /^limit: must be an integer between 1 and 100$/],
    ['limit=5e-1', /^limit: must be an integer between 1 and 100$/],
    ['limit=1&limit=2', /^limit: must be given at most once$/],
    ['status=lost', /^status: must be one of available, pending, sold$/],
    ['status=AVAILABLE', /^status: must be one of available, pending, sold$/],
    ['status=sold&status=pending', /^status: must be given at most once$/],
    ['offset=20', /^unknown query parameter "offset"$/],
    ['limit[a]=1', /^unknown query parameter "limit\[a\]"$/],
  ])('refuses ?%s with 400 validation_failed', async (query, message) => {
    const reply = await call(base, `/pets?${query}`);
    expectError(reply, 400, 'validation_failed');
    expect((reply.body as { message: string }).message).toMatch(message);
  });

  it('accepts the bounds; refuses zero-padded integers, as JSON does', async () => {
    await seed(3);
    for (const query of ['limit=1', 'limit=100', 'status=sold', 'limit=5&status=available']) {
      expect((await call(base, `/pets?${query}`)).status, query).toBe(200);
    }
    expectError(await call(base, '/pets?limit=007'), 400, 'validation_failed');
  });
});

describe('unexpected failures', () => {
  it('an internal failure is a 500 Error body without details, and the server keeps serving', async () => {
    const server = await startTestServer('pglite', 'broken');
    try {
      // A statement naming a column that is not there (42703) is a bug of ours; a missing table is a database
      // restored empty, which answers 503 (db/database-errors.ts).
      await server.database.prisma.$executeRawUnsafe('ALTER TABLE pets RENAME COLUMN name TO name_gone');
      const reply = await call(server.baseUrl, '/pets');
      expectError(reply, 500, 'internal_error');
      expect(reply.text).not.toMatch(/name_gone|prisma|column/i);
      await server.database.prisma.$executeRawUnsafe('ALTER TABLE pets RENAME COLUMN name_gone TO name');
      expect((await call(server.baseUrl, '/pets')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
