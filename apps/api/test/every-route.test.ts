// Every path the server reads out answers the other methods, OPTIONS and preconditions by one rule
// (answerOtherMethod, evaluatePreconditions): the probes, the documentation, the MCP metadata and the metrics
// answered 404 to POST, Express's text/plain to OPTIONS, and 200 to `If-Match: "x"` or `If-None-Match: *`. So does
// every other routed path (the MCP endpoint answered OPTIONS with the SDK's 405 and `Allow: POST`). The paths are
// read from the app's own router and the contract, not listed here, so a route added later is walked too.
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { API_BASE_PATH, contract, type OperationContract } from '@petstore/schema';
import { fillPath, isRestOperation } from '@petstore/schema/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { serveMetrics } from '../src/http/metrics-server.js';
import { createMetrics } from '../src/observability/metrics.js';
import { TRPC_MOUNT_PATH } from '../src/trpc/trpc.express.js';
import { type RawRequest, sendRaw } from './reliability/raw-http.js';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';
import { call } from './support/http.js';
import { routedPaths } from './support/routed-paths.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const methodsOf = (allow: string | null) => (allow ?? '').split(',').map((method) => method.trim());

/** One request with the key (the REST paths need it; the others ignore it): the status, Allow, an Error's code. */
async function send(root: string, path: string, method: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${root}${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_API_KEY}`, ...headers },
  });
  const text = await response.text();
  const json = text !== '' && /^application\/json/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    allow: response.headers.get('allow'),
    code: json ? (JSON.parse(text) as { code?: string }).code : undefined,
    body: text === '' ? 'none' : 'some',
  };
}

/**
 * What `path` answers, and what the one rule says it should: OPTIONS 204 with an Allow listing OPTIONS (and GET and
 * HEAD on a path served by GET); GET, POST, PUT and DELETE, where Allow does not list them, 405 with that Allow; on a
 * path served by GET, a GET whose If-Match names a tag no answer of it carries 412, one with `If-None-Match: *` 304,
 * one with a query parameter it does not read 400.
 */
async function answersOf(root: string, path: string, read = true) {
  const options = await send(root, path, 'OPTIONS');
  const { allow } = options;
  const listed = read ? ['GET', 'HEAD', 'OPTIONS'] : ['OPTIONS'];
  const answers: Record<string, unknown> = {
    OPTIONS: { status: options.status, lists: listed.filter((m) => methodsOf(allow).includes(m)) },
  };
  const expected: Record<string, unknown> = { OPTIONS: { status: 204, lists: listed } };
  for (const method of ['GET', 'POST', 'PUT', 'DELETE'].filter((m) => !methodsOf(allow).includes(m))) {
    const { status, code, allow: allowed } = await send(root, path, method);
    answers[method] = { status, code, allow: allowed };
    expected[method] = { status: 405, code: 'method_not_allowed', allow };
  }
  if (!read) return { answers, expected };
  const { status, code } = await send(root, path, 'GET', { 'if-match': '"x"' });
  answers['If-Match "x"'] = { status, code };
  expected['If-Match "x"'] = { status: 412, code: 'precondition_failed' };
  // A query parameter the path does not read is refused, never ignored (the API's, the probes', the documentation's).
  const unread = await send(root, `${path}?unread=1`, 'GET');
  answers['GET ?unread=1'] = { status: unread.status, code: unread.code };
  expected['GET ?unread=1'] = { status: 400, code: 'validation_failed' };
  for (const method of ['GET', 'HEAD']) {
    const reply = await send(root, path, method, { 'if-none-match': '*' });
    answers[`${method} If-None-Match *`] = { status: reply.status, body: reply.body };
    expected[`${method} If-None-Match *`] = { status: 304, body: 'none' };
  }
  return { answers, expected };
}

/**
 * Sends the request's lines on a socket of its own (never half-closed: Node would end the connection for that) and
 * reads the answer's status and `Connection` field. One that keeps the connection is told at once (the socket is then
 * destroyed here); otherwise what it says is checked when the server closes the socket.
 */
function answerThenClose(
  port: number,
  lines: string[],
): Promise<{ status: number | undefined; connection: string | undefined; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(lines.join('\r\n')));
    let received = '';
    let head: { status: number | undefined; connection: string | undefined } | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      if (head !== undefined || end === -1) return;
      const text = received.slice(0, end);
      head = {
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]),
        connection: /\r\nconnection: *([^\r]*)/i.exec(text)?.[1]?.toLowerCase(),
      };
      if (head.connection !== 'close') {
        resolve({ ...head, closed: false });
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: head?.status, connection: head?.connection, closed: true }));
  });
}

describe('every path the API serves', () => {
  let server: TestServer;
  let root: string;
  let petId: string;

  beforeAll(async () => {
    // Idle connections kept longer than a test may take: a socket that closes did so because it was to.
    server = await startTestServer('pglite', 'every-route', { keepAliveTimeoutMs: 2 * timeouts.test });
    root = server.baseUrl.replace(/\/v1$/, '');
    const created = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(created.status).toBe(201);
    petId = String((created.body as { id: bigint }).id);
  });
  afterAll(async () => {
    await server?.close();
  });

  const routes = () => routedPaths(server.app, petId);
  const paths = () => routes().map(({ path }) => path);

  it('lists the routes as the app has them', () => {
    expect(paths()).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/readyz',
        '/v1/openapi.json',
        '/docs',
        '/docs/init.js',
        '/docs/assets/favicon.png',
        '/v1/pets',
        `/v1/pets/${petId}`,
        '/v1/pets/events',
        '/v1/mcp',
      ]),
    );
  });

  // RFC 9110 section 9.3.2: HEAD's answer is GET's without the content, so its Content-Length is GET's too. A
  // message that names the request's method made HEAD's one byte longer (a 405 on /v1/mcp, a GET with a body).
  it("answers HEAD with GET's status and headers on every path, refusals included", async () => {
    const port = Number(new URL(root).port);
    const variants: { name: string; headers: [string, string][]; body?: string; query?: string }[] = [
      { name: 'plain', headers: [] },
      { name: 'a body', headers: [['Content-Type', 'application/json']], body: '{"a":1}' },
      { name: 'Content-Length: 00', headers: [['Content-Length', '00']] },
      { name: 'If-Match', headers: [['If-Match', '"x"']] },
      { name: 'gzip', headers: [['Accept-Encoding', 'gzip']] },
      { name: 'a bad key', headers: [['Authorization', 'Bearer not-a-key']] },
      { name: 'a query', headers: [], query: '?x=1' },
    ];
    const answer = async (method: string, path: string, variant: (typeof variants)[number]) => {
      const headers: [string, string][] = [
        ['Host', '127.0.0.1'],
        ['Connection', 'close'],
        ...variant.headers,
      ];
      if (!headers.some(([name]) => name === 'Authorization'))
        headers.push(['Authorization', `Bearer ${TEST_API_KEY}`]);
      const request: RawRequest = { method, target: `${path}${variant.query ?? ''}`, headers };
      if (variant.body !== undefined) {
        request.body = Buffer.from(variant.body);
        headers.push(['Content-Length', String(request.body.length)]);
      }
      const outcome = await sendRaw('127.0.0.1', port, request, scaled(5_000));
      if (outcome.kind !== 'response') return outcome.kind;
      const { status, headers: fields } = outcome.response;
      for (const name of ['date', 'x-request-id', 'transfer-encoding', 'ratelimit']) fields.delete(name);
      return { status, headers: Object.fromEntries([...fields].sort()) };
    };
    const differences: unknown[] = [];
    // The change feed's GET never ends (its HEAD is test/pet-events.test.ts's).
    for (const { path } of routes().filter(({ path }) => !path.endsWith('/events'))) {
      for (const variant of variants) {
        const [get, head] = [await answer('GET', path, variant), await answer('HEAD', path, variant)];
        if (JSON.stringify(get) !== JSON.stringify(head))
          differences.push({ path, variant: variant.name, get, head });
      }
    }
    expect(differences).toEqual([]);
  });

  // Paths are matched as written, by one routing setting for every router (http/edge.ts createRouter): `/DOCS`,
  // `/healthz/` and `/V1/OPENAPI.JSON` were 200 while `/v1/MCP` and `/v1/pets/` were 404.
  it('answers 404 with the Error body to every routed path in another case or with a trailing slash', async () => {
    const spellings = (path: string) => [
      path.toUpperCase(),
      path.replace(/\/([a-z])/g, (_match, letter: string) => `/${letter.toUpperCase()}`),
      `${path}/`,
      `${path.replace(/\/([a-z])/g, (_match, letter: string) => `/${letter.toUpperCase()}`)}/`,
    ];
    const answered: unknown[] = [];
    const ruled: unknown[] = [];
    for (const { path } of routes()) {
      for (const spelling of spellings(path).filter((variant) => variant !== path)) {
        const { status, code } = await send(root, spelling, 'GET');
        answered.push({ spelling, status, code });
        ruled.push({ spelling, status: 404, code: 'route_not_found' });
      }
    }
    expect(answered).toEqual(ruled);
  });

  // RFC 9112 section 9.6: a server that receives `Connection: close` closes the connection after its final answer.
  // /v1/mcp did not: the MCP SDK's answer carries its own `Connection: keep-alive`, which was copied onto ours, and
  // Node then kept the socket until the keep-alive timeout. Every routed path with every method (the MCP endpoint and
  // the pets collection with a body their handler serves), and every tRPC procedure that answers once, each on a
  // socket of its own: the answer says `close`, and the socket closes (the server keeps an idle one longer than the
  // test may take).
  it('closes the connection after its answer when the request says Connection: close, on every path', async () => {
    const port = Number(new URL(root).port);
    const mcpCall = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'listPets', arguments: { limit: 1 } },
    });
    const bodies: Readonly<Record<string, { headers: [string, string][]; body: string }>> = {
      [`POST ${API_BASE_PATH}/mcp`]: {
        headers: [
          ['Content-Type', 'application/json'],
          ['Accept', 'application/json, text/event-stream'],
          ['MCP-Protocol-Version', '2025-11-25'],
        ],
        body: mcpCall,
      },
      [`POST ${API_BASE_PATH}/pets`]: {
        headers: [['Content-Type', 'application/json']],
        body: '{"name":"Rex","categoryId":1}',
      },
    };
    const requests = [
      // The change feed's GET never ends.
      ...routes().flatMap(({ path }) =>
        ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
          .filter((method) => !(path.endsWith('/events') && method === 'GET'))
          .map((method) => ({ method, path })),
      ),
      ...(Object.values(contract) as OperationContract[]).flatMap(({ trpc }) =>
        trpc === undefined || trpc.kind === 'subscription'
          ? []
          : [
              {
                method: trpc.kind === 'query' ? 'GET' : 'POST',
                path: `${TRPC_MOUNT_PATH}/${trpc.router}.${trpc.procedure}`,
              },
            ],
      ),
    ];
    const answers = await Promise.all(
      requests.map(async ({ method, path }) => {
        const { headers = [], body = '' } = bodies[`${method} ${path}`] ?? {};
        const answer = await answerThenClose(port, [
          `${method} ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Connection: close',
          `Authorization: Bearer ${TEST_API_KEY}`,
          ...headers.map(([name, value]) => `${name}: ${value}`),
          ...(body === '' ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]),
          '',
          body,
        ]);
        return { request: `${method} ${path}`, ...answer };
      }),
    );
    // The MCP call reached the SDK's transport (a 200 with the tool's answer), not a refusal of ours.
    expect(answers.find(({ request }) => request === `POST ${API_BASE_PATH}/mcp`)?.status).toBe(200);
    expect(answers.filter(({ connection, closed }) => connection !== 'close' || !closed)).toEqual([]);
  });

  // RFC 9110 section 8.8.3: an ETag describes the selected representation, and an error is none; the API's errors are
  // `no-store` (the document). A 412 on /docs/assets/swagger-ui.css carried the CSS file's ETag and `public,
  // max-age=3600`: a shared cache could keep the error for an hour, or revalidate it with that tag (304) and go on
  // serving it in place of the asset. Every routed path and every operation (REST, tRPC), each with every kind of
  // refusal, generated values in the fields: every answer of 400 or more has no validator and says `no-store`.
  const ERROR_KINDS = ['400', '401', '404', '405', '406', '412', '413', '415', '417'] as const;
  it(
    'sends no validator and Cache-Control: no-store on every error answer, of every path',
    async () => {
      const port = Number(new URL(root).port);
      // A stream (the change feed, its tRPC subscription) never ends: asked with HEAD, it ends with its head.
      const targets = [
        ...routes()
          .filter(({ path }) => !path.startsWith(`${API_BASE_PATH}/pets`)) // the operations, below
          .map(({ path, read }) => ({ method: read ? 'GET' : 'POST', path })),
        ...(Object.values(contract) as OperationContract[]).flatMap((op) => [
          ...(isRestOperation(op)
            ? [
                {
                  method: op.success.stream === undefined ? op.method : 'HEAD',
                  path: `${API_BASE_PATH}${fillPath(op.path, { petId })}`,
                },
              ]
            : []),
          ...(op.trpc === undefined
            ? []
            : [
                {
                  method: { mutation: 'POST', query: 'GET', subscription: 'HEAD' }[op.trpc.kind],
                  path: `${TRPC_MOUNT_PATH}/${op.trpc.router}.${op.trpc.procedure}`,
                },
              ]),
        ]),
      ];
      const request = (
        { method, path }: (typeof targets)[number],
        kind: (typeof ERROR_KINDS)[number],
        value: string,
      ): RawRequest => {
        const headers: [string, string][] = [['Host', '127.0.0.1']];
        headers.push(['Authorization', `Bearer ${kind === '401' ? `not-a-key-${value}` : TEST_API_KEY}`]);
        const sent: RawRequest = { method, target: path, headers };
        if (kind === '400') headers.push(['Host', '127.0.0.1']); // a singleton given twice
        if (kind === '404') sent.target = `${path}/`;
        if (kind === '405') sent.method = 'DELETE';
        if (kind === '406') headers.push(['Accept', `text/${value.replace(/\W/g, '') || 'x'}`]);
        if (kind === '412') headers.push(['If-Match', `"${value.replace(/[^\x21\x23-\x7e]/g, '')}"`]);
        if (kind === '417') headers.push(['Expect', `${value.replace(/[^\x21-\x7e]/g, '')}x`]);
        if (method === 'POST' || kind === '413' || kind === '415') {
          const body = Buffer.from(kind === '415' ? value : '{}');
          headers.push(['Content-Type', kind === '415' ? 'text/plain' : 'application/json']);
          headers.push(['Content-Length', kind === '413' ? '10000000' : String(body.length)]);
          sent.body = body;
          if (kind === '413') sent.incomplete = true;
        }
        return sent;
      };
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...targets),
          fc.constantFrom(...ERROR_KINDS),
          fc.string({ maxLength: 8 }),
          async (target, kind, value) => {
            const sent = request(target, kind, value);
            const outcome = await sendRaw('127.0.0.1', port, sent, scaled(5_000));
            if (outcome.kind !== 'response')
              throw new Error(`${kind} ${sent.method} ${sent.target}: ${outcome.kind}`);
            const { status, headers } = outcome.response;
            if (status < 400) return;
            seen.add(status);
            expect({
              status,
              etag: headers.get('etag'),
              lastModified: headers.get('last-modified'),
              cacheControl: headers.get('cache-control'),
            }).toEqual({ status, etag: undefined, lastModified: undefined, cacheControl: ['no-store'] });
          },
        ),
        {
          ...fuzzParameters(150),
          // Each kind on each target once, then generated ones.
          examples: targets.flatMap((target) =>
            ERROR_KINDS.map((kind) => [target, kind, 'x'] as [typeof target, typeof kind, string]),
          ),
        },
      );
      // Each kind of refusal was answered somewhere (the property saw it).
      expect([...seen].sort()).toEqual(expect.arrayContaining(ERROR_KINDS.map(Number)));
    },
    fuzzTimeout(150),
  );

  // An input header the contract declares (Idempotency-Key, Last-Event-ID) is read by the operations that declare
  // it (and, Last-Event-ID, by tRPC's subscription, as Server-Sent Events do); anywhere else it is refused, on every
  // transport: REST's list ignored an Idempotency-Key that tRPC's refused, MCP ignored a Last-Event-ID.
  it('refuses an input header of the contract wherever nothing reads it, on every transport', async () => {
    const port = Number(new URL(root).port);
    const operations = Object.values(contract) as OperationContract[];
    const declared = [...new Set(operations.flatMap((op) => Object.keys(op.request.headers ?? {})))];
    const value: Record<string, string> = { 'idempotency-key': 'every-route-key', 'last-event-id': '0' };
    const targets = [
      ...operations.filter(isRestOperation).map((op) => ({
        // A stream asked with HEAD ends with its head.
        method: op.success.stream === undefined ? op.method : 'HEAD',
        path: `${API_BASE_PATH}${fillPath(op.path, { petId })}`,
        reads: Object.keys(op.request.headers ?? {}).map((name) => name.toLowerCase()),
      })),
      ...operations.flatMap(({ trpc }) =>
        trpc === undefined
          ? []
          : [
              {
                method: { mutation: 'POST', query: 'GET', subscription: 'HEAD' }[trpc.kind],
                path: `${TRPC_MOUNT_PATH}/${trpc.router}.${trpc.procedure}`,
                reads: trpc.kind === 'subscription' ? ['last-event-id'] : [],
              },
            ],
      ),
      { method: 'POST', path: `${API_BASE_PATH}/mcp`, reads: [] as string[] },
    ];
    const answered: unknown[] = [];
    const ruled: unknown[] = [];
    for (const { method, path, reads } of targets) {
      for (const name of declared) {
        const lower = name.toLowerCase();
        const headers: [string, string][] = [
          ['Host', '127.0.0.1'],
          ['Authorization', `Bearer ${TEST_API_KEY}`],
          ['Accept', 'application/json, text/event-stream'],
          [name, value[lower] ?? 'x'],
        ];
        const body = Buffer.from(
          path.endsWith('/mcp')
            ? '{"jsonrpc":"2.0","id":1,"method":"ping"}'
            : path.startsWith(TRPC_MOUNT_PATH)
              ? '{"json":{"name":"Rex","categoryId":1}}'
              : '{"name":"Rex","categoryId":1}',
        );
        if (method === 'POST')
          headers.push(['Content-Type', 'application/json'], ['Content-Length', `${body.length}`]);
        const outcome = await sendRaw('127.0.0.1', port, {
          method,
          target: path,
          headers,
          ...(method === 'POST' ? { body } : {}),
        });
        const response = outcome.kind === 'response' ? outcome.response : undefined;
        const refused = /header is not read here/.test(response?.body.toString() ?? '');
        const where = `${method} ${path} ${name}`;
        answered.push({ where, status: response?.status, refused: method === 'HEAD' ? undefined : refused });
        const read = reads.includes(lower);
        ruled.push({
          where,
          status: read ? response?.status : 400,
          refused: method === 'HEAD' ? undefined : !read,
        });
        if (read) expect(response?.status, where).toBeLessThan(400);
      }
    }
    expect(answered).toEqual(ruled);
  });

  it('answers other methods, OPTIONS and preconditions by the one rule on each', async () => {
    const answered: unknown[] = [];
    const ruled: unknown[] = [];
    for (const { path, read } of routes()) {
      const { answers, expected } = await answersOf(root, path, read);
      answered.push({ path, ...answers });
      ruled.push({ path, ...expected });
    }
    expect(answered).toEqual(ruled);
  });
});

describe('the metrics listener', () => {
  let server: Server;

  beforeAll(async () => {
    server = await serveMetrics(createMetrics({}), 0, '127.0.0.1');
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('answers other methods, OPTIONS and preconditions by the same rule', async () => {
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { answers, expected } = await answersOf(root, '/metrics');
    expect(answers).toEqual(expected);
  });

  it('says the methods it serves, not those of the API, when a method is not implemented (501)', async () => {
    const port = (server.address() as AddressInfo).port;
    for (const head of ['FOO /metrics HTTP/1.1', 'CONNECT example.com:443 HTTP/1.1']) {
      const socket = connect(port, '127.0.0.1');
      socket.end(`${head}\r\nHost: x\r\n\r\n`);
      let text = '';
      for await (const chunk of socket) text += chunk;
      expect(text, head).toMatch(/^HTTP\/1\.1 501 /);
      expect(text, head).toContain('serves GET, HEAD, OPTIONS.');
    }
  });
});
