// The MCP endpoint (/v1/mcp) through the official MCP client over real HTTP, on both databases and in both protocol
// eras the SDK serves (2026-07-28 through `server/discover`, and the 2025 `initialize` handshake): the tools the
// contract makes (names, schemas, annotations, output schemas), each tool called, paging through 250 pets with
// nextCursor, the size bound, a bad key, a bad argument (the same Error as REST), int64 past 2^53 exact both
// ways, a keyed create retried, the caller's rate limit.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { stringifyJson } from '@petstore/schema';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import Negotiator from 'negotiator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { MCP_PAGE_BYTES } from '../src/mcp/mcp.js';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';
import { mcpToolCall } from './support/fuzz-inputs.js';
import { atStartOfRateWindow, call } from './support/http.js';
import { fuzzAgent, rawSend } from './support/raw-send.js';
import {
  DATABASE_KINDS,
  OTHER_API_KEY,
  startTestServer,
  TEST_API_KEY,
  type TestServer,
  UNREACHABLE_DATABASE,
} from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

type Json = Record<string, unknown>;
type Era = 'modern' | 'legacy';
interface ToolAnswer {
  isError?: boolean;
  _meta?: Json;
  structuredContent?: Json;
  content: { type: string; text: string }[];
}

/** The official client connected to `server`: pinned to 2026-07-28, or the 2025 handshake. */
async function connect(server: TestServer, era: Era, apiKey: string = TEST_API_KEY): Promise<Client> {
  const client = new Client(
    { name: 'petstore-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

/** One JSON-RPC message POSTed over raw HTTP in the 2025 stateless form (what any HTTP client can send). */
function postMcp(
  baseUrl: string,
  body: string,
  { path = '/mcp', version = '2025-06-18' as string | null, headers = {} as Record<string, string> } = {},
) {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TEST_API_KEY}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(version === null ? {} : { 'mcp-protocol-version': version }),
      ...headers,
    },
    body,
  });
}

/** One tools/call over raw HTTP, its arguments the exact text given. */
async function rawToolCall(
  server: TestServer,
  name: string,
  argumentsText: string,
  headers: Record<string, string> = {},
): Promise<ToolAnswer> {
  const response = await postMcp(server.baseUrl, mcpToolCall(name, argumentsText), { headers });
  expect(response.status).toBe(200);
  const text = await response.text();
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
  return (JSON.parse(json) as { result: ToolAnswer }).result;
}

/** A JSON-RPC answer, whether it came as JSON or as one event of a stream. */
async function jsonRpcAnswer(response: Response): Promise<Json> {
  const text = await response.text();
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
  return JSON.parse(json) as Json;
}

/** A 2026-07-28 request (the official client's first): the era is in the envelope and the headers. */
const MODERN_DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'petstore-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

