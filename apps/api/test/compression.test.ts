// Response compression (the stock `compression` middleware, app.ts) on a real server: REST, tRPC over its fast path
// and over tRPC's own handler, and the docs; negotiated from Accept-Encoding with its q-values; never for a 304 or a
// body under the threshold; HEAD reports what GET sends; always with `Vary: Accept-Encoding`.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/http.js';
import { type RawReply, rawSend } from './support/raw-send.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

/** compression's default threshold: smaller bodies are sent as they are. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

/** A reply with its body as coded on the wire (rawSend uses node:http, which, unlike fetch, decodes nothing). */
type ByteReply = RawReply;

/** One authorized request through rawSend. */
const send = (
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
) =>
  rawSend(baseUrl, path, {
    method: options.method,
    headers: { authorization: `Bearer ${TEST_API_KEY}`, ...options.headers },
  });

/** Content-Encoding, or undefined when the body is not coded. */
const codingOf = (reply: ByteReply) => reply.headers.get('content-encoding') ?? undefined;

const DECODERS: Record<string, (body: Buffer) => Buffer> = {
  gzip: gunzipSync,
  br: brotliDecompressSync,
  deflate: inflateSync,
};

/** The body as the client reads it, after undoing the coding named by Content-Encoding. */
function decoded(reply: ByteReply): string {
  const coding = codingOf(reply);
  if (coding === undefined) return reply.text;
  const decode = DECODERS[coding];
  if (decode === undefined) throw new Error(`unexpected Content-Encoding ${coding}`);
  return decode(reply.bytes).toString('utf8');
}

const varyOf = (reply: ByteReply) => (reply.headers.get('vary') ?? '').toLowerCase();
const trpcInput = (value: unknown) => encodeURIComponent(JSON.stringify(superjson.serialize(value)));

