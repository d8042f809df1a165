import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PetSchema } from '@petstore/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMetrics } from '../src/http/metrics-server.js';
import { createMetrics, type Metrics } from '../src/observability/metrics.js';
import { call } from './support/http.js';
import { DATABASE_KINDS, startTestServer, type TestServer } from './support/test-server.js';

/** A superjson envelope in a tRPC GET's `input` parameter. */
const input = (value: unknown) => `input=${encodeURIComponent(JSON.stringify(value))}`;

/** `name{labels} value` lines of the exposition text, label order as printed. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const parts = (match[2] as string).split(',');
    if (wanted.every((part) => parts.includes(part)) && parts.length === wanted.length)
      return Number(match[3]);
  }
  return undefined;
}

describe.each(DATABASE_KINDS)('metrics on %s', (kind) => {
  let server: TestServer;
  let metrics: Metrics;
  let metricsServer: Server;
  let scrapeUrl: string;

  beforeAll(async () => {
    // As main wires them: the pool's figures where there is a pool (read at scrape time, once the server runs).
    const poolStats = () => (server.database.poolStats as NonNullable<TestServer['database']['poolStats']>)();
    metrics = createMetrics({ poolStats: kind === 'postgresql' ? poolStats : undefined });
    server = await startTestServer(kind, 'metrics', { metrics });
    expect(server.database.poolStats === undefined).toBe(kind === 'pglite');
    metricsServer = await serveMetrics(metrics, 0, '127.0.0.1');
    scrapeUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    await new Promise((resolve) => metricsServer?.close(resolve));
    await server?.close();
  });

  it('counts requests by operation, transport, method and status class; never by path or id', async () => {
    const created = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"Counted","categoryId":7}',
    });
    expect(created.status).toBe(201);
    const pet = PetSchema.parse(created.body);
    expect((await call(server.baseUrl, `/pets/${pet.id}`)).status).toBe(200);
    expect((await call(server.baseUrl, '/pets/987654321')).status).toBe(404);
    expect((await call(server.baseUrl, '/pets?limit=2')).status).toBe(200);
    // A HEAD is counted as sent, though the routes see it as the GET it stands for (http/edge.ts showAsGet).
    expect((await call(server.baseUrl, '/pets?limit=2', { method: 'HEAD' })).status).toBe(200);
    expect((await call(server.baseUrl, '/pets', { apiKey: null })).status).toBe(401);
    expect((await call(server.baseUrl, '/pets', { method: 'DELETE' })).status).toBe(405);
    expect((await call(server.baseUrl, `/trpc/pets.list?${input({ json: {} })}`)).status).toBe(200);
    expect(
      (
        await call(
          server.baseUrl,
          `/trpc/pets.list,pets.page?batch=1&${input({ 0: { json: {} }, 1: { json: {} } })}`,
        )
      ).status,
    ).toBe(200);
    expect((await call(server.baseUrl, `/trpc/pets.nothing?${input({ json: {} })}`)).status).toBe(404);
    expect((await call(server.baseUrl, `/no/such/${pet.id}`)).status).toBe(404);
    const origin = new URL(server.baseUrl).origin;
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);

    const scrape = await fetch(scrapeUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await scrape.text();
    const requests = (operation: string, transport: string, method: string, statusClass: string) =>
      sample(text, 'petstore_http_requests_total', {
        operation,
        transport,
        method,
        status_class: statusClass,
      });

    expect(requests('createPet', 'rest', 'POST', '2xx')).toBe(1);
    expect(requests('getPet', 'rest', 'GET', '2xx')).toBe(1);
    expect(requests('getPet', 'rest', 'GET', '4xx')).toBe(1);
    expect(requests('listPets', 'rest', 'GET', '2xx')).toBe(1);
    expect(requests('listPets', 'rest', 'HEAD', '2xx')).toBe(1);
    expect(requests('listPets', 'rest', 'GET', '4xx')).toBe(1); // the 401
    expect(requests('unknown', 'rest', 'DELETE', '4xx')).toBe(1);
    expect(requests('pets.list', 'trpc', 'GET', '2xx')).toBe(1);
    expect(requests('batch', 'trpc', 'GET', '2xx')).toBe(1);
    expect(requests('unknown', 'trpc', 'GET', '4xx')).toBe(1);
    expect(requests('unknown', 'none', 'GET', '4xx')).toBe(1);
    expect(requests('healthz', 'none', 'GET', '2xx')).toBe(1);

    // The histogram agrees with the counter; every request lands in a bucket up to +Inf.
    const durations = { operation: 'getPet', transport: 'rest', method: 'GET', status_class: '2xx' };
    expect(sample(text, 'petstore_http_request_duration_seconds_count', durations)).toBe(1);
    expect(sample(text, 'petstore_http_request_duration_seconds_bucket', { le: '+Inf', ...durations })).toBe(
      1,
    );
    expect(sample(text, 'petstore_http_request_duration_seconds_sum', durations)).toBeGreaterThan(0);
    expect(sample(text, 'petstore_http_request_duration_seconds_bucket', { le: '5', ...durations })).toBe(1);

    // Labels come from a fixed set: no id and no raw path appears anywhere in the exposition.
    const operations = new Set([...text.matchAll(/operation="([^"]*)"/g)].map((match) => match[1]));
    expect([...operations].sort()).toEqual(
      ['batch', 'createPet', 'getPet', 'healthz', 'listPets', 'pets.list', 'unknown'].sort(),
    );
    expect(text).not.toContain('987654321');
    expect(text).not.toContain('/pets');
    expect(text).not.toContain('/no/such');
    expect(text).not.toContain('pets.nothing');

    // The process defaults: event-loop lag, heap, GC.
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \S+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \S+$/m);
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });

  it(
    kind === 'postgresql'
      ? 'reports the pool: in use, idle, waiting and its maximum'
      : 'reports no pool gauges on PGlite (one in-process connection, no pool)',
    async () => {
      const text = await (await fetch(scrapeUrl)).text();
      if (kind === 'postgresql') {
        const idle = sample(text, 'petstore_db_pool_connections', { state: 'idle' });
        const inUse = sample(text, 'petstore_db_pool_connections', { state: 'in_use' });
        expect(idle).toBeGreaterThanOrEqual(1); // the test's queries left connections open
        expect(inUse).toBe(0); // nothing runs between requests
        expect(text).toMatch(/^petstore_db_pool_waiting 0$/m);
        expect(text).toMatch(/^petstore_db_pool_max 10$/m);
      } else {
        expect(text).not.toContain('petstore_db_pool');
      }
    },
  );

  it('serves GET /metrics only', async () => {
    const other = await fetch(scrapeUrl.replace('/metrics', '/v1/pets'));
    expect(other.status).toBe(404);
    await other.text();
  });
});
