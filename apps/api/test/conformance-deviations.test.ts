import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Profile, runConformance } from '@petstore/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

// Proof that the conformance suite can fail: a proxy in front of the real API injects one deviation at a
// time, and the suite must name the check meant to catch it.

interface Exchanged {
  method: string;
  /** Path and query, `/v1/pets?limit=1`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Deviation {
  /** Rewrites the request on its way to the API, or answers it instead of the API. */
  request?(request: Exchanged): Exchanged | Answer;
  /** Rewrites the API's answer (the head alone, for a stream). */
  response?(request: Exchanged, answer: Answer): Answer;
  /** Rewrites each block of a stream (an event, a comment, `retry:`: the text up to a blank line): 0..n blocks. */
  streamed?(request: Exchanged, block: string): string[];
}

const path = (request: Exchanged) => new URL(request.url, 'http://proxy').pathname;
const isList = (request: Exchanged) => request.method === 'GET' && path(request) === '/v1/pets';
const isGet = (request: Exchanged) => request.method === 'GET' && /^\/v1\/pets\/[^/]+$/.test(path(request));
const isCreate = (request: Exchanged) => request.method === 'POST' && path(request) === '/v1/pets';

function json(answer: Answer, rewrite: (body: unknown) => unknown, stringify = JSON.stringify): Answer {
  if (!/json/.test(String(answer.headers['content-type'])) || answer.body.length === 0) return answer;
  return { ...answer, body: Buffer.from(stringify(rewrite(JSON.parse(answer.body.toString())))) };
}

function withQuery(request: Exchanged, edit: (query: URLSearchParams) => void): Exchanged {
  const url = new URL(request.url, 'http://proxy');
  edit(url.searchParams);
  return { ...request, url: `${url.pathname}${url.search}` };
}

const isPet = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && 'id' in value && 'name' in value;

/**
 * Each deviation, the check id that must report it, and the profile that must: `interface` where the deviation
 * breaks the interface itself (so another team's server with it would be told), `reference` where it only departs
 * from a decision of ours.
 */
