// The edge's rules (src/http/edge.ts, docs/interface-decisions.md "The edge"), one case per rule, over raw
// sockets against the API as production serves it. Each of these cases was seen failing before its rule.
import { connect } from 'node:net';
import { API_BASE_PATH, contract, type OperationContract } from '@petstore/schema';
import { fillPath, isRestOperation, operationResponseHeaders } from '@petstore/schema/internal';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import { parseResponse, type RawRequest, type RawResponse, sendRaw } from './reliability/raw-http.js';
import { type EdgeServer, startEdgeServer } from './support/edge-server.js';
import { TEST_API_KEY } from './support/test-server.js';

let server: EdgeServer;
const auth: [string, string] = ['Authorization', `Bearer ${TEST_API_KEY}`];
const host: [string, string] = ['Host', '127.0.0.1'];
const json: [string, string] = ['Content-Type', 'application/json'];

beforeAll(async () => {
  server = await startEdgeServer();
  for (const [name, status] of [
    ['p1', 'pending'],
    ['a1', 'available'],
    ['s1', 'sold'],
    ['p2', 'pending'],
  ]) {
    const created = await send(
      'POST',
      '/v1/pets',
      [host, auth, json],
      `{"name":"${name}","categoryId":1,"status":"${status}"}`,
    );
    expect(created.status).toBe(201);
  }
});
afterAll(async () => {
  await server?.close();
});

async function send(
  method: string,
  target: string,
  headers: [string, string][],
  body?: string,
): Promise<RawResponse> {
  const request: RawRequest = { method, target, headers: [...headers] };
  if (body !== undefined) {
    request.body = Buffer.from(body);
    if (!headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name)))
      request.headers.push(['Content-Length', String(request.body.length)]);
  }
  const outcome = await sendRaw('127.0.0.1', server.port, request, scaled(5_000));
  if (outcome.kind !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
  return outcome.response;
}

/** Sends `raw` as it is on a connection of its own; the answer once the server closes it. */
async function exchange(raw: string, method: string): Promise<RawResponse> {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => {});
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(raw);
  await closed;
  const response = parseResponse(Buffer.concat(chunks), method);
  if (response === undefined) throw new Error(`no answer to ${raw.slice(0, raw.indexOf('\r'))}`);
  return response;
}

function expectError(response: RawResponse, status: number, code: string, message?: RegExp): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')?.[0]).toMatch(/^application\/json/);
  const body = JSON.parse(response.body.toString('utf8'));
  expect(body).toMatchObject({ code, status });
  if (message !== undefined) expect(body.message).toMatch(message);
}

const names = (response: RawResponse) =>
  (JSON.parse(response.body.toString('utf8')) as { name: string; status?: string }[]).map((pet) => pet.name);

describe('the query is read strictly, never cut', () => {
  it('1,000 empty pairs before status=pending still filter by status (no pair is dropped)', async () => {
    const target = `/v1/pets?${'&'.repeat(1_000)}status=pending&limit=100`;
    const response = await send('GET', target, [host, auth]);
    expect(response.status).toBe(200);
    expect(names(response)).toEqual(['p1', 'p2']);
  });

  it('more than 100 parameters is a 400 that names the limit, on REST and tRPC', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `x${i}=1`).join('&');
    expectError(await send('GET', `/v1/pets?${many}`, [host, auth]), 400, 'validation_failed', /at most 100/);
    const trpc = await send('GET', `/v1/trpc/pets.list?${many}&input=%7B%22json%22%3A%7B%7D%7D`, [
      host,
      auth,
    ]);
    expect(trpc.status).toBe(400);
    expect(trpc.body.toString()).toMatch(/at most 100/);
  });

  it('a parameter given twice, also spelled with percent-encoding, is a 400', async () => {
    expectError(
      await send('GET', '/v1/pets?limit=1&%6cimit=2', [host, auth]),
      400,
      'validation_failed',
      /at most once/,
    );
    expectError(
      await send('GET', '/v1/pets?status=sold&status=pending', [host, auth]),
      400,
      'validation_failed',
    );
  });

  it('an operation that takes no query refuses one; empty segments are no parameters', async () => {
    expectError(await send('GET', '/v1/pets/1?x', [host, auth]), 400, 'validation_failed', /unknown query/);
    expect((await send('GET', '/v1/pets/1?&&', [host, auth])).status).toBe(200);
  });
});