describe.each(DATABASE_KINDS)('MCP on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, 'mcp');
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.each(['modern', 'legacy'] as const)('%s era', (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(server, era);
    });
    afterAll(async () => {
      await client?.close();
    });
    const callTool = async (name: string, args: Json) =>
      (await client.callTool({ name, arguments: args })) as unknown as ToolAnswer;

    it('negotiates the era asked for', () => {
      expect(client.getProtocolEra()).toBe(era);
      expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    });

    it('lists one tool per REST operation of the contract, with annotations and output schemas; getPet hidden', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['createPet', 'listPets']);
      const list = tools.find((tool) => tool.name === 'listPets');
      expect(list?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
      expect(list?.inputSchema).toMatchObject({
        type: 'object',
        properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      });
      expect(list?.outputSchema).toMatchObject({
        type: 'object',
        properties: { items: { type: 'array' }, nextCursor: {} },
      });
      const create = tools.find((tool) => tool.name === 'createPet');
      expect(create?.annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      });
      const input = create?.inputSchema as { properties: Record<string, Json>; required: string[] };
      expect(Object.keys(input.properties).sort()).toEqual([
        'categoryId',
        'idempotencyKey',
        'name',
        'status',
      ]);
      expect(input.required.sort()).toEqual(['categoryId', 'name']);
      // int64: a JSON integer or a string spelling one; answered as digits. The schema takes what the tool takes:
      // a validating client holds every int64 the operation accepts (as the number it parsed) for valid; no
      // bound past 2^53, which as a number would be rounded, or clamped to 2^53 would refuse valid integers.
      expect(input.properties.categoryId).toMatchObject({ anyOf: [{ type: 'integer' }, { type: 'string' }] });
      const validate = new Ajv2020({ strict: false }).compile(input);
      fc.assert(
        fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (categoryId) => {
          const args = JSON.parse(`{"name":"n","categoryId":${categoryId}}`);
          expect(validate(args), String(categoryId)).toBe(true);
          expect(validate({ ...args, categoryId: String(categoryId) }), String(categoryId)).toBe(true);
        }),
      );
      expect(
        (create?.outputSchema as { properties: Record<string, Json> } | undefined)?.properties.id,
      ).toMatchObject({
        type: 'string',
      });
    });

    it('creates and lists pets, int64 past 2^53 exact both ways; the text is the structured answer', async () => {
      const created = await callTool('createPet', {
        name: `Rex ${era}`,
        categoryId: '9007199254740993',
        status: 'available',
      });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({ name: `Rex ${era}`, categoryId: '9007199254740993' });
      expect(JSON.parse(created.content[0]?.text ?? '')).toEqual(created.structuredContent);
      const id = (created.structuredContent as { id: string }).id;
      // The row REST reads is the one MCP wrote, to the digit.
      expect((await call(server.baseUrl, `/pets/${id}`)).text).toContain('"categoryId":9007199254740993');
      const listed = await callTool('listPets', { limit: 100, status: 'available' });
      expect((listed.structuredContent?.items as Json[] | undefined)?.some((pet) => pet.id === id)).toBe(
        true,
      );
    });

    it('answers a bad argument with the same Error body as REST', async () => {
      for (const [args, query] of [
        [{ limit: 0 }, 'limit=0'],
        [{ limit: 101 }, 'limit=101'],
        [{ status: 'lost' }, 'status=lost'],
        [{ cursor: 'forged' }, 'cursor=forged'],
      ] as const) {
        const answer = await callTool('listPets', args);
        expect(answer.isError, JSON.stringify(args)).toBe(true);
        expect(answer.structuredContent).toEqual((await call(server.baseUrl, `/pets?${query}`)).body);
      }
      const bad = await callTool('createPet', { name: ' ', categoryId: 1 });
      expect(bad.isError).toBe(true);
      const rest = await call(server.baseUrl, '/pets', {
        method: 'POST',
        body: '{"name":" ","categoryId":1}',
      });
      expect(bad.structuredContent).toEqual(rest.body);
    });

    it('replays a keyed create retried once: one pet', async () => {
      const args = { name: `Keyed ${era}`, categoryId: 7, idempotencyKey: `mcp-${kind}-${era}` };
      const first = await callTool('createPet', args);
      const again = await callTool('createPet', args);
      expect(again.structuredContent).toEqual(first.structuredContent);
      const other = await callTool('createPet', { ...args, name: 'Someone else' });
      expect(other.structuredContent).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    });
  });

  it('pages through 250 pets with nextCursor: each once, in id order', async () => {
    const paging = await startTestServer(kind, 'mcp-paging');
    const client = await connect(paging, 'modern');
    try {
      for (let index = 0; index < 250; index++) {
        await call(paging.baseUrl, '/pets', {
          method: 'POST',
          body: `{"name":"p${index}","categoryId":${index}}`,
        });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await client.callTool({
          name: 'listPets',
          arguments: cursor === null ? { limit: 100 } : { limit: 100, cursor },
        })) as unknown as ToolAnswer;
        const { items, nextCursor } = page.structuredContent as {
          items: { id: string }[];
          nextCursor: string | null;
        };
        seen.push(...items.map((pet) => pet.id));
        cursor = nextCursor;
      } while (cursor !== null);
      expect(seen).toHaveLength(250);
      const ids = seen.map(BigInt);
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(new Set(seen).size).toBe(250);
      // Without a limit: the contract's default page.
      const first = (await client.callTool({ name: 'listPets', arguments: {} })) as unknown as ToolAnswer;
      expect((first.structuredContent?.items as unknown[] | undefined)?.length).toBe(20);
    } finally {
      await client.close();
      await paging.close();
    }
  });

  it(`answers a page over ${MCP_PAGE_BYTES / 1024} KiB shorter, with the cursor where it stopped`, async () => {
    const big = await startTestServer(kind, 'mcp-big');
    const client = await connect(big, 'legacy');
    try {
      const name = '\u{1F415}'.repeat(255); // 1,020 bytes of UTF-8
      for (let index = 0; index < 100; index++) {
        await call(big.baseUrl, '/pets', {
          method: 'POST',
          body: stringifyJson({ name, categoryId: index }),
        });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = (await client.callTool({
          name: 'listPets',
          arguments: cursor === null ? { limit: 100 } : { limit: 100, cursor },
        })) as unknown as ToolAnswer;
        expect(Buffer.byteLength(page.content[0]?.text ?? '')).toBeLessThanOrEqual(MCP_PAGE_BYTES);
        const { items, nextCursor } = page.structuredContent as {
          items: { id: string }[];
          nextCursor: string | null;
        };
        expect(items.length).toBeGreaterThan(0);
        seen.push(...items.map((pet) => pet.id));
        cursor = nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBeGreaterThan(1);
      expect(new Set(seen).size).toBe(100);
    } finally {
      await client.close();
      await big.close();
    }
  });

  it('takes an int64 past 2^53 as an exact JSON number too, and refuses one out of range', async () => {
    const created = await rawToolCall(server, 'createPet', '{"name":"Big","categoryId":9223372036854775807}');
    expect(created.structuredContent).toMatchObject({ categoryId: '9223372036854775807' });
    const over = await rawToolCall(server, 'createPet', '{"name":"Big","categoryId":9223372036854775808}');
    expect(over.isError).toBe(true);
    expect(over.structuredContent).toMatchObject({ code: 'validation_failed', status: 400 });
  });

  it('refuses a request without a valid key with 401 and a Bearer challenge that points to no OAuth metadata', async () => {
    for (const authorization of [undefined, 'Bearer not-a-key-of-ours']) {
      const response = await fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(response.status).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer realm="petstore"/);
      // No OAuth authorization server (keys are issued out of band): MCP's metadata document would have to name one.
      expect(challenge).not.toMatch(/resource_metadata/);
      expect((await response.json()) as Json).toMatchObject({ code: 'unauthorized', status: 401 });
    }
    // The official client surfaces the refusal at connect.
    await expect(connect(server, 'legacy', 'not-a-key-of-ours')).rejects.toThrow();
  });

  it('judges the arguments as sent, as REST judges the body: `__proto__`, arguments that are not an object', async () => {
    const proto = await rawToolCall(
      server,
      'createPet',
      '{"name":"x","categoryId":1,"__proto__":{"status":"sold"}}',
    );
    const rest = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"x","categoryId":1,"__proto__":{"status":"sold"}}',
    });
    expect(rest.status).toBe(400);
    expect(proto.isError).toBe(true);
    expect(proto.structuredContent).toEqual(rest.body);
    for (const args of ['null', '[]', '"x"', '5']) {
      const answer = await rawToolCall(server, 'listPets', args);
      expect(answer.isError, args).toBe(true);
      expect(answer.structuredContent, args).toMatchObject({ code: 'validation_failed', status: 400 });
    }
  });

  it('refuses what it would otherwise ignore or change: a query parameter, an id past 2^53; serves exactly /v1/mcp', async () => {
    const post = (path: string, body: string) => postMcp(server.baseUrl, body, { path });
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    expect((await post('/mcp?x=1', ping)).status).toBe(400);
    // Every id that is not a string or an integer within 2^53 (MCP: a string or an integer, never null; JSON-RPC 2.0:
    // no fractional part) is an invalid request, however it is spelled: JSON-RPC's -32600 with id null, HTTP 400.
    for (const id of [
      '9007199254740993',
      '1e20',
      '1e300',
      '1e-400',
      '9007199254740993.5',
      '1.5',
      '-0.5',
      'null',
      'true',
      '{}',
      '[1]',
    ]) {
      const refused = await post('/mcp', `{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      expect(refused.status, id).toBe(400);
      expect(await refused.json(), id).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.any(String) },
      });
    }
    expect((await post('/mcp', '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}')).status).toBe(200);
    for (const path of ['/mcp/', '/MCP']) expect((await post(path, ping)).status, path).toBe(404);
  });

  it("refuses an Idempotency-Key header (the key is the tool's idempotencyKey argument); reads application/*+json as REST does", async () => {
    const create = mcpToolCall('createPet', '{"name":"Header","categoryId":1}');
    const keyed = await postMcp(server.baseUrl, create, {
      headers: { 'idempotency-key': 'sent-as-a-header' },
    });
    expect(keyed.status).toBe(400);
    expect(await keyed.json()).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/Idempotency-Key header .*"idempotencyKey"/),
    });
    const vendor = await rawToolCall(server, 'createPet', '{"name":"Vendor JSON","categoryId":1}', {
      'content-type': 'application/vnd.petstore+json; charset=utf-8',
    });
    expect(vendor.isError).toBeUndefined();
    expect(vendor.structuredContent).toMatchObject({ name: 'Vendor JSON', categoryId: '1' });
  });

  it('applies no call whose precondition is false: If-Match and If-None-Match: * are 412, as on REST and tRPC', async () => {
    const count = async () =>
      ((await rawToolCall(server, 'listPets', '{"limit":100}')).structuredContent as { items: unknown[] })
        .items.length;
    const before = await count();
    const create = mcpToolCall('createPet', '{"name":"Conditional","categoryId":1}');
    const conditions: Record<string, string>[] = [
      { 'if-match': '"x"' },
      { 'if-match': 'garbage' },
      { 'if-none-match': '*' },
    ];
    for (const condition of conditions) {
      const reply = await postMcp(server.baseUrl, create, { headers: condition });
      expect(reply.status, JSON.stringify(condition)).toBe(412);
      expect(await reply.json()).toMatchObject({ code: 'precondition_failed', status: 412 });
    }
    expect(await count()).toBe(before);
    // A true one is no obstacle.
    expect((await postMcp(server.baseUrl, create, { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('serves no OAuth protected-resource metadata: MCP requires it to name an authorization server, and there is none', async () => {
    const origin = server.baseUrl.replace(/\/v1$/, '');
    for (const path of ['/v1/mcp', '/petstore/v1/mcp', '']) {
      const response = await fetch(`${origin}/.well-known/oauth-protected-resource${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ code: 'route_not_found' });
    }
  });

  // RFC 9110 12.5.1: no Accept accepts anything, `*/*` everything; the SDK wants both types named (it answered 406).
  it.each([
    [undefined, 200],
    ['*/*', 200],
    ['application/*, text/*', 200],
    ['text/event-stream;q=0.5, application/json', 200],
    ['text/html', 406],
    ['application/json', 406],
    ['text/event-stream;q=0, */*', 406],
    // q=0 is "not acceptable" (RFC 9110 12.5.1): the SDK only looked for the names (it answered 200).
    ['application/json, text/event-stream;q=0', 406],
    ['application/json;q=0, text/event-stream', 406],
    ['text/event-stream; q=0', 406],
  ])('answers a request with Accept %s with %i', async (accept, status) => {
    const reply = await rawSend(server.baseUrl, '/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-06-18',
        ...(accept === undefined ? {} : { accept }),
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(reply.status, reply.text).toBe(status);
    if (status === 406) expect(JSON.parse(reply.text)).toMatchObject({ code: 'not_acceptable', status });
  });

  // Every spelling of Accept (q-values, order, spaces, ranges, parameters, case) in both eras is judged as the stock
  // negotiation (negotiator, what Express's req.accepts runs) judges it: both answer types acceptable, or 406.
  const ACCEPT_RUNS = 150;
  it(
    'answers every generated Accept as the stock negotiation judges it, in both eras',
    async () => {
      const agent = fuzzAgent();
      const space = fc.constantFrom('', ' ', '  ');
      const member = fc
        .record({
          range: fc.constantFrom(
            'application/json',
            'text/event-stream',
            '*/*',
            'application/*',
            'text/*',
            'text/html',
            'Application/JSON',
            'TEXT/Event-Stream',
          ),
          parameter: fc.option(fc.constantFrom('charset=utf-8', 'level=1'), { nil: undefined }),
          q: fc.option(fc.constantFrom('0', '0.0', '0.000', '0.001', '0.5', '1', '1.000'), {
            nil: undefined,
          }),
          before: space,
          after: space,
        })
        .map(({ range, parameter, q, before, after }) =>
          [range, parameter, q === undefined ? undefined : `q=${q}`]
            .filter((part) => part !== undefined)
            .join(`${before};${after}`),
        );
      const accept = fc.option(
        fc
          .tuple(fc.array(member, { minLength: 1, maxLength: 4 }), fc.constantFrom(',', ', ', ' ,  '))
          .map(([members, comma]) => members.join(comma)),
        { nil: undefined },
      );
      try {
        await fc.assert(
          fc.asyncProperty(accept, fc.constantFrom('legacy', 'modern'), async (field, era) => {
            const reply = await rawSend(server.baseUrl, '/mcp', {
              method: 'POST',
              agent,
              headers: {
                authorization: `Bearer ${TEST_API_KEY}`,
                'content-type': 'application/json',
                ...(era === 'legacy'
                  ? { 'mcp-protocol-version': '2025-06-18' }
                  : { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }),
                ...(field === undefined ? {} : { accept: field }),
              },
              body: era === 'legacy' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : MODERN_DISCOVER,
            });
            const types = ['application/json', 'text/event-stream'];
            const acceptable = new Negotiator({ headers: { accept: field } }).mediaTypes(types);
            const status = acceptable.length === types.length ? 200 : 406;
            expect(reply.status, reply.text).toBe(status);
            if (status === 406) expect(JSON.parse(reply.text)).toMatchObject({ code: 'not_acceptable' });
          }),
          fuzzParameters(ACCEPT_RUNS),
        );
      } finally {
        agent.destroy();
      }
    },
    fuzzTimeout(ACCEPT_RUNS),
  );

  it('refuses a JSON-RPC batch: one message, one charge of the rate limit', async () => {
    const one = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listPets","arguments":{}}}';
    const response = await postMcp(server.baseUrl, `[${one},${one.replace('"id":1', '"id":2')}]`, {
      version: '2025-03-26',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batch/) },
    });
  });

  it("answers a body that is no JSON with JSON-RPC's parse error, as the SDK does for one it reads", async () => {
    for (const body of ['{"jsonrpc":', 'ping', '{"jsonrpc":"2.0","id":1,"method":"ping"']) {
      const response = await postMcp(server.baseUrl, body);
      expect(response.status, body).toBe(400);
      expect(await response.json(), body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: expect.stringMatching(/not valid JSON/) },
      });
    }
  });

  it('answers a request whose params do not fit its method with -32602 and its id, in words, not a schema dump', async () => {
    const cases: [string, RegExp][] = [
      ['{"jsonrpc":"2.0","id":1,"method":"initialize"}', /initialize.*params/],
      ['{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', /protocolVersion/],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call"}', /tools\/call.*params/],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}', /name/],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}', /cursor/],
      ['{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}', /ping.*params/],
    ];
    for (const [body, words] of cases) {
      // Without the header (as an initialize comes) and with it.
      for (const version of [null, '2025-06-18']) {
        const response = await postMcp(server.baseUrl, body.replace('"id":1', '"id":"call-7"'), { version });
        const answer = await jsonRpcAnswer(response);
        expect(response.status, body).toBe(200);
        expect(answer, body).toMatchObject({ jsonrpc: '2.0', id: 'call-7', error: { code: -32602 } });
        const { message } = (answer as { error: { message: string } }).error;
        expect(message, body).toMatch(words);
        expect(message, body).not.toMatch(/[[{]|invalid_type/);
      }
    }
  });

  // Gateways route and authorise MCP by these headers (2026-07-28, SEP-2243); the 2025 era has none, so a message of
  // that era carrying ones that contradict its body would be served by the body: refused, as the SDK refuses it in
  // the 2026 era.
  it('refuses a message whose Mcp-Method or Mcp-Name names another method or tool than its body, in every era', async () => {
    const create = (name: string) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"createPet","arguments":{"name":"${name}","categoryId":1}}}`;
    for (const version of ['2025-11-25', '2025-06-18', null]) {
      for (const headers of <Record<string, string>[]>[
        { 'mcp-method': 'tools/list' },
        { 'mcp-name': 'listPets' },
        { 'mcp-method': 'tools/list', 'mcp-name': 'listPets' },
        { 'mcp-name': '=?base64?bGlzdFBldHM=?=' },
      ]) {
        const answer = await postMcp(server.baseUrl, create('contradicted'), { version, headers });
        const what = `${version} ${JSON.stringify(headers)}`;
        expect(answer.status, what).toBe(400);
        expect(((await answer.json()) as { error: { code: number } }).error.code, what).toBe(-32020);
      }
      for (const headers of <Record<string, string>[]>[
        { 'mcp-method': 'tools/call', 'mcp-name': 'createPet' },
        { 'mcp-name': '=?base64?Y3JlYXRlUGV0?=' },
      ]) {
        const answer = await postMcp(server.baseUrl, create('agreed'), { version, headers });
        expect(answer.status, `${version} ${JSON.stringify(headers)}`).toBe(200);
        expect(await answer.text()).toContain('"name":"agreed"');
      }
    }
  });

  it('answers tools/list with a cursor with -32602: the list is one page, so no cursor is ever valid', async () => {
    for (const cursor of ['bogus', '', 'eyJwYWdlIjogMn0=']) {
      const response = await postMcp(
        server.baseUrl,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor } }),
      );
      expect(response.status, cursor).toBe(200);
      expect(await jsonRpcAnswer(response), cursor).toMatchObject({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32602, message: expect.stringMatching(/cursor/) },
      });
    }
    // Without one, the list; an initialize that fits is answered.
    const list = await postMcp(server.baseUrl, '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}');
    expect(await jsonRpcAnswer(list)).toMatchObject({ id: 4, result: { tools: expect.any(Array) } });
  });

  it("answers an MCP-Protocol-Version it does not speak with 400 and the request's own id", async () => {
    for (const id of [1, 'abc']) {
      const response = await postMcp(
        server.baseUrl,
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
        { version: '1999-01-01' },
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        id,
        error: { message: expect.stringMatching(/Unsupported protocol version: 1999-01-01/) },
      });
    }
  });

  it("counts MCP requests against the caller's rate limit, as REST and tRPC", async () => {
    const limited = await startTestServer(kind, 'mcp-limit', {
      rateLimitPerMinute: 3,
      apiKeys: [TEST_API_KEY, OTHER_API_KEY],
    });
    try {
      // A minute boundary among the five would reset the count (CI saw five 200s): start early in a window.
      await atStartOfRateWindow();
      const statuses: number[] = [];
      for (let index = 0; index < 5; index++) {
        const response = await postMcp(limited.baseUrl, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
        statuses.push(response.status);
        if (response.status === 429) expect(response.headers.get('retry-after')).not.toBeNull();
        await response.arrayBuffer();
      }
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    } finally {
      await limited.close();
    }
  });

  it('serves getPet as a tool when the deployment asks for deprecated tools', async () => {
    const withDeprecated = await startTestServer(kind, 'mcp-deprecated', { mcpDeprecatedTools: true });
    const client = await connect(withDeprecated, 'modern');
    try {
      const { tools } = await client.listTools();
      const get = tools.find((tool) => tool.name === 'getPet');
      expect(get?.description).toMatch(/Deprecated: removed on 2030-12-05; use listPets/);
      expect(get?._meta).toMatchObject({ deprecated: { sunset: '2030-12-05', replacement: 'listPets' } });
      expect(get?._meta).toMatchObject({ stability: 'stable' });
      // A positive int64: the bound below (1) is in the schema, the one above (2^63 - 1) in the description only.
      const validate = new Ajv2020({ strict: false }).compile(get?.inputSchema as object);
      expect(validate(JSON.parse('{"petId":9223372036854775807}'))).toBe(true);
      expect(validate({ petId: 0 })).toBe(false);
      const created = await call(withDeprecated.baseUrl, '/pets', {
        method: 'POST',
        body: '{"name":"Kit","categoryId":5}',
      });
      const { id } = created.body as { id: bigint };
      const read = (await client.callTool({
        name: 'getPet',
        arguments: { petId: String(id) },
      })) as unknown as ToolAnswer;
      expect(read.structuredContent).toEqual({ id: String(id), name: 'Kit', categoryId: '5' });
      const missing = (await client.callTool({
        name: 'getPet',
        arguments: { petId: '9223372036854775807' },
      })) as unknown as ToolAnswer;
      expect(missing.structuredContent).toMatchObject({ code: 'pet_not_found', status: 404 });
    } finally {
      await client.close();
      await withDeprecated.close();
    }
  });
});

describe('a tool error with the fields REST sends beside it', () => {
  it("gives a 503's Retry-After in the result's _meta.headers, with REST's Error body", async () => {
    const unreachable = await startTestServer('pglite', 'mcp-503', { databaseUrl: UNREACHABLE_DATABASE });
    try {
      const rest = await call(unreachable.baseUrl, '/pets');
      expect(rest.status).toBe(503);
      const answer = await rawToolCall(unreachable, 'listPets', '{}');
      expect(answer).toMatchObject({
        isError: true,
        structuredContent: rest.body as Json,
        _meta: { headers: { 'Retry-After': rest.headers.get('retry-after') } },
      });
    } finally {
      await unreachable.close();
    }
  });
});

// MCP Streamable HTTP (2025-11-25, Security Warning): the server MUST validate Origin and answer an invalid one 403. A
// present Origin is valid when CORS_ORIGINS lists it (`*`: any) or it is a configured public URL's origin; an absent
// one (an agent that is no browser) is fine. Never judged by Host: a page rebinding a name to the api has both agree.
describe('MCP and the Origin header', () => {
  const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });
  const start = async (options: Parameters<typeof startTestServer>[2]) => {
    const server = await startTestServer('pglite', 'mcp-origin', options);
    servers.push(server);
    return server;
  };
  const post = (server: TestServer, origin: string | undefined, headers: Record<string, string> = {}) =>
    postMcp(server.baseUrl, ping, { headers: { ...(origin === undefined ? {} : { origin }), ...headers } });

  it('serves CORS_ORIGINS and the public URLs; any other Origin, `null` and its own host are 403', async () => {
    const server = await start({
      corsOrigins: ['https://app.example.com'],
      servers: [
        { url: 'https://api.example.com/petstore/v1', description: 'production' },
        { url: 'http://staging.example.com:8080/v1', description: 'staging' },
      ],
    });
    const own = new URL(server.baseUrl).origin;
    const answers: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    const cases: [string | undefined, number][] = [
      [undefined, 200],
      ['https://app.example.com', 200],
      ['https://api.example.com', 200],
      ['http://staging.example.com:8080', 200],
      ['https://evil.example', 403],
      ['null', 403],
      ['http://app.example.com', 403],
      ['https://app.example.com:8443', 403],
      ['http://staging.example.com', 403],
      [own, 403],
    ];
    for (const [origin, status] of cases) {
      const response = await post(server, origin);
      const text = await response.text();
      const code = response.status === 200 ? undefined : (JSON.parse(text) as Json).code;
      answers[String(origin)] = { status: response.status, code };
      expected[String(origin)] = { status, code: status === 403 ? 'forbidden' : undefined };
    }
    expect(answers).toEqual(expected);
  });

  it('refuses a foreign Origin before the key: a page learns nothing of it, and no method or OPTIONS is served', async () => {
    const server = await start({});
    for (const authorization of [`Bearer ${TEST_API_KEY}`, 'Bearer not-a-key', undefined]) {
      for (const method of ['POST', 'GET', 'OPTIONS', 'DELETE']) {
        const response = await fetch(`${server.baseUrl}/mcp`, {
          method,
          headers: {
            origin: 'https://evil.example',
            ...(authorization === undefined ? {} : { authorization }),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          ...(method === 'POST' ? { body: ping } : {}),
        });
        const label = `${method} ${authorization}`;
        expect(response.status, label).toBe(403);
        expect(response.headers.get('www-authenticate'), label).toBeNull();
        expect(await response.json(), label).toMatchObject({ code: 'forbidden', status: 403 });
      }
    }
  });

  it('answers a preflight with the methods /v1/mcp serves, not every method of the server', async () => {
    const server = await start({ corsOrigins: ['https://app.example.com'] });
    const preflight = await fetch(`${server.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    // The same list as the route's own Allow.
    const options = await fetch(`${server.baseUrl}/mcp`, {
      method: 'OPTIONS',
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    expect(options.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('serves any Origin when CORS_ORIGINS is *', async () => {
    const server = await start({ corsOrigins: ['*'] });
    for (const origin of ['https://evil.example', 'null'])
      expect((await post(server, origin)).status).toBe(200);
  });
});
