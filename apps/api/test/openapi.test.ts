// Live responses of the running API checked against the OpenAPI document it serves: every operation, its
// success and its documented errors. A response whose status, headers or body the document does not describe
// fails here, so the document cannot drift from the service.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenApiJson, stringifyJson } from '@petstore/schema';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { parseConfig } from '../src/config.js';
import { createDocsRouter, publicServers } from '../src/http/docs.js';
import { idempotencyKeyHash, idempotencyLockId } from '../src/idempotency/idempotency.js';
import { type RawRequest, sendRaw } from './reliability/raw-http.js';
import { atStartOfRateWindow, call, rawCall } from './support/http.js';
import { responseValidator } from './support/response-validator.js';
import { openSse } from './support/sse.js';
import {
  DATABASE_KINDS,
  startTestServer,
  TEST_API_KEY,
  TEST_CALLER,
  type TestServer,
  UNREACHABLE_DATABASE,
} from './support/test-server.js';

// Some tests start servers of their own: the timeout says so.
vi.setConfig({ testTimeout: timeouts.server });

// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path
type Json = Record<string, any>;

describe.each(DATABASE_KINDS)('OpenAPI document vs live responses on %s', (kind) => {
  let server: TestServer;
  let base: string;
  let document: Json;

  /** The validator every test server of this file checks its answers with: it records what it saw. */
  let checker: Awaited<ReturnType<typeof responseValidator>>;

  beforeAll(async () => {
    checker = await responseValidator();
    server = await startTestServer(kind, 'openapi');
    base = server.baseUrl;
    const reply = await call(base, '/openapi.json', { apiKey: null });
    document = JSON.parse(reply.text);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** One request; the server checks every answer against the document (support/response-validator.ts). */
  const send = (method: string, path: string, options: Parameters<typeof call>[2] = {}) =>
    call(base, path, { ...options, method });
  const newPet = (fields: Record<string, unknown>) => stringifyJson(fields);

  it('serves the generated document publicly, without an API key', async () => {
    const reply = await call(base, '/openapi.json', { apiKey: null });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    // With no public URL configured, `servers` is the absolute URL this request reached: Prism and client
    // generators ignore a relative `/v1`.
    const own = [{ url: base, description: 'The server that serves this document' }];
    expect(reply.text).toBe(`${createOpenApiJson({ servers: own }, 2)}\n`);
    expect(document.servers).toEqual(own);
  });

  it('createPet: 201, and its documented errors 400, 401, 413, 415', async () => {
    const created = await send('POST', '/pets', {
      body: newPet({ name: 'Rex', categoryId: 9007199254740993n, status: 'available' }),
    });
    expect(created.status).toBe(201);
    expect((await send('POST', '/pets', { body: newPet({ name: 'Tom', categoryId: 2 }) })).status).toBe(201);
    expect((await send('POST', '/pets', { body: newPet({ name: 'Rex' }) })).status).toBe(400);
    expect(
      (await send('POST', '/pets', { body: newPet({ name: 'Rex', categoryId: 1, id: 3 }) })).status,
    ).toBe(400);
    expect((await send('POST', '/pets', { body: '{"name":' })).status).toBe(400);
    expect((await send('POST', '/pets', { body: '' })).status).toBe(400);
    expect(
      (await send('POST', '/pets', { body: newPet({ name: 'Rex', categoryId: 1 }), apiKey: null })).status,
    ).toBe(401);
    const huge = newPet({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
    expect((await send('POST', '/pets', { body: huge })).status).toBe(413);
    const text = { body: 'name=Rex', headers: { 'content-type': 'text/plain' } };
    expect((await send('POST', '/pets', text)).status).toBe(415);
  });

  it('createPet with an Idempotency-Key: 201 replayed, 422 for another body, 409 while the key is held', async () => {
    const headers = { 'idempotency-key': `openapi-${kind}` };
    const pet = newPet({ name: 'Keyed', categoryId: 1 });
    expect((await send('POST', '/pets', { body: pet, headers })).status).toBe(201);
    expect((await send('POST', '/pets', { body: pet, headers })).status).toBe(201);
    const other = newPet({ name: 'Other', categoryId: 1 });
    expect((await send('POST', '/pets', { body: other, headers })).status).toBe(422);
    expect((await send('POST', '/pets', { body: pet, headers: { 'idempotency-key': '' } })).status).toBe(400);
    // 409 needs a second connection holding the key's lock: PostgreSQL only. PGlite runs one statement at a
    // time, so it never answers 409; the checker is shared by the file, and this suite runs on PostgreSQL first.
    if (kind === 'postgresql') {
      await server.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${idempotencyLockId(idempotencyKeyHash(TEST_CALLER, 'held'))})`;
        const held = { 'idempotency-key': 'held' };
        expect((await send('POST', '/pets', { body: pet, headers: held })).status).toBe(409);
      });
    }
  });

  it('listPets: 200 with pets, filtered and limited, and 400, 401', async () => {
    const all = await send('GET', '/pets');
    expect(all.status).toBe(200);
    expect((all.body as unknown[]).length).toBeGreaterThanOrEqual(2);
    expect((await send('GET', '/pets?status=available&limit=1')).status).toBe(200);
    expect((await send('GET', '/pets?status=sold')).status).toBe(200);
    for (const query of ['limit=0', 'limit=101', 'status=lost', 'offset=20']) {
      expect((await send('GET', `/pets?${query}`)).status).toBe(400);
    }
    expect((await send('GET', '/pets', { apiKey: null })).status).toBe(401);
    expect((await send('GET', '/pets', { apiKey: 'not-a-valid-key-at-all' })).status).toBe(401);
  });

  it('getPet: 200 and 400, 401, 404, each with the deprecation headers', async () => {
    const created = await send('POST', '/pets', { body: newPet({ name: 'Kit', categoryId: 5 }) });
    const { id } = created.body as { id: bigint };
    expect((await send('GET', `/pets/${id}`)).status).toBe(200);
    expect((await send('GET', '/pets/abc')).status).toBe(400);
    expect((await send('GET', '/pets/9223372036854775807')).status).toBe(404);
    expect((await send('GET', `/pets/${id}`, { apiKey: null })).status).toBe(401);
  });

  it('streamPetEvents: 200 (the stream, checked event by event), 400, 401, and 410 past the retention', async () => {
    const stream = await openSse(`${base}/pets/events?since=0`, { authorization: `Bearer ${TEST_API_KEY}` });
    try {
      expect(stream.status).toBe(200);
      await send('POST', '/pets', { body: newPet({ name: 'Streamed', categoryId: 1 }) });
      expect((await stream.take(1)).length).toBe(1);
    } finally {
      stream.close();
    }
    expect((await send('GET', '/pets/events?since=abc')).status).toBe(400);
    expect((await send('GET', '/pets/events', { apiKey: null })).status).toBe(401);
    // As if the events up to 1000 had been pruned: a position before that has lost events.
    await server.database.sql.rows('UPDATE pet_event_horizon SET pruned_through = 1000');
    try {
      expect((await send('GET', '/pets/events?since=1')).status).toBe(410);
    } finally {
      await server.database.sql.rows('UPDATE pet_event_horizon SET pruned_through = 0');
    }
  });

  it("the edge's and the preconditions' answers on every operation: 400, 415, 417, 431, 412 and 304", async () => {
    const { port } = new URL(base);
    const raw = async (method: string, target: string, headers: [string, string][], body?: string) => {
      const request: RawRequest = {
        method,
        target: `/v1${target}`,
        headers: [['Host', '127.0.0.1'], ['Authorization', `Bearer ${TEST_API_KEY}`], ...headers],
      };
      if (body !== undefined) {
        request.body = Buffer.from(body);
        if (!headers.some(([name]) => /^transfer-encoding$/i.test(name)))
          request.headers.push(['Content-Length', String(request.body.length)]);
      }
      const outcome = await sendRaw('127.0.0.1', Number(port), request, timeouts.server);
      if (outcome.kind !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
      return outcome.response.status;
    };
    const created = await send('POST', '/pets', { body: newPet({ name: 'Edge', categoryId: 1 }) });
    const { id } = created.body as { id: bigint };
    const pet = newPet({ name: 'Rex', categoryId: 1 });
    const json: [string, string] = ['Content-Type', 'application/json'];
    for (const [method, path, body] of [
      ['GET', '/pets', undefined],
      ['POST', '/pets', pet],
      ['GET', `/pets/${id}`, undefined],
      ['GET', '/pets/events?since=0', undefined],
    ] as const) {
      const where = `${method} ${path}`;
      const withBody = body === undefined ? [] : [json];
      expect(await raw(method, path, [...withBody, ['Petstore-Read-After', 'nowhere']], body), where).toBe(
        400,
      );
      expect(await raw(method, path, [...withBody, ['Transfer-Encoding', 'gzip']], body), where).toBe(415);
      expect(await raw(method, path, [...withBody, ['Expect', 'a-pony']], body), where).toBe(417);
      const many = Array.from({ length: 120 }, (_, index): [string, string] => [`X-Field-${index}`, 'x']);
      expect(await raw(method, path, [...withBody, ...many], body), where).toBe(431);
      const ifMatch = { 'if-match': '"no-such-tag"' };
      expect((await send(method, path, { body, headers: ifMatch })).status, where).toBe(412);
      const ifNoneMatch = { 'if-none-match': '*' };
      expect((await send(method, path, { body, headers: ifNoneMatch })).status, where).toBe(
        method === 'GET' ? 304 : 412,
      );
    }
  });

  it('429 with Retry-After on every operation once the rate limit is spent', async () => {
    const limited = await startTestServer(kind, 'openapi-429', { rateLimitPerMinute: 1 });
    try {
      await atStartOfRateWindow();
      const pet = newPet({ name: 'Rex', categoryId: 1 });
      expect((await call(limited.baseUrl, '/pets', { method: 'POST', body: pet })).status).toBe(201);
      for (const [method, path, body] of [
        ['GET', '/pets', undefined],
        ['POST', '/pets', pet],
        ['GET', '/pets/1', undefined],
        ['GET', '/pets/events', undefined],
      ] as const) {
        const reply = await call(limited.baseUrl, path, { method, body });
        expect(reply.status, `${method} ${path}`).toBe(429);
      }
    } finally {
      await limited.close();
    }
  });

  it('503 with Retry-After on every operation while the database is unreachable', async () => {
    const unreachable = await startTestServer(kind, 'openapi-503', { databaseUrl: UNREACHABLE_DATABASE });
    try {
      for (const [method, path, body] of [
        ['GET', '/pets', undefined],
        ['POST', '/pets', newPet({ name: 'Rex', categoryId: 1 })],
        ['GET', '/pets/1', undefined],
        ['GET', '/pets/events', undefined],
      ] as const) {
        const reply = await call(unreachable.baseUrl, path, { method, body });
        expect(reply.status, `${method} ${path}`).toBe(503);
      }
    } finally {
      await unreachable.close();
    }
  });

  // 500 cannot be provoked from outside; 408 is written on the socket by the server's timeout, with no response
  // object for the checker to see (server-limits.test.ts holds it: its Error body and headers).
  it('covered every documented status of every operation (500 and 408 aside)', () => {
    const documented = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Json).flatMap((operation: Json) =>
        Object.keys(operation.responses)
          .filter((status) => status !== '500' && status !== '408')
          .map((status) => `${operation.operationId} ${status}`),
      ),
    );
    expect([...checker.seen].sort()).toEqual(documented.sort());
  });

  it('answers other methods on the documentation routes with 405 and unknown assets with 404', async () => {
    const post = await call(base, '/openapi.json', { method: 'POST', apiKey: null });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const origin = base.replace(/\/v1$/, '');
    const missing = await rawCall(origin, '/docs/assets/../../package.json');
    expect(missing.status).toBe(404);
    expect((await rawCall(origin, '/docs/assets/nope.js')).status).toBe(404);
    const bundle = await fetch(`${origin}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    await bundle.arrayBuffer();
  });
});

describe('OpenAPI servers from configuration', () => {
  const config = {
    productionUrl: 'https://api.petstore.example/v1',
    stagingUrl: 'https://staging.petstore.example/v1',
  };

  it('lists both environments, the running one first, and none in local development', () => {
    expect(publicServers({ ...config, appEnv: 'production' })).toEqual([
      { url: config.productionUrl, description: 'production' },
      { url: config.stagingUrl, description: 'staging' },
    ]);
    expect(publicServers({ ...config, appEnv: 'staging' })?.map((server) => server.description)).toEqual([
      'staging',
      'production',
    ]);
    expect(
      publicServers({ appEnv: undefined, productionUrl: undefined, stagingUrl: undefined }),
    ).toBeUndefined();
  });

  it("reads them from PETSTORE_PRODUCTION_URL / PETSTORE_STAGING_URL (the client presets' names)", () => {
    const parsed = parseConfig({
      APP_ENV: 'staging',
      API_KEYS: 'staging-key-0123456789abcdef', // required whenever APP_ENV is set
      PETSTORE_PRODUCTION_URL: `${config.productionUrl}/`,
      PETSTORE_STAGING_URL: config.stagingUrl,
    });
    expect(parsed).toMatchObject({ ...config, appEnv: 'staging' });
    for (const url of [
      'ftp://api.example/v1',
      'https://api.example/v2',
      'https://api.example/v1?x=1',
      'v1',
    ]) {
      expect(() => parseConfig({ PETSTORE_STAGING_URL: url })).toThrow(
        /PETSTORE_STAGING_URL: must be an http\(s\) URL/,
      );
    }
  });

  it('serves them in /v1/openapi.json, and lets /docs call them', async () => {
    const app = express().use(createDocsRouter({ servers: publicServers({ ...config, appEnv: 'staging' }) }));
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const document = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as Json;
      expect(document.servers.map((entry: Json) => entry.url)).toEqual([
        config.stagingUrl,
        config.productionUrl,
      ]);
      const page = await fetch(`${origin}/docs`);
      expect(page.headers.get('content-security-policy')).toContain(
        "connect-src 'self' https://staging.petstore.example https://api.petstore.example;",
      );
      await page.text();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
