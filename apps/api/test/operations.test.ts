import { spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { applyPendingMigrations, listMigrationNames, migrateIfNeeded } from '@petstore/migrations';
import { contract, type OperationContract, trpcPath } from '@petstore/schema';
import { SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { createApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { createApiKeysService } from '../src/keys/api-keys.service.js';
import { createLogger } from '../src/logger.js';
import { MCP_PATH } from '../src/mcp/mcp.js';
import { TRPC_MOUNT_PATH } from '../src/trpc/trpc.express.js';
import { sendRaw } from './reliability/raw-http.js';
import { atStartOfRateWindow, call, expectError } from './support/http.js';
import { openMigratedMemoryDatabase } from './support/memory-database.js';
import { rawSend } from './support/raw-send.js';
import { routedPaths } from './support/routed-paths.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import {
  DATABASE_KINDS,
  FOURTH_API_KEY,
  OTHER_API_KEY,
  startTestServer,
  TEST_API_KEY,
  type TestServer,
  THIRD_API_KEY,
} from './support/test-server.js';

// Tests here start servers and CLI processes (each compiling TypeScript at start-up): the timeout says so.
vi.setConfig({ testTimeout: 2 * timeouts.process });

const logger = createLogger('silent');

async function listen(
  app: ReturnType<typeof createApp>,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(DATABASE_KINDS)('operations on %s', (kind) => {
  let server: TestServer;
  let root: string;
  beforeAll(async () => {
    server = await startTestServer(kind, 'ops');
    root = server.baseUrl.replace(/\/v1$/, '');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('GET /healthz and /readyz answer without a key', async () => {
    const health = await call(root, '/healthz', { apiKey: null });
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await call(root, '/readyz', { apiKey: null });
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('sends security headers', async () => {
    const reply = await call(server.baseUrl, '/pets');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(reply.headers.get('x-powered-by')).toBeNull();
  });

  it('sends no CORS headers unless origins are configured', async () => {
    const reply = await call(server.baseUrl, '/pets', { headers: { origin: 'https://app.example.com' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  describe('issued API keys', () => {
    it('work on both transports, are stored only as a digest, and stop working once revoked', async () => {
      const keys = createApiKeysService(server.database.prisma);
      const issued = await keys.create('partner team');
      expect(issued.key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
      expect((await call(server.baseUrl, '/pets', { apiKey: issued.key })).status).toBe(200);
      const trpc = await fetch(`${server.baseUrl}/trpc/pets.list`, {
        headers: { authorization: `Bearer ${issued.key}` },
      });
      expect(trpc.status).toBe(200);

      const stored = await server.database.prisma.$queryRaw<
        Record<string, unknown>[]
      >`SELECT * FROM api_keys`;
      expect(JSON.stringify(stored, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(
        issued.key,
      );
      expect((await keys.list()).find((key) => key.id === issued.id)).toMatchObject({
        name: 'partner team',
        prefix: issued.key.slice(0, 12),
        revokedAt: null,
      });

      await keys.revoke(issued.id);
      expectError(await call(server.baseUrl, '/pets', { apiKey: issued.key }), 401, 'unauthorized');
      const revokedTrpc = await fetch(`${server.baseUrl}/trpc/pets.list`, {
        headers: { authorization: `Bearer ${issued.key}` },
      });
      expect(revokedTrpc.status).toBe(401);
    });
  });
});

describe('readiness', () => {
  it('/readyz is 503 when the database lacks a migration this build expects', async () => {
    const database = await openMigratedMemoryDatabase(logger);
    const migrations = [...(await listMigrationNames()), '29991231000000_from_the_future'];
    const api = await listen(createApp({ sql: database.sql, logger, apiKeys: [TEST_API_KEY], migrations }));
    try {
      const reply = await call(api.baseUrl.replace(/\/v1$/, ''), '/readyz', { apiKey: null });
      expectError(reply, 503, 'service_unavailable');
      expect((reply.body as { message: string }).message).not.toContain('29991231000000_from_the_future');
    } finally {
      await api.close();
      await database.close();
    }
  });
});

describe('database unreachable', () => {
  let api: Awaited<ReturnType<typeof listen>>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // Nothing listens on this port: every query fails to connect.
    const database = await openDatabase({
      databaseUrl: 'postgresql://postgres@127.0.0.1:9/none',
      dataDir: '',
      logger,
    });
    api = await listen(
      createApp({
        sql: database.sql,
        logger,
        apiKeys: [TEST_API_KEY],
        migrations: [],
      }),
    );
    close = async () => {
      await api.close();
      await database.close();
    };
  });
  afterAll(async () => {
    await close?.();
  });

  it('answers 503 service_unavailable with Retry-After on REST, not 500', async () => {
    for (const [path, method, body] of [
      ['/pets', 'GET', undefined],
      ['/pets', 'POST', '{"name":"Rex","categoryId":1}'],
      ['/pets/1', 'GET', undefined],
    ] as const) {
      const reply = await call(api.baseUrl, path, { method, body });
      expectError(reply, 503, 'service_unavailable');
      expect(reply.headers.get('retry-after')).toBe('5');
    }
  });

  it('answers 503 on tRPC with the same Error body', async () => {
    const response = await fetch(`${api.baseUrl}/trpc/pets.list`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const shape = superjson.deserialize<{ data: { error: unknown } }>(
      ((await response.json()) as { error: never }).error,
    );
    expect(shape.data.error).toMatchObject({ code: 'service_unavailable', status: 503 });
  });

  it('keeps /healthz at 200 and reports /readyz 503', async () => {
    const root = api.baseUrl.replace(/\/v1$/, '');
    expect((await call(root, '/healthz', { apiKey: null })).status).toBe(200);
    expectError(await call(root, '/readyz', { apiKey: null }), 503, 'service_unavailable');
  });

  it('still checks the key first: no key is 401, not 503', async () => {
    expectError(await call(api.baseUrl, '/pets', { apiKey: null }), 401, 'unauthorized');
  });

  it('refuses a key that cannot be an issued key without asking the database; looks up psk_ keys', async () => {
    // 401, not 503: a wrong key costs no query (so floods of bad keys cannot load the database).
    expectError(await call(api.baseUrl, '/pets', { apiKey: 'wrong-key-0123456789abc' }), 401, 'unauthorized');
    expectError(
      await call(api.baseUrl, '/pets', { apiKey: 'psk_looks-issued-0123456789' }),
      503,
      'service_unavailable',
    );
  });
});

const OVERSIZED_BATCH_KEY = 'oversized-batch-key-0123456789';
const NO_CALL_BATCH_KEY = 'no-call-batch-key-0123456789';

describe('rate limiting (PostgreSQL, two instances sharing one database)', () => {
  let database: TestDatabase;
  const instances: Awaited<ReturnType<typeof listen>>[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('ratelimit');
    for (let i = 0; i < 2; i++) {
      const db = await openDatabase({ databaseUrl: database.url, dataDir: '', logger });
      if (i === 0) await applyPendingMigrations(db.migrationAdapter);
      const api = await listen(
        createApp({
          sql: db.sql,
          logger,
          apiKeys: [
            TEST_API_KEY,
            OTHER_API_KEY,
            THIRD_API_KEY,
            FOURTH_API_KEY,
            OVERSIZED_BATCH_KEY,
            NO_CALL_BATCH_KEY,
          ],
          migrations: [],
          rateLimitPerMinute: 4,
        }),
      );
      instances.push(api);
      closers.push(async () => {
        await api.close();
        await db.close();
      });
    }
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await database?.drop();
  });

  it('counts each key across instances and answers 429 rate_limited with Retry-After', async () => {
    const [a, b] = instances as [Awaited<ReturnType<typeof listen>>, Awaited<ReturnType<typeof listen>>];
    // 4 allowed per minute, spread over both instances. (A window boundary could reset the count mid-test;
    // the windows are a minute long, so retrying once covers that.)
    const attempt = async () => {
      const statuses = [];
      for (const api of [a, b, a, b, a]) statuses.push((await call(api.baseUrl, '/pets')).status);
      return statuses;
    };
    let statuses = await attempt();
    if (statuses.join() !== '200,200,200,200,429') statuses = await attempt();
    expect(statuses.slice(-1)).toEqual([429]);
    const limited = await call(b.baseUrl, '/pets');
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Another key has its own budget.
    expect((await call(a.baseUrl, '/pets', { apiKey: OTHER_API_KEY })).status).toBe(200);
    // Unauthenticated requests are refused before they are counted.
    expectError(await call(a.baseUrl, '/pets', { apiKey: null }), 401, 'unauthorized');
  });
  it('tells each admitted caller where it stands: RateLimit-Policy and RateLimit on 2xx and 429, REST and tRPC', async () => {
    const [a, b] = instances as [Awaited<ReturnType<typeof listen>>, Awaited<ReturnType<typeof listen>>];
    await atStartOfRateWindow();
    const key = { apiKey: THIRD_API_KEY };
    const list = superjson.serialize({ limit: 1 });
    const replies = [
      await call(a.baseUrl, '/pets', key),
      await call(b.baseUrl, `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify(list))}`, key),
      await call(a.baseUrl, '/pets/1', key),
      await call(b.baseUrl, '/no-such-route', key),
      await call(a.baseUrl, '/pets', key),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 404, 404, 429]);
    replies.forEach((reply, index) => {
      // draft-ietf-httpapi-ratelimit-headers: the quota per window, then the requests left and the seconds
      // until the window restores it.
      expect(reply.headers.get('ratelimit-policy')).toBe('"per-key";q=4;w=60');
      const fields = /^"per-key";r=(\d+);t=(\d+)$/.exec(reply.headers.get('ratelimit') ?? '');
      expect(fields, `RateLimit of reply ${index}`).not.toBeNull();
      const [, remaining, reset] = fields as unknown as [string, string, string];
      expect(Number(remaining)).toBe(Math.max(0, 3 - index));
      expect(Number(reset)).toBeGreaterThanOrEqual(1);
      expect(Number(reset)).toBeLessThanOrEqual(60);
      // On the 429, `t` is the Retry-After; on the others there is no Retry-After.
      expect(reply.headers.get('retry-after')).toBe(index === 4 ? reset : null);
    });
    // A caller refused before it is admitted (no key) learns nothing of anyone's quota.
    const anonymous = await call(a.baseUrl, '/pets', { apiKey: null });
    expect(anonymous.headers.get('ratelimit')).toBeNull();
  });
  it('charges a refused tRPC batch nothing: a client told r=2 still gets two calls (issue 35)', async () => {
    const [a, b] = instances as [Awaited<ReturnType<typeof listen>>, Awaited<ReturnType<typeof listen>>];
    await atStartOfRateWindow();
    const key = { apiKey: FOURTH_API_KEY };
    const batch = (calls: number) => {
      const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { json: { limit: 1 } }]));
      return `/trpc/${Array(calls).fill('pets.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
    };
    const remaining = (reply: { headers: Headers }) =>
      /;r=(\d+);/.exec(reply.headers.get('ratelimit') ?? '')?.[1];
    await call(a.baseUrl, '/pets', key);
    const told = await call(b.baseUrl, '/pets', key);
    expect(remaining(told)).toBe('2');
    const refused = await call(a.baseUrl, batch(3), key);
    expect(refused.status).toBe(429);
    expect(remaining(refused)).toBe('2');
    const admitted = await call(b.baseUrl, batch(2), key);
    expect(admitted.status).toBe(200);
    expect(remaining(admitted)).toBe('0');
  });
  it('charges a batch that runs no call as one request: OPTIONS, PUT, unknown procedures, the wrong method', async () => {
    const [a, b] = instances as [Awaited<ReturnType<typeof listen>>, Awaited<ReturnType<typeof listen>>];
    await atStartOfRateWindow();
    const key = { apiKey: NO_CALL_BATCH_KEY };
    const lists = `/trpc/pets.list,pets.list,pets.list?batch=1&input=${encodeURIComponent('{}')}`;
    const replies = [
      await call(a.baseUrl, lists, { ...key, method: 'OPTIONS' }),
      await call(b.baseUrl, lists, { ...key, method: 'PUT' }),
      await call(a.baseUrl, '/trpc/nope,nope,nope?batch=1', { ...key, method: 'DELETE' }),
      await call(b.baseUrl, lists, { ...key, method: 'POST', body: '{}' }), // queries sent as a mutation: 405
    ];
    expect(replies.map((reply) => reply.status)).toEqual([204, 405, 404, 405]);
    expect(replies.map((reply) => /;r=(\d+);/.exec(reply.headers.get('ratelimit') ?? '')?.[1])).toEqual([
      '3',
      '2',
      '1',
      '0',
    ]);
  });

  it('charges a batch over the 10-call cap as one refused request: its 400 names its real size', async () => {
    const [a, b] = instances as [Awaited<ReturnType<typeof listen>>, Awaited<ReturnType<typeof listen>>];
    await atStartOfRateWindow();
    const key = { apiKey: OVERSIZED_BATCH_KEY };
    for (const calls of [11, 30]) {
      const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { json: { limit: 1 } }]));
      const path = `/trpc/${Array(calls).fill('pets.list').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
      const refused = await call(a.baseUrl, path, key);
      expect(refused.status, `${calls} calls`).toBe(400);
      expect(refused.text, `${calls} calls`).toContain(`this one carries ${calls}`);
    }
    const next = await call(b.baseUrl, '/pets', key);
    expect(next.status).toBe(200);
    // Two refusals after admission, one each, then this list: 4 - 3.
    expect(next.headers.get('ratelimit')).toMatch(/;r=1;/);
  });
});

describe('CORS when origins are configured', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'cors', { corsOrigins: ['https://app.example.com'] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a preflight without a key and exposes the headers clients need', async () => {
    const preflight = await fetch(`${server.baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key,traceparent,tracestate',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const header of ['authorization', 'content-type', 'idempotency-key', 'traceparent', 'tracestate'])
      expect(allowed).toContain(header);
    const reply = await call(server.baseUrl, '/pets', { headers: { origin: 'https://app.example.com' } });
    const exposed = (reply.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    for (const header of [
      'location',
      'retry-after',
      'ratelimit',
      'ratelimit-policy',
      'deprecation',
      'sunset',
      'link',
      'petstore-stability',
      'traceresponse',
    ])
      expect(exposed).toContain(header);
    const other = await call(server.baseUrl, '/pets', { headers: { origin: 'https://evil.example.net' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  // What a browser page may send and read is what the served document says requests and answers carry: a header
  // the document declares but CORS does not list is invisible to browser code (it was Accept-Encoding on 415).
  it('allows every request header and exposes every response header the served document declares', async () => {
    const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { $ref?: string; name?: string; in?: string }[];
            responses: Record<string, { headers?: Record<string, unknown> }>;
          }
        >
      >;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    // Fetch's CORS-safelisted response headers, and those addressed to the browser or a proxy, not to page code
    // (the security headers, CORS's own, Vary, the decoding a browser does itself, a proxy's buffering hint).
    const SAFELISTED = [
      'cache-control',
      'content-language',
      'content-length',
      'content-type',
      'expires',
      'last-modified',
      'pragma',
      ...Object.keys(SECURITY_HEADER_CONTRACTS).map((name) => name.toLowerCase()),
      'access-control-allow-origin',
      'access-control-expose-headers',
      'vary',
      'content-encoding',
      'x-accel-buffering',
    ];
    const sent = new Set<string>();
    const answered = new Set<string>();
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        for (const parameter of operation.parameters ?? []) {
          const named =
            parameter.$ref === undefined
              ? parameter
              : document.components.parameters[parameter.$ref.split('/').at(-1) as string];
          if (named?.in === 'header') sent.add((named.name as string).toLowerCase());
        }
        for (const response of Object.values(operation.responses)) {
          for (const name of Object.keys(response.headers ?? {})) answered.add(name.toLowerCase());
        }
      }
    }
    const preflight = await fetch(`${server.baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    const reply = await call(server.baseUrl, '/pets', { headers: { origin: 'https://app.example.com' } });
    const exposed = (reply.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    expect([...sent].filter((name) => !allowed.includes(name))).toEqual([]);
    expect([...answered].filter((name) => !SAFELISTED.includes(name) && !exposed.includes(name))).toEqual([]);
  });

  it('keeps Vary: Origin on every answer that echoes an origin, tRPC successes and streams included', async () => {
    const origin = { origin: 'https://app.example.com' };
    const list = encodeURIComponent('{"json":{"limit":1}}');
    for (const [path, headers] of [
      ['/pets', origin],
      [`/trpc/pets.list?input=${list}`, origin],
      [
        `/trpc/pets.list?batch=1&input=${encodeURIComponent('{"0":{"json":{"limit":1}}}')}`,
        { ...origin, 'trpc-accept': 'application/jsonl' },
      ],
    ] as const) {
      const reply = await rawSend(server.baseUrl, path, {
        headers: { authorization: `Bearer ${TEST_API_KEY}`, ...headers },
      });
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get('access-control-allow-origin'), path).toBe('https://app.example.com');
      const vary = (reply.headers.get('vary') ?? '').toLowerCase().split(/, */);
      expect(vary, path).toContain('origin');
    }
    // HEAD is the GET it stands for, Vary included, also where tRPC's own handler answers (a probe found it lost).
    for (const path of [
      '/trpc/nope',
      `/trpc/pets.list,nope?batch=1&input=${encodeURIComponent('{"0":{"json":{"limit":1}}}')}`,
      `/trpc/pets.events?input=${encodeURIComponent('{"json":{}}')}`,
    ]) {
      const reply = await rawSend(server.baseUrl, path, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${TEST_API_KEY}`, ...origin },
      });
      const vary = (reply.headers.get('vary') ?? '').toLowerCase().split(/, */);
      expect(vary, `HEAD ${path}`).toContain('origin');
    }
  });

  it("names the server's methods and the conditional and MCP headers in a preflight; any other OPTIONS is the route's", async () => {
    const preflight = await fetch(`${server.baseUrl}/pets`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    // What the clients send: MCP's 2026-07-28 client names the method and tool in headers (Mcp-Method, Mcp-Name),
    // tRPC's streaming link asks for JSON lines (trpc-accept), an SSE client resumes with Last-Event-ID.
    for (const header of [
      'if-match',
      'if-none-match',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'trpc-accept',
      'last-event-id',
    ])
      expect(allowed, header).toContain(header);
    // Not a preflight: the route answers, with Allow and the key required, as without CORS.
    const options = await call(server.baseUrl, '/pets', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com' },
    });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(options.headers.get('petstore-stability')).toBe('stable');
    expect(options.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await call(server.baseUrl, '/pets', { method: 'OPTIONS', apiKey: null })).status).toBe(401);
    expect((await call(server.baseUrl, '/nope', { method: 'OPTIONS' })).status).toBe(404);
  });

  // Every routed path (the app's router, the contract's REST paths, every tRPC procedure), asked from an allowed and a
  // foreign origin with a preflight, a plain OPTIONS and the other methods. A preflight named the server's methods on
  // every path but /v1/mcp, lacked getPet's headers, and was 204 on /v1/mcp from a foreign origin (every other method
  // there is 403); a plain OPTIONS carried Access-Control-Allow-Methods. The route's own answer is the oracle: its
  // keyed OPTIONS without Origin (its Allow, its operation's headers).
  it("answers every path's preflight with the path's own Allow and headers, and no other answer with either", async () => {
    const port = Number(new URL(server.baseUrl).port);
    const send = async (method: string, path: string, headers: [string, string][]) => {
      const outcome = await sendRaw('127.0.0.1', port, {
        method,
        target: path,
        headers: [['Host', '127.0.0.1'], ...headers],
      });
      if (outcome.kind !== 'response') throw new Error(`${method} ${path}: ${outcome.kind}`);
      const { status, headers: fields, body } = outcome.response;
      const field = (name: string) => fields.get(name)?.join(', ') ?? null;
      const code =
        body.length > 0 && /^application\/json/.test(field('content-type') ?? '')
          ? (JSON.parse(body.toString()) as { code?: string }).code
          : undefined;
      return { status, code, field };
    };
    const key: [string, string] = ['Authorization', `Bearer ${TEST_API_KEY}`];
    const allowed = 'https://app.example.com';
    const paths = [
      ...routedPaths(server.app, '1'),
      ...(Object.values(contract) as OperationContract[]).flatMap(({ trpc }) =>
        trpc === undefined
          ? []
          : [{ path: `${TRPC_MOUNT_PATH}/${trpcPath({ trpc })}`, stream: trpc.kind === 'subscription' }],
      ),
    ];
    const answered: unknown[] = [];
    const ruled: unknown[] = [];
    for (const { path, stream } of paths) {
      const own = await send('OPTIONS', path, [key]);
      const allow = own.field('allow');
      const headers = ['petstore-stability', 'deprecation', 'sunset', 'link'].map((name) => own.field(name));
      expect({ path, status: own.status }).toEqual({ path, status: 204 });
      const kinds = ['preflight', 'OPTIONS', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE'].filter(
        (kind) => !(stream && (kind === 'GET' || kind === 'HEAD')),
      );
      for (const origin of [allowed, 'https://evil.example']) {
        for (const kind of kinds) {
          const preflight = kind === 'preflight';
          const reply = await send(
            preflight ? 'OPTIONS' : kind,
            path,
            preflight
              ? [
                  ['Origin', origin],
                  ['Access-Control-Request-Method', 'POST'],
                ]
              : [key, ['Origin', origin]],
          );
          const refused = origin !== allowed && path === MCP_PATH;
          const vary = (reply.field('vary') ?? '').toLowerCase().split(/, */);
          answered.push({
            path,
            origin,
            kind,
            status: preflight || kind === 'OPTIONS' || refused ? reply.status : undefined,
            code: refused ? reply.code : undefined,
            allowOrigin: reply.field('access-control-allow-origin'),
            varyOrigin: vary.includes('origin'),
            allowMethods: reply.field('access-control-allow-methods'),
            allowHeaders: reply.field('access-control-allow-headers') !== null,
            allow: reply.status === 405 || reply.status === 204 ? reply.field('allow') : allow,
            headers: ['petstore-stability', 'deprecation', 'sunset', 'link'].map((name) => reply.field(name)),
          });
          ruled.push({
            path,
            origin,
            kind,
            status: refused ? 403 : preflight || kind === 'OPTIONS' ? 204 : undefined,
            code: refused && kind !== 'HEAD' ? 'forbidden' : undefined,
            allowOrigin: origin === allowed ? allowed : null,
            varyOrigin: true,
            allowMethods: preflight && !refused ? allow : null,
            allowHeaders: preflight && !refused,
            allow,
            headers,
          });
        }
      }
    }
    expect(answered).toEqual(ruled);
  });

  // The edge's refusals carry the CORS fields (the document declares them on every answer): a page of an allowed
  // origin reads the Error body instead of a network error. A preflight the edge refuses is the edge's refusal, not a
  // preflight's answer.
  it('answers with the CORS fields when the edge refuses, on every routed path, preflights included', async () => {
    const port = Number(new URL(server.baseUrl).port);
    const allowed = 'https://app.example.com';
    const refusals: { name: string; status: number; headers: [string, string][] }[] = [
      { name: 'a bad Petstore-Read-After', status: 400, headers: [['Petstore-Read-After', 'nonsense']] },
      {
        name: 'a repeated X-Request-Id',
        status: 400,
        headers: [
          ['X-Request-Id', 'a'],
          ['X-Request-Id', 'b'],
        ],
      },
      { name: 'an Expect other than 100-continue', status: 417, headers: [['Expect', 'nonsense']] },
      {
        name: 'over 100 header fields',
        status: 431,
        headers: Array.from({ length: 100 }, (_, index): [string, string] => [`X-Field-${index}`, 'x']),
      },
    ];
    const answered: unknown[] = [];
    const ruled: unknown[] = [];
    for (const { path } of [...routedPaths(server.app, '1'), { path: `${TRPC_MOUNT_PATH}/pets.list` }]) {
      for (const { name, status, headers } of refusals) {
        for (const preflight of [false, true]) {
          const outcome = await sendRaw('127.0.0.1', port, {
            method: preflight ? 'OPTIONS' : 'GET',
            target: path,
            headers: [
              ['Host', '127.0.0.1'],
              ['Origin', allowed],
              preflight
                ? ['Access-Control-Request-Method', 'GET']
                : ['Authorization', `Bearer ${TEST_API_KEY}`],
              ...headers,
            ],
          });
          if (outcome.kind !== 'response') throw new Error(`${path} ${name}: ${outcome.kind}`);
          const fields = outcome.response.headers;
          answered.push({
            path,
            name,
            preflight,
            status: outcome.response.status,
            allowOrigin: fields.get('access-control-allow-origin')?.join(', '),
            varyOrigin: (fields.get('vary') ?? []).join(', ').toLowerCase().split(/, */).includes('origin'),
            preflightAnswer:
              fields.has('access-control-allow-methods') || fields.has('access-control-allow-headers'),
          });
          ruled.push({
            path,
            name,
            preflight,
            status,
            allowOrigin: allowed,
            varyOrigin: true,
            preflightAnswer: false,
          });
        }
      }
    }
    expect(answered).toEqual(ruled);
  });
});

describe('pnpm keys (the CLI)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('keyscli');
  });
  afterAll(async () => {
    await database?.drop();
  });

  // As `pnpm keys` runs it: through scripts/api-tool.mjs, which generates the Prisma client only when stale.
  const keysCli = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [join(import.meta.dirname, '../../../scripts/api-tool.mjs'), 'keys/keys-cli.ts', ...args],
      {
        cwd: join(import.meta.dirname, '..'),
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url },
        encoding: 'utf8',
      },
    );

  it('creates (printing the key once), lists (never the key) and revokes keys', async () => {
    const created = keysCli('create', 'ci robot');
    expect(created.status, created.stderr).toBe(0);
    // The answer and nothing else: no build banners, no generate step when the client is up to date.
    expect(created.stdout).toMatch(
      /^created key \d+ "ci robot"\. It is shown once; store it now:\npsk_\S+\n$/,
    );
    expect(created.stderr).toBe('');
    const key = /^(psk_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(key).not.toBe('');
    const id = /created key (\d+)/.exec(created.stdout)?.[1] ?? '';

    const database2 = await openDatabase({ databaseUrl: database.url, dataDir: '', logger });
    const api = await listen(
      createApp({
        sql: database2.sql,
        logger,
        apiKeys: [TEST_API_KEY],
        migrations: [],
      }),
    );
    try {
      expect((await call(api.baseUrl, '/pets', { apiKey: key })).status).toBe(200);
      const listed = keysCli('list');
      expect(listed.stdout).toContain('ci robot');
      expect(listed.stdout).toContain(key.slice(0, 12));
      expect(listed.stdout).not.toContain(key);
      const revoked = keysCli('revoke', id);
      expect(revoked.status, revoked.stderr).toBe(0);
      expectError(await call(api.baseUrl, '/pets', { apiKey: key }), 401, 'unauthorized');
      expect(keysCli('revoke', '999999').status).toBe(1);
      // An id past int64 names no key: the CLI's own message, not the database's error.
      const tooLarge = keysCli('revoke', '99999999999999999999');
      expect([tooLarge.status, tooLarge.stderr]).toEqual([
        2,
        'not a key id: 99999999999999999999 (see pnpm keys list)\n',
      ]);
      // A name `list` could not print on one tab-separated line is refused, and nothing is issued.
      for (const name of ['evil\tname', 'two\nlines', ' ', '', '\u001b[2J', 'a\u2028b', 'a\u2029b']) {
        const refused = keysCli('create', name);
        expect(refused.status, name).toBe(2);
        expect(refused.stderr).toMatch(
          /^key name [\s\S]*: must have a visible character and no control characters/,
        );
      }
      expect(keysCli('list').stdout.trim().split('\n')).toHaveLength(1);
      expect(keysCli('frobnicate').status).toBe(2);
      // Ids are positive: 0 and negatives are no id at all, as letters are (exit 2), not a key that is missing.
      for (const notAnId of ['0', '-1', '-0', '00', '02', ' 1', '0x1', '1.5'])
        expect([keysCli('revoke', notAnId).status, keysCli('revoke', notAnId).stderr]).toEqual([
          2,
          `not a key id: ${notAnId} (see pnpm keys list)\n`,
        ]);
      // An id is spelled by the API's one integer rule, as a petId is: `1e0` is 1 (it names the key revoked above).
      expect(keysCli('revoke', `${id}e0`).stderr).toBe('');
      // Arguments are judged before the database is opened: exit 2 also when there is no database to open.
      const noDatabase = (...args: string[]) =>
        spawnSync(
          process.execPath,
          [join(import.meta.dirname, '../../../scripts/api-tool.mjs'), 'keys/keys-cli.ts', ...args],
          {
            cwd: join(import.meta.dirname, '..'),
            env: { PATH: process.env.PATH ?? '', DATABASE_URL: `${database.url}_missing` },
            encoding: 'utf8',
          },
        );
      for (const args of [
        ['revoke', '0'],
        ['revoke', '02'],
        ['create', ''],
      ]) {
        const refused = noDatabase(...args);
        expect([refused.status, refused.stderr], args.join(' ')).toEqual([
          2,
          expect.stringMatching(/^(not a key id|key name)/),
        ]);
      }
      // An argument a command does not take is refused, never ignored.
      for (const args of [['list', 'extra'], ['create', 'a', 'b'], ['revoke'], []]) {
        const refused = keysCli(...args);
        expect([refused.status, refused.stdout, refused.stderr], args.join(' ')).toEqual([
          2,
          '',
          'usage: pnpm keys create <name> | pnpm keys list | pnpm keys revoke <id>\n',
        ]);
      }
    } finally {
      await api.close();
      await database2.close();
    }
  }); // five CLI processes, each compiling TypeScript at start-up

  it('on a database with every migration, migrates nothing and never loads the schema engine (most of its time)', async () => {
    const opened = await openDatabase({ databaseUrl: database.url, dataDir: '', logger });
    try {
      await migrateIfNeeded(opened); // the CLI test above migrated it already; this makes the test order-free
      const engine = new Proxy({} as typeof opened.migrationAdapter, {
        get() {
          throw new Error('the schema engine was asked for although no migration is pending');
        },
      });
      expect(await migrateIfNeeded({ sql: opened.sql, migrationAdapter: engine })).toEqual({ applied: [] });
    } finally {
      await opened.close();
    }
  });
});