describe('an ambiguous message is refused with 400, never resolved by a guess', () => {
  it('two Idempotency-Key headers are refused, and nothing is stored', async () => {
    const before = names(await send('GET', '/v1/pets?limit=100', [host, auth])).length;
    const response = await send(
      'POST',
      '/v1/pets',
      [host, auth, json, ['Idempotency-Key', 'k1'], ['Idempotency-Key', 'k2']],
      '{"name":"two keys","categoryId":1}',
    );
    expectError(response, 400, 'malformed_request', /Idempotency-Key/);
    expect(names(await send('GET', '/v1/pets?limit=100', [host, auth])).length).toBe(before);
  });

  it.each([
    ['Host', [host, ['Host', 'other.example']]],
    ['Content-Type', [host, json, ['content-type', 'text/plain']]],
    ['X-Request-Id', [host, ['X-Request-Id', 'a'], ['X-Request-Id', 'b']]],
    ['trpc-accept', [host, ['trpc-accept', 'application/jsonl'], ['trpc-accept', 'application/jsonl']]],
    ['Petstore-Read-After', [host, ['Petstore-Read-After', '0/1'], ['Petstore-Read-After', '0/2']]],
  ] as [string, [string, string][]][])('a repeated %s is refused', async (name, headers) => {
    expectError(
      await send('GET', '/v1/pets', [...headers, auth]),
      400,
      'malformed_request',
      new RegExp(name, 'i'),
    );
  });

  it('a key repeated inside the superjson envelope (json or meta) is 400 malformed_json, in a GET and a POST', async () => {
    for (const envelope of [
      '{"json":{"limit":1,"limit":2}}',
      '{"json":{},"meta":{"values":{},"values":{}}}',
      '{"json":{},"json":{"limit":1}}',
    ]) {
      const get = await send('GET', `/v1/trpc/pets.list?input=${encodeURIComponent(envelope)}`, [host, auth]);
      expect(get.status).toBe(400);
      expect(get.body.toString()).toMatch(/malformed_json/);
    }
    const post = await send(
      'POST',
      '/v1/trpc/pets.create',
      [host, auth, json],
      '{"json":{"name":"a","categoryId":"1","name":"b"},"meta":{"values":{"categoryId":["bigint"]}}}',
    );
    expect(post.status).toBe(400);
    expect(post.body.toString()).toMatch(/malformed_json/);
  });

  it.each(['yesterday', '0x1/2', '16/B374D848/1', ''])(
    'a Petstore-Read-After that is not a position (%j) is refused; one that is is read, on REST and tRPC',
    async (value) => {
      for (const target of ['/v1/pets', '/v1/trpc/pets.list']) {
        const refused = await send('GET', target, [host, auth, ['Petstore-Read-After', value]]);
        expectError(refused, 400, 'malformed_request', /Petstore-Read-After must be a database position/);
        expect((await send('GET', target, [host, auth, ['Petstore-Read-After', '16/B374D848']])).status).toBe(
          200,
        );
      }
    },
  );

  it('a Host that is not host[:port] is refused', async () => {
    expectError(await send('GET', '/v1/pets', [['Host', 'a/b'], auth]), 400, 'malformed_request', /Host/);
  });

  // (`chunked, identity` never gets here: Node's parser refuses chunked that is not last, 400 malformed_request.)
  it.each(['gzip, chunked', 'gzip', 'identity', 'x-custom'])(
    'Transfer-Encoding %s is 415, never read as plain JSON',
    async (coding) => {
      const body = '{"name":"te","categoryId":1}';
      const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      const response = await send(
        'POST',
        '/v1/pets',
        [host, auth, json, ['Transfer-Encoding', coding]],
        chunked,
      );
      expectError(response, 415, 'unsupported_media_type', /Transfer-Encoding/);
    },
  );

  it('Transfer-Encoding: chunked alone is read', async () => {
    const body = '{"name":"chunked","categoryId":1}';
    const response = await send(
      'POST',
      '/v1/pets',
      [host, auth, json, ['Transfer-Encoding', 'chunked']],
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(response.status).toBe(201);
  });

  it('a field in a chunked trailer is refused, not ignored (an Idempotency-Key there would be read by no one)', async () => {
    const body = '{"name":"trailer","categoryId":1}';
    const response = await send(
      'POST',
      '/v1/pets',
      [host, auth, json, ['Transfer-Encoding', 'chunked']],
      `${body.length.toString(16)}\r\n${body}\r\n0\r\nIdempotency-Key: k-1\r\n\r\n`,
    );
    // A message-level refusal, as the edge's: malformed_request, and the connection is closed.
    expectError(response, 400, 'malformed_request', /trailer/);
    expect(response.headers.get('connection')).toEqual(['close']);
  });

  it('a GET with a body is refused (its body would be ignored)', async () => {
    expectError(
      await send('GET', '/v1/pets', [host, auth, json], '{"limit":1}'),
      400,
      'malformed_request',
      /no body/,
    );
  });

  it('more than 100 header fields is 431 naming the limit', async () => {
    const extra = Array.from({ length: 100 }, (_, i): [string, string] => [`X-Extra-${i}`, 'x']);
    expectError(
      await send('GET', '/v1/pets', [host, auth, ...extra]),
      431,
      'headers_too_large',
      /at most 100/,
    );
  });

  it('HTTP/1.1 without Host is 400 with an Error body', async () => {
    expectError(await send('GET', '/v1/pets', [auth]), 400, 'malformed_request', /Host/);
  });

  it('HTTP/1.0 with Transfer-Encoding is refused and the connection closed: nothing behind it is read (RFC 9112 6.1)', async () => {
    const body = '{"name":"http10 chunked","categoryId":1}';
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /v1/pets HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n' +
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` +
        'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n',
    );
    await closed;
    const received = Buffer.concat(chunks);
    expect(
      received.toString('latin1').match(/HTTP\/1\.[01] \d{3} /g),
      'one answer: nothing behind it',
    ).toHaveLength(1);
    const response = parseResponse(received, 'POST') as RawResponse;
    expectError(response, 400, 'malformed_request', /HTTP\/1\.0/);
    expect(response.headers.get('connection')).toEqual(['close']);
    expect(names(await send('GET', '/v1/pets?limit=100', [host, auth]))).not.toContain('http10 chunked');
  });
});

describe('the request target is a path, on both transports', () => {
  // RFC 9112 section 3.2.2: a server MUST accept the absolute-form; it means its origin-form.
  it.each([
    ['REST', 'http://127.0.0.1/v1/pets?limit=1', '/v1/pets?limit=1'],
    ['REST, scheme in capitals, a port', 'HTTPS://127.0.0.1:443/v1/pets', '/v1/pets'],
    ['tRPC', 'http://127.0.0.1/v1/trpc/pets.list', '/v1/trpc/pets.list'],
  ])('absolute-form is served as its origin-form on %s', async (_, target, origin) => {
    const absolute = await send('GET', target, [host, auth]);
    const plain = await send('GET', origin, [host, auth]);
    expect(absolute.status).toBe(200);
    expect(absolute.body).toEqual(plain.body);
  });

  /** A spelling of a path is answered as the path itself is: the same status and body. */
  const expectAnsweredAs = async (spelled: string, target: string) => {
    const [plain, other] = [
      await send('GET', target, [host, auth]),
      await send('GET', spelled, [host, auth]),
    ];
    expect({ status: other.status, body: other.body.toString() }, spelled).toEqual({
      status: plain.status,
      body: plain.body.toString(),
    });
  };

  // RFC 3986 section 6.2.2.2: a percent-encoded unreserved character is that character (`/v1/pets/%65vents` is
  // `/v1/pets/events`), so a normalising proxy or cache in front and the server name the same resource.
  it('a path with unreserved characters percent-encoded is the same path (generated spellings)', async () => {
    const unreserved = /[A-Za-z0-9\-._~]/;
    const paths = ['/v1/pets?limit=1', '/v1/pets/1', '/v1/trpc/pets.list', '/v1/openapi.json', '/healthz'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.infiniteStream(fc.boolean()),
        fc.boolean(),
        async (target, flips, lower) => {
          const [path = '', query] = target.split('?');
          const encoded = [...path]
            .map((char) => {
              if (!unreserved.test(char) || !flips.next().value) return char;
              const hex = char.charCodeAt(0).toString(16).toUpperCase();
              return `%${lower ? hex.toLowerCase() : hex}`;
            })
            .join('');
          const spelled = query === undefined ? encoded : `${encoded}?${query}`;
          await expectAnsweredAs(spelled, target);
        },
      ),
      { numRuns: 60 },
    );
    const events = await send('HEAD', '/v1/pets/%65vents', [host, auth]);
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')?.[0]).toMatch(/^text\/event-stream/);
    // A reserved character stays what it is: `%2F` is no path separator.
    expect((await send('GET', '/v1/pets%2F1', [host, auth])).status).toBe(404);
  });

  // RFC 3986 section 6.2.2.3: dot-segments are removed (`/v1/x/../pets` is `/v1/pets`), as a normalising proxy does,
  // also spelled `%2e`: answered as the plain path, never a 404 naming `..`.
  it('a path with dot-segments is the path without them (generated spellings)', async () => {
    const paths = [
      '/v1/pets?limit=1',
      '/v1/pets/1',
      '/v1/trpc/pets.list',
      '/v1/openapi.json',
      '/docs/init.js',
    ];
    const detour = fc.constantFrom('/.', '/%2e', '/x/..', '/y/%2E%2e', '/a/b/../..', '/x/.%2e');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), detour, fc.nat(), async (target, extra, at) => {
        const [path = '', query] = target.split('?');
        const cuts = [...path.matchAll(/\//g)].map((found) => found.index);
        const cut = cuts[at % cuts.length] as number;
        const spelled = `${path.slice(0, cut)}${extra}${path.slice(cut)}${query === undefined ? '' : `?${query}`}`;
        await expectAnsweredAs(spelled, target);
      }),
      { numRuns: 40 },
    );
  });

  it.each(['http://user@127.0.0.1/v1/pets', 'ftp://127.0.0.1/v1/pets', 'http:///v1/pets'])(
    'an absolute target that is not an http(s) URL with a host is 400: %s',
    async (target) => {
      expectError(await send('GET', target, [host, auth]), 400, 'malformed_request');
    },
  );

  // The class behind `http://a[b/v1/pets` (Express's router could not route it: its HTML 404) and `http://a%/...`
  // (served): an authority is a host[:port] of RFC 3986 characters, or the request is 400 with an Error body.
  it('generated absolute-form authorities: a host[:port] is served, anything else is 400 malformed_request', async () => {
    const hostChar = fc.oneof(
      fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=".split('')),
      fc.constantFrom('%41', '%7e', '%2D'),
    );
    // A stray `%` is followed by what cannot complete it (`%4` then `a` would be `%4a`, valid pct-encoding).
    const stray = fc.constantFrom(
      '[',
      ']',
      '%g',
      '%4g',
      '%zz',
      '{',
      '}',
      '|',
      '^',
      '`',
      '\\',
      '"',
      '<',
      '>',
      ':x',
    );
    const authority = fc.oneof(
      fc
        .tuple(
          fc.array(hostChar, { minLength: 1, maxLength: 8 }),
          fc.option(fc.nat(65535), { nil: undefined }),
        )
        .map(([chars, port]) => ({
          text: `${chars.join('')}${port === undefined ? '' : `:${port}`}`,
          valid: true,
        })),
      fc
        .tuple(fc.array(hostChar, { maxLength: 4 }), stray, fc.array(hostChar, { maxLength: 4 }))
        .map(([before, bad, after]) => ({ text: `${before.join('')}${bad}${after.join('')}`, valid: false })),
    );
    await fc.assert(
      fc.asyncProperty(
        authority,
        fc.constantFrom('/v1/pets?limit=1', '/v1/trpc/pets.list'),
        async (a, path) => {
          const response = await send('GET', `http://${a.text}${path}`, [host, auth]);
          if (a.valid) expect(response.status, a.text).toBe(200);
          else expectError(response, 400, 'malformed_request');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a fragment or a raw non-ASCII byte in the target is 400', async () => {
    expectError(await send('GET', '/v1/pets#x', [host, auth]), 400, 'malformed_request', /#/);
    expectError(await send('GET', '/v1/pets?status=\u00e9', [host, auth]), 400, 'malformed_request');
  });

  // The path of a target ends at `?` or `#`: `/v1/pets/events#x` was refused with getPet's headers (Deprecation,
  // Sunset, Petstore-Stability: stable) though the feed is beta, and `/v1/pets#x` with none, by the edge and by
  // Node's parser alike (a version it refuses, headers over its size limit).
  it("a target with a fragment is refused with its operation's headers, by the edge and by Node's parser", async () => {
    const operations = (Object.values(contract) as OperationContract[]).filter(isRestOperation);
    const named = [...new Set(operations.flatMap((op) => Object.keys(operationResponseHeaders(op))))];
    const fragment = fc.string({ unit: fc.constantFrom(..."ab09-._~!$&'()*+,;=:@/?#"), maxLength: 6 });
    const refusals = {
      edge: { version: 'HTTP/1.1', extra: '' },
      version: { version: 'HTTP/1.2', extra: '' },
      oversized: { version: 'HTTP/1.1', extra: `X-Big: ${'a'.repeat(20_000)}\r\n` },
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...operations.map((op) => op.id)),
        fc.oneof(
          fc.constant('#'),
          fragment.map((text) => `#${text}`),
          fc.tuple(fragment, fragment).map(([query, text]) => `?${query.replaceAll('#', '')}#${text}`),
        ),
        fc.constantFrom(...(Object.keys(refusals) as (keyof typeof refusals)[])),
        async (id, suffix, refusedBy) => {
          const op = operations.find((operation) => operation.id === id) as (typeof operations)[number];
          const { version, extra } = refusals[refusedBy];
          const target = `${API_BASE_PATH}${fillPath(op.path, { petId: '1' })}${suffix}`;
          const response = await exchange(
            `${op.method} ${target} ${version}\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n${extra}\r\n`,
            op.method,
          );
          expect(response.status, `${refusedBy} ${op.method} ${target}`).toBe(
            refusedBy === 'oversized' ? 431 : 400,
          );
          const sent = Object.fromEntries(
            named.flatMap(
              (name) => response.headers.get(name.toLowerCase())?.map((value) => [name, value]) ?? [],
            ),
          );
          expect(sent, `${refusedBy} ${op.method} ${target}`).toEqual(operationResponseHeaders(op));
        },
      ),
      { numRuns: 60 },
    );
  });

  // RFC 9112 sections 3.2.4, 3.3: an absolute-form OPTIONS with an empty path is the asterisk-form (it was 404).
  it.each(['*', 'http://127.0.0.1:4620', 'HTTP://example.com'])(
    'OPTIONS %s lists the methods the server serves',
    async (target) => {
      const response = await send('OPTIONS', target, [host]);
      expect(response.status).toBe(204);
      expect(response.headers.get('allow')).toEqual(['GET, HEAD, POST, OPTIONS']);
    },
  );

  // Node closed the connection without a word; then a 405 listed the server's methods, POST included, as the Allow
  // of a target that names no resource of ours (an authority), or of a path that refuses POST.
  it.each([
    ['an authority', '127.0.0.1:443'],
    ['a path', '/v1/pets/1'],
  ])('CONNECT to %s is 501 not_implemented with an Error body and no Allow', async (_form, target) => {
    const response = await send('CONNECT', target, [['Host', '127.0.0.1:443'], auth]);
    expectError(response, 501, 'not_implemented', /CONNECT/);
    expect(response.headers.get('allow')).toBeUndefined();
  });

  it('TRACE is 405 with Allow on a path that exists', async () => {
    const response = await send('TRACE', '/v1/pets', [host, auth]);
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toEqual(['GET, HEAD, POST, OPTIONS']);
  });
});

/** Sends the head of a request, waits, and reports what came back before any body was sent. */
async function expectContinue(head: string, body: string): Promise<{ early: string; all: string }> {
  const socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  const closed = new Promise((resolve) => socket.once('close', resolve));
  try {
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(head);
    // Either an interim 100 or a final answer comes back without the body.
    const deadline = Date.now() + scaled(5_000);
    while (received === '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const early = received;
    if (early.startsWith('HTTP/1.1 100')) socket.end(body);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, scaled(5_000)))]);
    return { early, all: received };
  } finally {
    socket.destroy();
  }
}

describe('100 Continue only once the request could be accepted', () => {
  const head = (headers: string) =>
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n${headers}Connection: close\r\n\r\n`;

  it('a declared 10 MB body gets the 413 and never 100 Continue', async () => {
    const { early } = await expectContinue(
      head(`Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: 10485760\r\n`),
      '',
    );
    expect(early).toMatch(/^HTTP\/1\.1 413 /);
    expect(early).not.toMatch(/100 Continue/);
  });

  it('a compressed or non-JSON body gets the 415 and never 100 Continue', async () => {
    const accepted = head(`Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: 30\r\n`);
    for (const request of [
      accepted.replace('Expect:', 'Content-Encoding: gzip\r\nExpect:'),
      accepted.replace('application/json', 'text/plain'),
      // A declared body without a Content-Type: known from the head alone.
      accepted.replace('Content-Type: application/json\r\n', ''),
      accepted.replace('/v1/pets', '/v1/trpc/pets.create').replace('Content-Type: application/json\r\n', ''),
    ]) {
      expect((await expectContinue(request, '')).early, request).toMatch(/^HTTP\/1\.1 415 /);
    }
  });

  it('an MCP message whose Accept takes no answer type gets the 406 and never 100 Continue', async () => {
    const request = head(
      `Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: 30\r\nAccept: text/html\r\n`,
    ).replace('/v1/pets', '/v1/mcp');
    expect((await expectContinue(request, '')).early).toMatch(/^HTTP\/1\.1 406 /);
  });

  it('a missing key gets the 401 and never 100 Continue', async () => {
    const { early } = await expectContinue(head('Content-Length: 30\r\n'), '');
    expect(early).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('an Expect that merely contains 100-continue is 417, never 100 Continue (found by the fuzzer)', async () => {
    const { early } = await expectContinue(
      head(`Authorization: Bearer ${TEST_API_KEY}\r\n`).replace('100-continue', '100-continue, foo'),
      '',
    );
    expect(early).toMatch(/^HTTP\/1\.1 417 /);
  });

  it('an acceptable request gets 100 Continue, then its answer', async () => {
    const body = '{"name":"expected","categoryId":1}';
    const { early, all } = await expectContinue(
      head(`Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: ${body.length}\r\n`),
      body,
    );
    expect(early).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    expect(all).toMatch(/HTTP\/1\.1 201 /);
  });
});

describe('the body reader (body-parser) refuses with the headers that say what to do, on REST and tRPC', () => {
  const targets = ['/v1/pets', '/v1/trpc/pets.create'];
  const big = `{"name":"${'x'.repeat(70 * 1024)}","categoryId":1}`;
  const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const codeOf = (response: RawResponse) => JSON.stringify(JSON.parse(response.body.toString('utf8')));

  it.each(targets)(
    'a body over the limit, declared or counted, is 413 with Connection: close (%s)',
    async (target) => {
      const declared = await send('POST', target, [host, auth, json, ['Content-Length', '70000']]);
      const counted = await send(
        'POST',
        target,
        [host, auth, json, ['Transfer-Encoding', 'chunked']],
        chunked(big),
      );
      for (const response of [declared, counted]) {
        expect(response.status).toBe(413);
        expect(codeOf(response)).toContain('"payload_too_large"');
        expect(response.headers.get('connection')).toEqual(['close']);
      }
    },
  );

  it.each(targets)('a compressed body is 415 with Accept-Encoding: identity (%s)', async (target) => {
    const response = await send('POST', target, [host, auth, json, ['Content-Encoding', 'gzip']], '{}');
    expect(response.status).toBe(415);
    expect(codeOf(response)).toContain('"unsupported_media_type"');
    expect(response.headers.get('accept-encoding')).toEqual(['identity']);
  });
});