describe.each([
  { label: 'tRPC fast path', trpcFastPath: true },
  { label: "tRPC's own handler", trpcFastPath: false },
])('response compression ($label)', ({ trpcFastPath }) => {
  let server: TestServer;
  let identity: { list: string; trpc: string };

  beforeAll(async () => {
    server = await startTestServer('pglite', 'compression', { trpcFastPath });
    for (let i = 0; i < 40; i++) {
      const created = await call(server.baseUrl, '/pets', {
        method: 'POST',
        body: `{"name":"Pet number ${i}","categoryId":9007199254740993,"status":"available"}`,
      });
      expect(created.status).toBe(201);
    }
    identity = {
      list: decoded(await send(server.baseUrl, '/pets?limit=100')),
      trpc: decoded(await send(server.baseUrl, `/trpc/pets.list?input=${trpcInput({ limit: 100 })}`)),
    };
    expect(Buffer.byteLength(identity.list)).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
    expect(Buffer.byteLength(identity.trpc)).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends the body uncoded without Accept-Encoding, with Vary', async () => {
    const reply = await send(server.baseUrl, '/pets?limit=100');
    expect(codingOf(reply)).toBeUndefined();
    expect(varyOf(reply)).toContain('accept-encoding');
    expect(reply.text).toContain('9007199254740993');
  });

  it.each([
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity;q=0.5, gzip;q=0.9', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['gzip;Q=0, br;Q=0', undefined], // the weight's name in any case
    ['br;Q=0, gzip', 'gzip'],
    ['identity', undefined],
    ['compress, x-unknown', undefined],
  ])('Accept-Encoding: %s -> %s on REST and tRPC, the same text once decoded', async (accept, expected) => {
    for (const [path, text] of [
      ['/pets?limit=100', identity.list],
      [`/trpc/pets.list?input=${trpcInput({ limit: 100 })}`, identity.trpc],
    ] as const) {
      const reply = await send(server.baseUrl, path, { headers: { 'accept-encoding': accept } });
      expect(reply.status).toBe(200);
      expect({ path, coding: codingOf(reply) }).toEqual({ path, coding: expected });
      expect(varyOf(reply)).toContain('accept-encoding');
      expect(decoded(reply)).toBe(text);
      if (expected !== undefined) expect(reply.bytes.length).toBeLessThan(Buffer.byteLength(text));
    }
  });

  it('leaves a body under the threshold uncoded, even for a client that refuses identity', async () => {
    // A single pet is never coded (compression is not mounted on it: app.ts), so its answer does not vary.
    const small = await send(server.baseUrl, '/pets/1', { headers: { 'accept-encoding': 'gzip' } });
    expect(small.status).toBe(200);
    expect(codingOf(small)).toBeUndefined();
    expect(varyOf(small)).not.toContain('accept-encoding');
    // A short page is not coded either, but it varies: a longer one would be.
    const short = await send(server.baseUrl, '/pets?limit=1', { headers: { 'accept-encoding': 'gzip' } });
    expect(codingOf(short)).toBeUndefined();
    expect(varyOf(short)).toContain('accept-encoding');

    // compression has no option to code a small body for a client that refuses identity: it gets it uncoded, as
    // one that accepts no coding at all does (RFC 9110 section 12.5.3), not a 406.
    for (const accept of ['gzip, identity;q=0', 'gzip, *;q=0']) {
      const refused = await send(server.baseUrl, '/pets/1', { headers: { 'accept-encoding': accept } });
      expect(codingOf(refused)).toBeUndefined();
      expect(refused.text).toBe(small.text);
    }
    // A refused request is answered before compression is set up (app.ts): its Error body does not vary.
    for (const path of ['/pets?limit=100', `/trpc/pets.list?input=${trpcInput({ limit: 100 })}`]) {
      const refused = await send(server.baseUrl, path, {
        headers: { 'accept-encoding': 'gzip', authorization: 'Bearer wrong' },
      });
      expect(refused.status).toBe(401);
      expect(varyOf(refused)).not.toContain('accept-encoding');
    }
    const none = await send(server.baseUrl, '/pets?limit=100', { headers: { 'accept-encoding': '*;q=0' } });
    expect(none.status).toBe(200);
    expect(codingOf(none)).toBeUndefined();
    expect(none.text).toBe(identity.list);
  });

  it('answers HEAD with the coding and length GET sends (RFC 9110 section 9.3.2)', async () => {
    const representation = (reply: ByteReply) =>
      ['content-type', 'content-encoding', 'content-length', 'vary'].map((name) => reply.headers.get(name));
    for (const [path, accept] of [
      ['/pets?limit=100', 'gzip'],
      ['/pets?limit=100', 'br'],
      ['/pets?limit=100', 'identity'],
      ['/pets/1', 'gzip'],
    ] as const) {
      const headers = { 'accept-encoding': accept };
      const got = await send(server.baseUrl, path, { headers });
      const head = await send(server.baseUrl, path, { method: 'HEAD', headers });
      expect(head.status).toBe(200);
      expect(head.bytes.length).toBe(0);
      expect({ path, accept, head: representation(head) }).toEqual({
        path,
        accept,
        head: representation(got),
      });
    }
  });

  it('answers every tRPC HEAD with the headers GET sends, whoever writes the answer (RFC 9110 section 9.3.2)', async () => {
    // Every header but the message's own framing and the ones that differ per message.
    const PER_MESSAGE = new Set(['date', 'transfer-encoding', 'connection', 'keep-alive', 'x-request-id']);
    const headersOf = (reply: ByteReply) =>
      Object.fromEntries(
        [...reply.headers].filter(([name]) => !PER_MESSAGE.has(name) && !name.startsWith('ratelimit')),
      );
    // Answers of the fast path and of tRPC's own handler, long and short, successes and refusals.
    const requests: [string, Record<string, string>][] = [
      [`/trpc/pets.list?input=${trpcInput({ limit: 100 })}`, {}], // a query, large
      [`/trpc/pets.get?input=${trpcInput({ petId: 999999n })}`, {}], // a query's 404
      ['/trpc/nope', {}], // no such procedure: tRPC's own handler
      ['/trpc/nope,alsonope?batch=1', {}],
      [`/trpc/pets.list,pets.list?batch=1&input=${trpcInput({ 0: { limit: 100 }, 1: {} })}`, {}], // a batch
      ['/trpc/pets.list,nope?batch=1', {}], // a batch with an unknown call (207)
      ['/trpc/pets.list,pets.list?batch=1', { 'trpc-accept': 'application/jsonl' }], // streamed
      ['/trpc/pets.list?input=%7B', {}], // unreadable input
      [`/trpc/pets.list?input=${trpcInput({ limit: 'x' })}`, {}], // invalid input
    ];
    const encodings = [undefined, 'gzip', 'br', 'gzip, br', 'deflate', 'identity', '*', 'gzip;q=0, br;q=0'];
    for (const [path, extra] of requests) {
      for (const accept of encodings) {
        const headers = { ...extra, ...(accept === undefined ? {} : { 'accept-encoding': accept }) };
        const got = await send(server.baseUrl, path, { headers });
        const head = await send(server.baseUrl, path, { method: 'HEAD', headers });
        expect(head.bytes.length).toBe(0);
        expect({ path, accept, status: head.status, headers: headersOf(head) }).toEqual({
          path,
          accept,
          status: got.status,
          headers: headersOf(got),
        });
      }
    }
  });

  it('codes the docs and the OpenAPI document, and an error body only when large enough', async () => {
    const origin = server.baseUrl.replace(/\/v1$/, '');
    for (const path of ['/docs/assets/swagger-ui-bundle.js', '/v1/openapi.json']) {
      const reply = await send(origin, path, { headers: { 'accept-encoding': 'gzip' } });
      expect(reply.status).toBe(200);
      expect(codingOf(reply)).toBe('gzip');
      // A 304 has no body to code.
      const unchanged = await send(origin, path, {
        headers: {
          'accept-encoding': 'gzip, identity;q=0',
          'if-none-match': String(reply.headers.get('etag')),
        },
      });
      expect(unchanged.status).toBe(304);
      expect(codingOf(unchanged)).toBeUndefined();
      expect(varyOf(unchanged)).toBe(varyOf(reply));
      expect(unchanged.bytes.length).toBe(0);
    }
    const notFound = await send(server.baseUrl, '/pets/999', { headers: { 'accept-encoding': 'gzip' } });
    expect(notFound.status).toBe(404);
    expect(codingOf(notFound)).toBeUndefined();
  });
});
