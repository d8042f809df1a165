import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { callerIdentity, sha256 } from '../src/keys/api-key-digest.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess } from './reliability/api-process.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

// Starts the API as a process (TypeScript compiled at start-up): the timeout says so.
vi.setConfig({ testTimeout: timeouts.process });

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client */
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
}

/** The smallest OTLP/HTTP receiver: accepts POST /v1/traces (JSON) and keeps every span. */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  spans: OtlpSpan[];
  contentTypes: string[];
}> {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(req.headers['content-type'] ?? '');
      const export_ = JSON.parse(body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const resource of export_.resourceSpans)
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, contentTypes };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

const hex = (digits: number, seed: string) => seed.repeat(digits).slice(0, digits);

describe('traces: OpenTelemetry over OTLP/HTTP to a receiver, on PostgreSQL', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let database: TestDatabase;
  let dataDir: string;
  let api: ApiProcess;

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await createTestDatabase('tracing');
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-tracing-'));
    api = await startApiProcess({
      databaseUrl: database.url,
      dataDir,
      env: {
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'petstore-test',
      },
    });
  });
  afterAll(async () => {
    await api?.kill();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends a server span per request named by operation, with database child spans, under the caller’s traceparent', async () => {
    const auth = { authorization: `Bearer ${RELIABILITY_API_KEY}` };
    const restTrace = hex(32, 'a1');
    const restParent = hex(16, 'b2');
    const rest = await fetch(`${api.baseUrl}/pets?limit=5`, {
      headers: { ...auth, traceparent: `00-${restTrace}-${restParent}-01` },
    });
    expect(rest.status).toBe(200);
    await rest.text();
    // The answer names the server span (W3C Trace Context level 2 `traceresponse`), in the caller's trace.
    expect(rest.headers.get('traceresponse')).toMatch(new RegExp(`^00-${restTrace}-[0-9a-f]{16}-01$`));

    const trpcTrace = hex(32, 'c3');
    const trpc = await fetch(`${api.baseUrl}/trpc/pets.create`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        traceparent: `00-${trpcTrace}-${hex(16, 'd4')}-01`,
      },
      body: JSON.stringify({ json: { name: 'Traced', categoryId: 3 } }),
    });
    expect(trpc.status).toBe(200);
    await trpc.text();

    // /readyz reads the applied migrations with a statement of its own, traced like the API's.
    const readyTrace = hex(32, 'e5');
    const ready = await fetch(`${new URL(api.baseUrl).origin}/readyz`, {
      headers: { traceparent: `00-${readyTrace}-${hex(16, 'f6')}-01` },
    });
    expect(ready.status).toBe(200);
    await ready.text();

    // A request without traceparent starts a trace of its own.
    const untraced = await fetch(`${api.baseUrl}/pets/1`, { headers: auth });
    expect(untraced.status).toBe(200);
    const ownTrace = /^00-([0-9a-f]{32})-/.exec(untraced.headers.get('traceresponse') ?? '')?.[1];
    expect(ownTrace).toBeDefined();
    await untraced.text();

    // SIGTERM flushes the spans still buffered before the process exits.
    api.child.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    const { spans } = receiver;

    const server = (traceId: string) => spans.filter((span) => span.traceId === traceId && span.kind === 2);
    const childrenOf = (span: OtlpSpan) => spans.filter((child) => child.parentSpanId === span.spanId);

    const [listPets] = server(restTrace);
    expect(listPets?.name).toBe('listPets');
    expect(listPets?.parentSpanId).toBe(restParent);
    expect(attribute(listPets as OtlpSpan, 'http.response.status_code')).toBe(200);
    expect(attribute(listPets as OtlpSpan, 'petstore.transport')).toBe('rest');
    // The caller as idempotency and the rate limit name it (from the key, never the key), on every transport.
    const caller = callerIdentity(sha256(RELIABILITY_API_KEY));
    expect(attribute(listPets as OtlpSpan, 'enduser.id')).toBe(caller);
    expect(rest.headers.get('traceresponse')).toContain((listPets as OtlpSpan).spanId);
    const restQueries = childrenOf(listPets as OtlpSpan);
    expect(restQueries.map((span) => span.name)).toEqual(['SELECT pets']);
    expect(restQueries[0]?.kind).toBe(3);
    expect(attribute(restQueries[0] as OtlpSpan, 'db.system.name')).toBe('postgresql');
    expect(String(attribute(restQueries[0] as OtlpSpan, 'db.query.text'))).toMatch(/^select/i);

    const [create] = server(trpcTrace);
    expect(create?.name).toBe('pets.create');
    expect(attribute(create as OtlpSpan, 'petstore.transport')).toBe('trpc');
    expect(attribute(create as OtlpSpan, 'enduser.id')).toBe(caller);
    expect(childrenOf(create as OtlpSpan).map((span) => span.name)).toEqual(['INSERT pets']);

    const [readyz] = server(readyTrace);
    expect(readyz?.name).toBe('readyz');
    expect(attribute(readyz as OtlpSpan, 'enduser.id')).toBeUndefined();
    const readyQueries = childrenOf(readyz as OtlpSpan);
    expect(readyQueries.map((span) => span.name)).toEqual(['SELECT _prisma_migrations']);
    expect(readyQueries[0]?.kind).toBe(3);

    const [getPet] = server(ownTrace as string);
    expect(getPet?.name).toBe('getPet');
    expect(getPet?.parentSpanId ?? '').toBe('');

    // The access-log line carries the trace id.
    const line = api
      .output()
      .split('\n')
      .find((entry) => entry.includes('"msg":"request"') && entry.includes(restTrace));
    expect(line).toContain('"path":"/v1/pets"');
    expect(JSON.parse(line as string)).toMatchObject({ traceId: restTrace, caller, status: 200 });
    expect(api.output()).not.toContain(RELIABILITY_API_KEY);
  });
});