const DEVIATIONS: Array<[expectedCheck: string, label: string, Profile, Deviation]> = [
  [
    'listPets.limit.default',
    'default limit 25 instead of 20',
    'interface',
    {
      request: (request) =>
        isList(request)
          ? withQuery(request, (query) => query.has('limit') || query.set('limit', '25'))
          : request,
    },
  ],
  [
    'auth.missing-key.listPets',
    'a 401 without WWW-Authenticate (RFC 9110 11.6.1 MUST)',
    'interface',
    {
      response: (_request, answer) => {
        if (answer.status !== 401) return answer;
        const { 'www-authenticate': _, ...headers } = answer.headers;
        return { ...answer, headers };
      },
    },
  ],
  [
    'auth.missing-key.getPet',
    'getPet without authentication',
    'interface',
    {
      request: (request) =>
        isGet(request)
          ? { ...request, headers: { ...request.headers, authorization: `Bearer ${TEST_API_KEY}` } }
          : request,
    },
  ],
  [
    'createPet.body.malformed-json',
    '500 on a body that is not JSON',
    'interface',
    {
      request(request) {
        if (!isCreate(request) || request.headers.authorization !== `Bearer ${TEST_API_KEY}`) return request;
        try {
          JSON.parse(request.body.toString());
          return request;
        } catch {
          const body = '{"code":"internal_error","message":"Unexpected token","status":500}';
          return { status: 500, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) };
        }
      },
    },
  ],
  [
    'createPet.status-omitted',
    '"status": null on pets without a status',
    'interface',
    {
      response: (_request, answer) =>
        json(answer, (body) => {
          const fill = (pet: unknown) => (isPet(pet) && !('status' in pet) ? { ...pet, status: null } : pet);
          return Array.isArray(body) ? body.map(fill) : fill(body);
        }),
    },
  ],
  [
    'createPet.int64.exact',
    'int64 values rounded to doubles',
    'interface',
    { response: (_request, answer) => json(answer, (body) => body) },
  ],
  [
    'getPet.deprecation.ok',
    'no Deprecation header on getPet',
    'reference',
    {
      response(_request, answer) {
        const { deprecation: _dropped, ...headers } = answer.headers;
        return { ...answer, headers };
      },
    },
  ],
  [
    'listPets.order.id-ascending',
    'listPets newest first',
    'reference',
    {
      response: (request, answer) =>
        isList(request) ? json(answer, (body) => (Array.isArray(body) ? body.reverse() : body)) : answer,
    },
  ],
  [
    'listPets.limit.invalid.above-max',
    'limit above 100 clamped instead of refused',
    'reference',
    {
      request: (request) =>
        isList(request)
          ? withQuery(request, (query) => {
              if (Number(query.get('limit')) > 100) query.set('limit', '100');
            })
          : request,
    },
  ],
  [
    'createPet.unknown-field',
    'unknown fields dropped instead of refused',
    'reference',
    {
      request(request) {
        if (!isCreate(request)) return request;
        try {
          const { name, categoryId, status } = JSON.parse(request.body.toString()) as Record<string, unknown>;
          // Not exact for int64, but the bodies with unknown fields carry small categoryIds.
          return { ...request, body: Buffer.from(JSON.stringify({ name, categoryId, status })) };
        } catch {
          return request;
        }
      },
    },
  ],
  [
    'createPet.name.kept-exactly',
    'names trimmed',
    'interface',
    {
      request(request) {
        if (!isCreate(request)) return request;
        const text = request.body.toString();
        return {
          ...request,
          body: Buffer.from(
            text.replace(/"name":"\s+/, '"name":"').replace(/\s+","categoryId"/, '","categoryId"'),
          ),
        };
      },
    },
  ],
  [
    'createPet.content-type.unsupported',
    'any Content-Type read as JSON',
    'reference',
    {
      request: (request) =>
        isCreate(request)
          ? { ...request, headers: { ...request.headers, 'content-type': 'application/json' } }
          : request,
    },
  ],
  [
    'auth.missing-key.listPets',
    'no WWW-Authenticate challenge on 401',
    'reference',
    {
      response(_request, answer) {
        const { 'www-authenticate': _dropped, ...headers } = answer.headers;
        return { ...answer, headers };
      },
    },
  ],
  [
    'concurrency.burst-create',
    'concurrent creates answered with the same pet',
    'interface',
    (() => {
      // Creates sent at once answered with a copy of an earlier answer: a duplicated id, a lost pet. Chosen by the
      // burst's names rather than by how many are in flight, which depends on the machine's load (on a busy one the
      // creates could pass the proxy one at a time, and the deviation never showed).
      let earlier: Answer | undefined;
      return {
        response(request, answer) {
          if (!isCreate(request) || answer.status !== 201 || !/ burst \d+"/.test(request.body.toString()))
            return answer;
          earlier ??= answer;
          return earlier;
        },
      } satisfies Deviation;
    })(),
  ],
  [
    'listPets.ok',
    'the list wrapped in an object',
    'interface',
    {
      response: (request, answer) =>
        isList(request) && answer.status === 200 ? json(answer, (body) => ({ items: body })) : answer,
    },
  ],
  [
    'createPet.created',
    'a Pet without its required categoryId',
    'interface',
    {
      response: (_request, answer) =>
        json(answer, (body) => {
          const drop = (pet: unknown) => {
            if (!isPet(pet)) return pet;
            const { categoryId: _dropped, ...rest } = pet;
            return rest;
          };
          return Array.isArray(body) ? body.map(drop) : drop(body);
        }),
    },
  ],
];

const isFeed = (request: Exchanged) => request.method === 'GET' && path(request) === '/v1/pets/events';
const isPetEvent = (block: string) => /^event: pet\.created$/m.test(block);

/** Deviations of the change feed, each caught by a check of the feed (reference profile: the feed is beta). */
const STREAM_DEVIATIONS: Array<[expectedCheck: string, label: string, Deviation]> = [
  [
    'streamPetEvents.delivers-created',
    'each event delivered twice',
    { streamed: (_request, block) => (isPetEvent(block) ? [block, block] : [block]) },
  ],
  [
    'streamPetEvents.delivers-created',
    "an event's id: one past its data's id",
    {
      streamed: (_request, block) => [
        block.replace(/^id: (\d+)$/m, (_line, id: string) => `id: ${BigInt(id) + 1n}`),
      ],
    },
  ],
  [
    'streamPetEvents.resume.last-event-id',
    'Last-Event-ID ignored (a reconnect starts over from since)',
    {
      request(request) {
        if (!isFeed(request)) return request;
        const { 'last-event-id': _dropped, ...headers } = request.headers;
        return { ...request, headers };
      },
    },
  ],
  [
    'streamPetEvents.status.filter',
    'the status filter ignored',
    {
      request: (request) =>
        isFeed(request) ? withQuery(request, (query) => query.delete('status')) : request,
    },
  ],
  [
    'streamPetEvents.from-now',
    'without since, the stream starts at the oldest event kept',
    {
      request: (request) =>
        isFeed(request) && request.headers['last-event-id'] === undefined
          ? withQuery(request, (query) => query.has('since') || query.set('since', '0'))
          : request,
    },
  ],
  [
    'streamPetEvents.open',
    'no X-Accel-Buffering: no (a buffering proxy would hold the events back)',
    {
      response(_request, answer) {
        const { 'x-accel-buffering': _dropped, ...headers } = answer.headers;
        return { ...answer, headers };
      },
    },
  ],
  [
    'responses.content-type',
    'the stream labelled with another charset',
    {
      response: (request, answer) =>
        isFeed(request) && answer.status === 200
          ? {
              ...answer,
              headers: { ...answer.headers, 'content-type': 'text/event-stream; charset=iso-8859-1' },
            }
          : answer,
    },
  ],
];

/** An HTTP proxy to `upstream` that applies `deviation` (switchable between runs). */
async function startProxy(
  upstream: URL,
): Promise<{ baseUrl: string; use(deviation: Deviation): void; close(): Promise<void> }> {
  let deviation: Deviation = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const incoming: Exchanged = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const send = (answer: Answer) => {
        const {
          'content-length': _length,
          'transfer-encoding': _encoding,
          connection: _connection,
          ...headers
        } = answer.headers;
        res.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
        res.end(answer.body);
      };
      const rewritten = deviation.request ? deviation.request(incoming) : incoming;
      if ('status' in rewritten) return send(rewritten);
      // The deviations rewrite bodies, so the proxy asks for them uncoded (as a rewriting proxy must): the API
      // compresses when the client's Accept-Encoding allows.
      const {
        host: _host,
        'content-length': _length,
        connection: _connection,
        'accept-encoding': _acceptEncoding,
        ...headers
      } = rewritten.headers;
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: rewritten.method,
          path: rewritten.url,
          headers: {
            ...headers,
            ...(rewritten.body.length > 0 ? { 'content-length': rewritten.body.length } : {}),
          },
        },
        (upstreamRes) => {
          if (/^text\/event-stream\b/.test(upstreamRes.headers['content-type'] ?? '')) {
            // A stream is passed on as it comes (it may never end), block by block, rewritten by the deviation.
            const head = {
              status: upstreamRes.statusCode ?? 502,
              headers: upstreamRes.headers,
              body: Buffer.alloc(0),
            };
            const { status, headers } = deviation.response ? deviation.response(incoming, head) : head;
            const { 'content-length': _length, connection: _connection, ...streamHeaders } = headers;
            res.writeHead(status, streamHeaders);
            res.flushHeaders();
            const decoder = new TextDecoder();
            let pending = '';
            upstreamRes.on('data', (chunk: Buffer) => {
              pending += decoder.decode(chunk, { stream: true });
              const blocks = pending.split('\n\n');
              pending = blocks.pop() ?? '';
              for (const block of blocks)
                for (const sent of deviation.streamed ? deviation.streamed(incoming, block) : [block])
                  res.write(`${sent}\n\n`);
            });
            upstreamRes.on('end', () => res.end(pending));
            res.on('close', () => upstreamRes.destroy());
            return;
          }
          const body: Buffer[] = [];
          upstreamRes.on('data', (chunk: Buffer) => body.push(chunk));
          upstreamRes.on('end', () => {
            const answer = {
              status: upstreamRes.statusCode ?? 502,
              headers: upstreamRes.headers,
              body: Buffer.concat(body),
            };
            send(deviation.response ? deviation.response(incoming, answer) : answer);
          });
        },
      );
      forwarded.on('error', (error) => {
        res.writeHead(502).end(String(error));
      });
      forwarded.end(rewritten.body.length > 0 ? rewritten.body : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    use(next) {
      deviation = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('@petstore/conformance catches deviations (proxy in front of the real API on postgresql)', () => {
  let api: TestServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  const run = (profile: Profile) =>
    runConformance({ baseUrl: proxy.baseUrl, apiKey: TEST_API_KEY, seed: 7, numRuns: 5, profile });

  beforeAll(async () => {
    api = await startTestServer('postgresql', 'conformance_deviations');
    proxy = await startProxy(new URL(api.baseUrl));
  });
  afterAll(async () => {
    await proxy?.close();
    await api?.close();
  });

  it('passes through the proxy when it changes nothing (so every failure below is the deviation)', async () => {
    proxy.use({});
    const report = await run('reference');
    expect(
      report.results.filter((result) => !result.ok).map((result) => `${result.id}: ${result.reason}`),
    ).toEqual([]);
  });

  it('waits out a rate limit (429 with Retry-After) instead of reporting it', async () => {
    let limited = false;
    proxy.use({
      request(request) {
        if (limited) return request;
        limited = true;
        const body = '{"code":"rate_limited","message":"slow down","status":429}';
        return {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
          body: Buffer.from(body),
        };
      },
    });
    const report = await runConformance({
      baseUrl: proxy.baseUrl,
      apiKey: TEST_API_KEY,
      only: ['listPets.ok'],
    });
    expect(limited).toBe(true);
    expect(report.results.map((result) => result.reason ?? 'ok')).toEqual(['ok']);
  });

  it.each(STREAM_DEVIATIONS)(
    '%s fails on: %s (the change feed)',
    async (expectedCheck, _label, deviation) => {
      proxy.use(deviation);
      const report = await runConformance({
        baseUrl: proxy.baseUrl,
        apiKey: TEST_API_KEY,
        seed: 7,
        profile: 'reference',
        only: ['streamPetEvents.', 'responses.'],
      });
      const failed = report.results.filter((result) => !result.ok).map((result) => result.id);
      expect(failed).toContain(expectedCheck);
      const failure = report.results.find((result) => result.id === expectedCheck);
      expect(failure?.reproduction?.url, 'a failure comes with its request').toMatch(/\/v1\/pets/);
    },
  );

  it.each(DEVIATIONS)('%s fails on: %s (profile %s)', async (expectedCheck, _label, profile, deviation) => {
    proxy.use(deviation);
    const report = await run(profile);
    const failed = report.results.filter((result) => !result.ok).map((result) => result.id);
    expect(failed).toContain(expectedCheck);
    const failure = report.results.find((result) => result.id === expectedCheck);
    expect(failure?.reproduction?.method, 'a failure comes with its request').toMatch(/^[A-Z]+$/);
  });
});
