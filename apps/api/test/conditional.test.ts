// Conditional requests and content codings by RFC 9110 (sections 8.8, 12.5.3, 13, 15.4.5), on generated requests:
// every combination of method, Accept-Encoding, If-Match and If-None-Match against the documentation (weak entity
// tags, compressed) and the operations (no entity tags; the list compressed), checked against one model of the
// rules written here, independent of http/preconditions.ts. The fields are drawn from lists whose members say what
// they are (absent, `*`, a list of tags, malformed): the model does not parse them. One database (PGlite): the
// rules are the HTTP layer's; the server checks every answer against the document, as everywhere.
import { connect } from 'node:net';
import { API_BASE_PATH } from '@petstore/schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { sendRaw } from './reliability/raw-http.js';
import { MCP_POST_HEADERS } from './support/fuzz-inputs.js';
import { rawSend } from './support/raw-send.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

/** A field value and what it is. `tags` are the opaque parts; `current` stands for the target's own tag. */
type Field =
  | { kind: 'absent' }
  | { kind: 'star' }
  | { kind: 'tags'; text: (current: string) => string; names: (current: string) => string[] }
  | { kind: 'malformed'; text: (current: string) => string };

const opaque = (tag: string) => tag.replace(/^W\//, '');
const FIELDS: Field[] = [
  { kind: 'absent' },
  { kind: 'star' },
  { kind: 'tags', text: () => '"no-such-tag"', names: () => ['"no-such-tag"'] },
  { kind: 'tags', text: (current) => current, names: (current) => [opaque(current)] },
  { kind: 'tags', text: (current) => opaque(current), names: (current) => [opaque(current)] },
  {
    kind: 'tags',
    text: (current) => `"other", ${current}`,
    names: (current) => ['"other"', opaque(current)],
  },
  { kind: 'malformed', text: (current) => `xx${current}yy` },
  { kind: 'malformed', text: (current) => `${current}, garbage` },
  { kind: 'malformed', text: (current) => `${current} ${current}` },
  // `*` with anything else: two `*` lines, which Node joins, or `*` and a tag.
  { kind: 'malformed', text: () => '*, *' },
  { kind: 'malformed', text: (current) => `*, ${current}` },
  { kind: 'malformed', text: (current) => `${current}, *` },
];

/** Accept-Encoding values, each with the codings it certainly allows and those it may allow. */
const ENCODINGS: { value: string | undefined; certain: string[]; possible: string[] }[] = [
  { value: undefined, certain: [], possible: [] },
  { value: 'identity', certain: [], possible: [] },
  { value: 'gzip', certain: ['gzip'], possible: ['gzip'] },
  { value: 'br', certain: ['br'], possible: ['br'] },
  { value: 'deflate', certain: ['deflate'], possible: ['deflate'] },
  { value: 'br, gzip', certain: ['br', 'gzip'], possible: ['br', 'gzip'] },
  { value: 'gzip;q=0, identity', certain: [], possible: [] },
  { value: 'gzip;q=0.5, deflate;q=0.1', certain: ['gzip', 'deflate'], possible: ['gzip', 'deflate'] },
  { value: '*', certain: [], possible: ['gzip', 'br', 'deflate'] },
];

interface Target {
  name: string;
  path: string;
  /** The representation's entity tag; the operations send none. */
  tag?: string;
  /** Whether its body can be coded (large enough, compressible): then every answer says `Vary: Accept-Encoding`. */
  coded: boolean;
  method: 'GET' | 'POST';
  /** The success status. */
  status: number;
}

describe('conditional requests and codings (RFC 9110), generated', () => {
  let server: TestServer;
  let origin: string;
  const targets: Target[] = [];

  const count = async () => {
    const reply = await rawSend(server.baseUrl, '/pets?limit=100', {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    return (JSON.parse(reply.text) as unknown[]).length;
  };

  beforeAll(async () => {
    server = await startTestServer('pglite', 'conditional');
    origin = server.baseUrl.replace(/\/v1$/, '');
    let id = '';
    for (let index = 0; index < 30; index++) {
      const created = await rawSend(server.baseUrl, '/pets', {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Pet number ${index} with a long enough name`, categoryId: index }),
      });
      id = (JSON.parse(created.text) as { id: number }).id.toString();
    }
    const tagOf = async (path: string) => (await rawSend(origin, path)).headers.get('etag') ?? undefined;
    targets.push(
      {
        name: 'document',
        path: '/v1/openapi.json',
        tag: await tagOf('/v1/openapi.json'),
        coded: true,
        method: 'GET',
        status: 200,
      },
      {
        name: 'asset',
        path: '/docs/assets/swagger-ui.css',
        tag: await tagOf('/docs/assets/swagger-ui.css'),
        coded: true,
        method: 'GET',
        status: 200,
      },
      { name: 'listPets', path: '/v1/pets?limit=30', coded: true, method: 'GET', status: 200 },
      { name: 'getPet', path: `/v1/pets/${id}`, coded: false, method: 'GET', status: 200 },
      { name: 'createPet', path: '/v1/pets', coded: false, method: 'POST', status: 201 },
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The model: the status RFC 9110 section 13.2.2 gives, for a target that exists. */
  function expectedStatus(target: Target, method: string, ifMatch: Field, ifNoneMatch: Field): number {
    const current = target.tag;
    // A malformed field names no condition: nothing is applied under it (If-Match false; If-None-Match false but on
    // a read, which answers in full).
    const read = method === 'GET' || method === 'HEAD';
    if (ifMatch.kind === 'malformed' || (ifNoneMatch.kind === 'malformed' && !read)) return 412;
    if (ifMatch.kind === 'tags') {
      // Strong comparison: a weak tag (ours) never matches; the operations have none.
      const strong = current !== undefined && !current.startsWith('W/');
      if (!strong || !ifMatch.names(current).includes(current)) return 412;
    }
    const noneMatches =
      ifNoneMatch.kind === 'star' ||
      (ifNoneMatch.kind === 'tags' &&
        current !== undefined &&
        ifNoneMatch.names(current).includes(opaque(current)));
    if (noneMatches) return read ? 304 : 412;
    return target.status;
  }

  // RFC 9110 section 13.2.1: a precondition is ignored where the answer without it would not be a 2xx, so what is
  // decided from a write's head (415, 413, and MCP's 406) beats a false precondition, on every transport's write:
  // the order was REST's alone (tRPC and MCP answered 412).
  it('answers a write head refusal before 412 on REST, tRPC and MCP (RFC 9110 section 13.2.1)', async () => {
    const port = Number(new URL(origin).port);
    const writes = [
      { target: `${API_BASE_PATH}/pets`, headers: [] as [string, string][] },
      { target: `${API_BASE_PATH}/trpc/pets.create`, headers: [] as [string, string][] },
      {
        target: `${API_BASE_PATH}/mcp`,
        headers: [['Accept', MCP_POST_HEADERS.accept]] as [string, string][],
      },
    ];
    const refusals = [
      { status: 415, headers: [['Content-Type', 'text/plain']], incomplete: false },
      { status: 413, headers: [['Content-Type', 'application/json']], incomplete: true },
      {
        status: 406,
        headers: [
          ['Content-Type', 'application/json'],
          ['Accept', 'text/html'],
        ],
        incomplete: false,
      },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes),
        fc.constantFrom(...refusals),
        fc.constantFrom(
          ...FIELDS.filter((field): field is Exclude<Field, { kind: 'absent' }> => field.kind !== 'absent'),
        ),
        fc.constantFrom('If-Match', 'If-None-Match'),
        async (write, refusal, field, name) => {
          // 406 is MCP's alone: REST and tRPC answer JSON whatever Accept says.
          if (refusal.status === 406 && !write.target.endsWith('/mcp')) return;
          const body = Buffer.from('{}');
          const headers: [string, string][] = [
            ['Host', '127.0.0.1'],
            ['Authorization', `Bearer ${TEST_API_KEY}`],
            ...write.headers.filter(([header]) => !refusal.headers.some(([other]) => other === header)),
            ...(refusal.headers as [string, string][]),
            ['Content-Length', refusal.incomplete ? '10000000' : String(body.length)],
            [name, field.kind === 'star' ? '*' : field.text('"x"')],
          ];
          const outcome = await sendRaw(
            '127.0.0.1',
            port,
            { method: 'POST', target: write.target, headers, body, incomplete: refusal.incomplete },
            scaled(5_000),
          );
          expect(outcome.kind === 'response' ? outcome.response.status : outcome.kind).toBe(refusal.status);
        },
      ),
      { seed: 1321, numRuns: 120 },
    );
  });

  /** One request as raw bytes (repeated header lines), on a connection of its own: the whole answer's text. */
  const exchange = async (request: string) => {
    const socket = connect(Number(new URL(origin).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.end(request);
    let text = '';
    for await (const chunk of socket) text += chunk;
    return text;
  };

  // Node joins repeated lines with `, `: two `If-None-Match: *` lines were `*, *`, malformed, held as if absent, so a
  // createPet under them stored a pet (one line: 412).
  it('applies no create under a condition sent as two lines (`*` twice, `*` and a tag): 412, nothing stored', async () => {
    const auth = `Authorization: Bearer ${TEST_API_KEY}\r\n`;
    const body = '{"name":"Twice","categoryId":1}';
    for (const lines of [
      ['*', '*'],
      ['"a"', '*'],
      ['*', 'W/"a"'],
    ]) {
      for (const name of ['If-None-Match', 'If-Match']) {
        const before = await count();
        const fields = lines.map((line) => `${name}: ${line}\r\n`).join('');
        const create = await exchange(
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${auth}${fields}Content-Type: application/json\r\n` +
            `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
        const where = `${name} ${lines.join(' / ')}`;
        expect(create, where).toMatch(/^HTTP\/1\.1 412 [\s\S]*"code":"precondition_failed"/);
        expect(await count(), `${where}: pets stored`).toBe(before);
      }
    }
  });

  // The 412 said "The API sends no entity tags on its operations" on the document too, which sends one.
  it("says in a 412 what is true of the route: the document's tag, or that an operation sends none", async () => {
    const headers = { authorization: `Bearer ${TEST_API_KEY}`, 'if-match': '"x"' };
    for (const target of targets.filter(({ method }) => method === 'GET')) {
      const reply = await rawSend(origin, target.path, { headers });
      const { message } = JSON.parse(reply.text) as { message: string };
      if (target.tag === undefined) expect(message, target.name).toContain('sends no entity tag');
      else expect(message, target.name).toContain(`entity tag is ${target.tag}`);
    }
  });

  it('answers every combination as the model says; HEAD as GET; a 412 stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 4 }),
        fc.constantFrom(...ENCODINGS),
        fc.constantFrom(...FIELDS),
        fc.constantFrom(...FIELDS),
        async (which, encoding, ifMatch, ifNoneMatch) => {
          const target = targets[which] as Target;
          const current = target.tag ?? '"op"';
          const headers: Record<string, string> = { authorization: `Bearer ${TEST_API_KEY}` };
          if (encoding.value !== undefined) headers['accept-encoding'] = encoding.value;
          if (ifMatch.kind === 'star') headers['if-match'] = '*';
          else if (ifMatch.kind !== 'absent') headers['if-match'] = ifMatch.text(current);
          if (ifNoneMatch.kind === 'star') headers['if-none-match'] = '*';
          else if (ifNoneMatch.kind !== 'absent') headers['if-none-match'] = ifNoneMatch.text(current);
          const where = `${target.name} ${JSON.stringify(headers)}`;

          if (target.method === 'POST') {
            const before = await count();
            const reply = await rawSend(origin, target.path, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'Conditional', categoryId: 1 }),
            });
            const status = expectedStatus(target, 'POST', ifMatch, ifNoneMatch);
            expect(reply.status, where).toBe(status);
            expect(await count(), `${where}: pets stored`).toBe(status === 201 ? before + 1 : before);
            return;
          }

          const get = await rawSend(origin, target.path, { headers });
          const head = await rawSend(origin, target.path, { method: 'HEAD', headers });
          const status = expectedStatus(target, 'GET', ifMatch, ifNoneMatch);
          expect(get.status, where).toBe(status);
          // HEAD reports what GET sends (section 9.3.2): status, coding, length, validators, Vary.
          for (const name of [
            'content-encoding',
            'content-length',
            'content-type',
            'etag',
            'vary',
            'cache-control',
          ])
            expect(head.headers.get(name), `${where}: HEAD ${name}`).toBe(get.headers.get(name));
          expect(head.status, where).toBe(get.status);
          expect(head.bytes.length, where).toBe(0);
          // An answer that may be coded says so, 304 included (section 15.4.5).
          if (target.coded && status !== 412)
            expect(get.headers.get('vary') ?? '', `${where}: Vary`).toMatch(/accept-encoding/i);
          if (status === 304) {
            expect(get.bytes.length, where).toBe(0);
            expect(get.headers.get('etag') ?? undefined, where).toBe(target.tag);
            expect(get.headers.get('content-encoding'), where).toBeNull();
            return;
          }
          if (status === 412) return;
          const coding = get.headers.get('content-encoding');
          if (coding !== null) expect(encoding.possible, `${where}: coded ${coding}`).toContain(coding);
          if (target.coded && encoding.certain.length > 0)
            expect(encoding.certain, `${where}: coded`).toContain(coding);
          // A validator per representation: a coded body never carries a strong tag (section 8.8.1).
          const etag = get.headers.get('etag');
          if (target.tag !== undefined) expect(etag, where).toBe(target.tag);
          else expect(etag, where).toBeNull();
          if (etag !== null && coding !== null)
            expect(etag, `${where}: a strong tag on coded bytes`).toMatch(/^W\//);
        },
      ),
      { numRuns: 150 },
    );
  });
});
