// Same input, same verdict, on every transport. Generated logical inputs (int64 edges, Unicode edges, missing,
// unknown and repeated fields, statuses, limits, cursors) go to REST, as the equivalent tRPC call to tRPC (as
// @trpc/client writes it, bigints annotated, and as plain JSON numbers), and as the equivalent MCP tool call to
// /v1/mcp (tools/call over raw HTTP, the arguments the very JSON text REST gets, so int64 edges travel as exact
// JSON numbers; an int64 field also as its digit string, the other spelling MCP takes); the status (201 on REST
// is 200 on tRPC and a result without isError on MCP), the Error code and what was stored (read back over the
// other transports) must agree. How each REST input maps to a tRPC input: docs/interface-decisions.md "REST and tRPC
// inputs"; to an MCP tool's arguments: src/mcp/mcp.ts (the tRPC input, int64 also as digits).
import { parseJson } from '@petstore/schema';
import { integerOfText, unknownKeysMessage } from '@petstore/schema/internal';
import fc from 'fast-check';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';
import {
  edgeCursor,
  edgeInteger,
  edgeStatus,
  edgeString,
  logicalInput,
  mcpToolCall,
  plainEnvelope,
  plainJson,
  superjsonEnvelope,
} from './support/fuzz-inputs.js';
import { fuzzAgent, type RawReply, rawSend } from './support/raw-send.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const RUNS = 200;
const AUTH = { authorization: `Bearer ${TEST_API_KEY}` };
/** The headers of MCP's stateless Streamable HTTP (the 2025 revisions: no session, one POST per call). */
const MCP = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

interface Verdict {
  /**
   * 2xx as one class (REST's 201 is tRPC's 200 and MCP's result without isError); otherwise the status (MCP's
   * in its Error body; a JSON-RPC error, which no other transport has, as its own kind, its message as the code).
   */
  status: number | 'success' | `JSON-RPC error ${string}`;
  code: string | undefined;
  /** The Error body's message: one rule per input gives one message, whichever transport carried it. */
  message?: string | undefined;
  /** The answer's data, bigints as exact digits. */
  data: string | undefined;
}

const canonical = (value: unknown) => plainJson(value);

function restVerdict(reply: RawReply): Verdict {
  const body = reply.text === '' ? undefined : parseJson(reply.text);
  if (reply.status >= 200 && reply.status < 300)
    return { status: 'success', code: undefined, data: canonical(body) };
  const { code, message } = body as { code?: string; message?: string };
  return { status: reply.status, code, message, data: undefined };
}

function trpcVerdict(reply: RawReply): Verdict {
  const body = JSON.parse(reply.text) as {
    result?: { data: unknown };
    error?: { json: { data: { error: { code: string; message: string } } } };
  };
  if (reply.status === 200 && body.result !== undefined) {
    return {
      status: 'success',
      code: undefined,
      data: canonical(superjson.deserialize(body.result.data as never)),
    };
  }
  const error = body.error?.json.data.error;
  return { status: reply.status, code: error?.code, message: error?.message, data: undefined };
}

type Json = Record<string, unknown>;
/** The pattern by which a tool's output schema marks an int64 sent as its digits (src/mcp/mcp.ts). */
const INT64_DIGITS = '^-?[0-9]+$';

/** An MCP answer in REST's form: what the output schema marks as int64 digits, as the exact integer. */
function restForm(value: unknown, schema: Json | undefined): unknown {
  if (schema === undefined) return value;
  if (typeof value === 'string' && schema.pattern === INT64_DIGITS) return BigInt(value);
  if (Array.isArray(value)) return value.map((item) => restForm(item, schema.items as Json | undefined));
  if (typeof value !== 'object' || value === null) return value;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, restForm(item, properties[key])]),
  );
}

/** The JSON-RPC message of an MCP reply, sent as JSON or as the `data:` line of an SSE event. */
function mcpMessage(text: string): {
  result?: { isError?: boolean; structuredContent?: Json };
  error?: { code: number; message: string };
} {
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
  return JSON.parse(json);
}

/**
 * An MCP tool call's verdict: a result without isError is the success, its output in REST's form (`outputSchema`
 * says which strings are int64); an isError result carries the contract's Error body. A body the reader cannot
 * parse is JSON-RPC's parse error (-32700) over HTTP 400, in the words of REST's malformed_json: counted as that.
 */
function mcpVerdict(reply: RawReply, outputSchema: Json | undefined): Verdict {
  if (reply.status !== 200) {
    const body = parseJson(reply.text) as {
      code?: string;
      message?: string;
      error?: { code: number; message: string };
    };
    if (body.error?.code === -32700)
      return { status: reply.status, code: 'malformed_json', message: body.error.message, data: undefined };
    return { status: reply.status, code: body.code, message: body.message, data: undefined };
  }
  const message = mcpMessage(reply.text);
  if (message.result === undefined)
    return { status: `JSON-RPC error ${message.error?.code}`, code: message.error?.message, data: undefined };
  const content = message.result.structuredContent ?? {};
  if (message.result.isError === true)
    return {
      status: content.status as number,
      code: content.code as string,
      message: content.message as string,
      data: undefined,
    };
  return { status: 'success', code: undefined, data: canonical(restForm(content, outputSchema)) };
}

/** A REST list's answer as the page the list tool answers: the array as `items`, the Link's cursor as `nextCursor`. */
function restPage(reply: RawReply): Verdict {
  const verdict = restVerdict(reply);
  if (verdict.status !== 'success') return verdict;
  const link = reply.headers.get('link');
  const nextCursor =
    link === null ? null : new URL(link.slice(1, link.indexOf('>'))).searchParams.get('cursor');
  return { ...verdict, data: `{"items":${verdict.data},"nextCursor":${JSON.stringify(nextCursor)}}` };
}

/**
 * The input as MCP reads it: an int64 field given as a string that spells an integer is that integer (the one
 * rule, integerOfText), where REST and tRPC refuse a string; undefined when MCP reads it as they do.
 */
function asMcpReads(
  input: Record<string, unknown>,
  int64: readonly string[],
): Record<string, unknown> | undefined {
  const spelled = int64.filter(
    (name) => typeof input[name] === 'string' && integerOfText(input[name] as string) !== undefined,
  );
  if (spelled.length === 0) return undefined;
  return {
    ...input,
    ...Object.fromEntries(
      spelled.map((name) => [name, BigInt(integerOfText(input[name] as string) as number | bigint)]),
    ),
  };
}

/** A verdict with the created pet's id blanked: two creates of the same pet differ only there. */
const withoutId = (verdict: Verdict): Verdict => ({
  ...verdict,
  data: verdict.data === undefined ? undefined : JSON.stringify({ ...JSON.parse(verdict.data), id: 0 }),
});

/** An integer field's value as both transports can carry it: an integer, or text that is not one. */
const intField = fc.oneof(
  { weight: 3, arbitrary: edgeInteger },
  { weight: 1, arbitrary: edgeString.filter((text) => !/^-?[0-9]+$/.test(text)) },
);

/** The tRPC envelope of an input, in one of the two ways a client may write its int64s. */
const envelope = (input: unknown, annotated: boolean) =>
  annotated ? superjsonEnvelope(input) : plainEnvelope(input);

/** The same JSON object text with its first key written twice (the second time with the same value). */
function withDuplicateKey(text: string, input: Record<string, unknown>): string {
  const [key] = Object.keys(input);
  if (key === undefined) return text;
  return `{${JSON.stringify(key)}:${plainJson(input[key])},${text.slice(1)}`;
}

describe('REST, tRPC and MCP give the same verdict to the same input', () => {
  let server: TestServer;
  const agent = fuzzAgent();
  let sent = 0;
  /** Each tool's output schema and int64 input fields, as tools/list gives them. */
  const tools = new Map<string, { outputSchema: Json; int64: string[] }>();
  beforeAll(async () => {
    // getPet is a tool only on a deployment that serves deprecated tools: served here, so its inputs go to MCP too.
    server = await startTestServer('pglite', 'parity', { mcpDeprecatedTools: true });
    const listed = mcpMessage(
      (
        await send('/mcp', {
          method: 'POST',
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
          headers: MCP,
        })
      ).text,
    ).result as unknown as {
      tools: { name: string; inputSchema: { properties: Record<string, Json> }; outputSchema: Json }[];
    };
    for (const tool of listed.tools) {
      const int64 = Object.entries(tool.inputSchema.properties)
        // An int64 argument: an integer, or a string spelling one (src/mcp/mcp.ts agentSchema).
        .filter(([, field]) => {
          const kinds = ((field.anyOf as Json[] | undefined) ?? []).map((kind) => kind.type);
          return kinds.includes('integer') && kinds.includes('string');
        })
        .map(([name]) => name);
      tools.set(tool.name, { outputSchema: tool.outputSchema, int64 });
    }
    expect([...tools.keys()].sort()).toEqual(['createPet', 'getPet', 'listPets']);
  });
  afterAll(async () => {
    agent.destroy();
    await server?.close();
    if (process.env.FUZZ_RUNS !== undefined) console.info(`parity: ${sent} requests`);
  });

  const send = (
    path: string,
    options: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ) => {
    sent++;
    return rawSend(server.baseUrl, path, {
      ...options,
      agent,
      headers: {
        ...AUTH,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
    });
  };
  const trpcGet = (procedure: string, input: string) =>
    send(`/trpc/${procedure}?input=${encodeURIComponent(input)}`);
  /** One tools/call, its arguments the JSON text given, and its verdict. */
  const mcpCall = async (tool: string, argumentsText: string) =>
    mcpVerdict(
      await send('/mcp', { method: 'POST', body: mcpToolCall(tool, argumentsText), headers: MCP }),
      tools.get(tool)?.outputSchema,
    );
  /** An MCP-created pet read back over REST: stored exactly as MCP answered. */
  const expectStoredAsAnswered = async (verdict: Verdict, what: string) => {
    if (verdict.status !== 'success') return;
    const { id } = parseJson(verdict.data as string) as { id: number | bigint };
    expect(restVerdict(await send(`/pets/${id}`)).data, `${what}: read back`).toEqual(verdict.data);
  };

  /**
   * createPet's input over MCP: its arguments the very text REST got, and (an int64 field given as an integer)
   * with that field as its digit string; the same verdict as REST's, and the pet stored as answered. An int64 field
   * given as a string that spells an integer is that integer over MCP (REST refuses a string): its REST verdict is
   * the integer's.
   */
  const expectMcpAsRest = async (
    input: Record<string, unknown>,
    restText: string,
    duplicate: boolean,
    rest: Verdict,
  ) => {
    const { int64 } = tools.get('createPet') as { int64: string[] };
    const read = duplicate ? undefined : asMcpReads(input, int64);
    const expected =
      read === undefined ? rest : restVerdict(await send('/pets', { method: 'POST', body: plainJson(read) }));
    const mcp = await mcpCall('createPet', restText);
    const what = `MCP ${restText}${read === undefined ? '' : ` read as REST ${plainJson(read)}`}`;
    expect(withoutId(mcp), what).toEqual(withoutId(expected));
    await expectStoredAsAnswered(mcp, what);
    if (duplicate) return;
    for (const name of int64.filter((field) => typeof input[field] === 'bigint')) {
      const spelled = plainJson({ ...input, [name]: String(input[name]) });
      const digits = await mcpCall('createPet', spelled);
      expect(withoutId(digits), `MCP ${spelled} / REST ${restText}`).toEqual(withoutId(rest));
      await expectStoredAsAnswered(digits, `MCP ${spelled}`);
    }
  };

  it(
    'createPet: same verdict, same stored pet',
    async () => {
      // Mostly complete and of the right kinds, so that most calls get as far as storing.
      const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
        fc.tuple(fc.nat(7), arbitrary).map(([dice, value]) => (dice === 0 ? value : undefined));
      const newPet = fc
        .record({
          name: fc.option(
            fc.oneof({ weight: 6, arbitrary: edgeString }, { weight: 1, arbitrary: edgeInteger }),
            {
              freq: 10,
              nil: undefined,
            },
          ),
          categoryId: fc.option(
            fc.oneof(
              { weight: 6, arbitrary: edgeInteger },
              { weight: 1, arbitrary: edgeString },
              // An int64 as its digits: a string REST and tRPC refuse, and the integer's other spelling over MCP.
              { weight: 1, arbitrary: edgeInteger.map(String) },
            ),
            { freq: 10, nil: undefined },
          ),
          status: fc.option(
            fc.oneof(
              { weight: 4, arbitrary: fc.constantFrom('available', 'pending', 'sold') },
              { weight: 1, arbitrary: edgeStatus },
            ),
            { nil: undefined },
          ),
          extra: rarely(fc.constant(1)),
        })
        .map((pet) => Object.fromEntries(Object.entries(pet).filter(([, value]) => value !== undefined)));
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 4, arbitrary: newPet }, { weight: 1, arbitrary: logicalInput }),
          fc.boolean(),
          fc.nat(9).map((dice) => dice === 0),
          async (input, annotated, duplicate) => {
            const restText = duplicate ? withDuplicateKey(plainJson(input), input) : plainJson(input);
            const trpcText = duplicate
              ? `{"json":${withDuplicateKey(plainJson(input), input)}}`
              : envelope(input, annotated);
            const rest = restVerdict(await send('/pets', { method: 'POST', body: restText }));
            const trpc = trpcVerdict(await send('/trpc/pets.create', { method: 'POST', body: trpcText }));
            const what = `REST ${restText} / tRPC ${trpcText}`;
            expect(withoutId(trpc), what).toEqual(withoutId(rest));
            await expectMcpAsRest(input, restText, duplicate, rest);
            if (rest.status !== 'success' || trpc.status !== 'success') return;
            // Read back, each over the other transport: stored exactly as answered.
            const restId = (parseJson(rest.data as string) as { id: number | bigint }).id;
            const trpcId = (parseJson(trpc.data as string) as { id: number | bigint }).id;
            const restBack = trpcVerdict(
              await trpcGet('pets.get', superjsonEnvelope({ petId: BigInt(restId) })),
            );
            const trpcBack = restVerdict(await send(`/pets/${trpcId}`));
            expect(restBack.data, what).toEqual(rest.data);
            expect(trpcBack.data, what).toEqual(trpc.data);
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'listPets: same verdict, same pets',
    async () => {
      const query = fc.record(
        { limit: intField, status: edgeStatus, cursor: edgeCursor, extra: fc.constant('1') },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(query, fc.boolean(), async (given, annotated) => {
          // `limit` is a small integer: a JSON number on tRPC (only int64 ids also take superjson's bigint).
          const input =
            annotated && typeof given.limit === 'bigint' && Number.isSafeInteger(Number(given.limit))
              ? { ...given, limit: Number(given.limit) }
              : given;
          const search = new URLSearchParams(
            Object.entries(input).map(([name, value]): [string, string] => [name, String(value)]),
          ).toString();
          const restReply = await send(`/pets${search === '' ? '' : `?${search}`}`);
          const rest = restVerdict(restReply);
          const trpc = trpcVerdict(await trpcGet('pets.list', envelope(input, annotated)));
          expect(trpc, `REST ?${search} / tRPC ${envelope(input, annotated)}`).toEqual(rest);
          // The list tool answers the page as { items, nextCursor }: REST's array and its Link's cursor. (Pages
          // here stay far under MCP_PAGE_BYTES, which would take 40 names of a kilobyte among 100 pets, so the
          // tool's page is REST's whole page.) No int64 field: the arguments are the tRPC input's JSON.
          const mcp = await mcpCall('listPets', plainJson(input));
          expect(mcp, `REST ?${search} / MCP ${plainJson(input)}`).toEqual(restPage(restReply));
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'getPet: same verdict, same pet',
    async () => {
      const petId = fc.oneof(
        { weight: 3, arbitrary: fc.bigInt({ min: -1n, max: 30n }) },
        // A path carries UTF-8 only: a lone surrogate has no REST form.
        {
          weight: 1,
          arbitrary: intField.filter(
            (value) => value !== '' && (typeof value !== 'string' || value.isWellFormed()),
          ),
        },
      );
      await fc.assert(
        fc.asyncProperty(petId, fc.boolean(), async (id, annotated) => {
          const rest = restVerdict(await send(`/pets/${encodeURIComponent(String(id))}`));
          const trpc = trpcVerdict(await trpcGet('pets.get', envelope({ petId: id }, annotated)));
          expect(trpc, `petId ${String(id)}`).toEqual(rest);
          // Over MCP as JSON (an integer as its exact number, text as a string) and as the path's text: a string
          // for an int64 is read by the rule a path segment is, so both spellings are REST's logical value.
          for (const args of new Set([plainJson({ petId: id }), JSON.stringify({ petId: String(id) })])) {
            expect(await mcpCall('getPet', args), `MCP ${args} / REST petId ${String(id)}`).toEqual(rest);
          }
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  // The families an outside review found apart (issue 35): each input below is one logical value, written the
  // way each transport carries it; the rule deciding it lives in one place (@petstore/schema), so a decoder
  // changed on one transport alone makes these fail.

  it(
    "an integer's spelling: the same value in a URL's text and in JSON, the same verdict",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(edgeInteger, fc.bigInt({ min: 1n, max: 30n })),
          fc.constantFrom(...INTEGER_SPELLINGS),
          fc.constantFrom('limit', 'petId', 'categoryId'),
          async (value, spell, field) => {
            const text = spell(value);
            const json = (fields: Record<string, unknown>) =>
              JSON.stringify(fields, (_key, item) => (item === SPELLED ? rawJSON(text) : item));
            const what = `${field} spelled ${text}`;
            // Over MCP as the JSON number, and (an int64 field: petId, categoryId, not limit) as a string of it.
            const mcpSpellings = (fields: Record<string, unknown>) => [
              json(fields),
              ...(field === 'limit' ? [] : [JSON.stringify({ ...fields, [field]: text })]),
            ];
            if (field === 'categoryId') {
              const body = json({ name: 'Rex', categoryId: SPELLED });
              const rest = restVerdict(await send('/pets', { method: 'POST', body }));
              const trpc = trpcVerdict(
                await send('/trpc/pets.create', { method: 'POST', body: `{"json":${body}}` }),
              );
              expect(withoutId(trpc), what).toEqual(withoutId(rest));
              for (const args of mcpSpellings({ name: 'Rex', categoryId: SPELLED })) {
                const mcp = await mcpCall('createPet', args);
                expect(withoutId(mcp), `${what}: MCP ${args}`).toEqual(withoutId(rest));
                await expectStoredAsAnswered(mcp, `${what}: MCP ${args}`);
              }
              return;
            }
            const restReply = await send(
              field === 'limit'
                ? `/pets?limit=${encodeURIComponent(text)}`
                : `/pets/${encodeURIComponent(text)}`,
            );
            const rest = restVerdict(restReply);
            const procedure = field === 'limit' ? 'pets.list' : 'pets.get';
            const trpc = trpcVerdict(await trpcGet(procedure, `{"json":${json({ [field]: SPELLED })}}`));
            expect(trpc, what).toEqual(rest);
            for (const args of mcpSpellings({ [field]: SPELLED })) {
              const mcp = await mcpCall(field === 'limit' ? 'listPets' : 'getPet', args);
              expect(mcp, `${what}: MCP ${args}`).toEqual(field === 'limit' ? restPage(restReply) : rest);
            }
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'names of Unicode White_Space (U+0085 included), invisible and control characters: refused alike',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...WHITE_SPACE), { minLength: 1, maxLength: 6 }),
          fc.option(fc.constantFrom('a', '\u{1f600}'), { nil: undefined }),
          async (blank, visible) => {
            const name = blank.join('') + (visible ?? '');
            const body = plainJson({ name, categoryId: 1n });
            const rest = restVerdict(await send('/pets', { method: 'POST', body }));
            const trpc = trpcVerdict(
              await send('/trpc/pets.create', { method: 'POST', body: `{"json":${body}}` }),
            );
            const mcp = await mcpCall('createPet', body);
            const what = `name ${JSON.stringify(name)}`;
            expect(rest.status, what).toBe(visible === undefined ? 400 : 'success');
            expect({ ...trpc, data: undefined }, what).toEqual({ ...rest, data: undefined });
            expect(withoutId(mcp), what).toEqual(withoutId(rest));
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'Idempotency-Key: one rule for the header, the tRPC field and the MCP argument, and one key across transports',
    async () => {
      let run = 0;
      const TRANSPORTS = ['REST', 'tRPC', 'MCP'] as const;
      const orders = TRANSPORTS.flatMap((first) =>
        TRANSPORTS.filter((second) => second !== first).map((second) => [
          first,
          second,
          ...TRANSPORTS.filter((third) => third !== first && third !== second),
        ]),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('', ' ', '  ', '\t'),
          fc.stringMatching(/^[ -~]{0,12}$/),
          fc.constantFrom('', ' ', '  ', '\t'),
          fc.constantFrom(...orders),
          async (lead, middle, trail, order) => {
            // A fresh key each run (the run number inside), with the generated edges around it.
            const key = `${lead}k${++run}-${Date.now()}${middle}${trail}`;
            const body = plainJson({ name: 'Rex', categoryId: 7n });
            const keyed = plainJson({ name: 'Rex', categoryId: 7n, idempotencyKey: key });
            const over = {
              REST: async () =>
                restVerdict(
                  await send('/pets', { method: 'POST', body, headers: { 'idempotency-key': key } }),
                ),
              tRPC: async () =>
                trpcVerdict(await send('/trpc/pets.create', { method: 'POST', body: `{"json":${keyed}}` })),
              // Over MCP the key is the tool's `idempotencyKey` argument, as tRPC's input field.
              MCP: () => mcpCall('createPet', keyed),
            };
            const verdicts: Partial<Record<(typeof TRANSPORTS)[number], Verdict>> = {};
            for (const transport of order) verdicts[transport] = await over[transport]();
            const what = `key ${JSON.stringify(key)}, ${order.join(' then ')}`;
            // HTTP drops whitespace around a header value: a key with any has no REST spelling, and is refused on
            // tRPC and MCP rather than stored as a key no REST retry could repeat.
            if (key !== key.trim()) {
              for (const transport of ['tRPC', 'MCP'] as const) {
                expect(verdicts[transport], `${what}: ${transport}`).toMatchObject({
                  status: 400,
                  code: 'invalid_idempotency_key',
                });
              }
              return;
            }
            // Same key, same body, same caller: the later ones replay the first, whichever way each came.
            const [first, ...later] = order.map((transport) => verdicts[transport]);
            for (const verdict of later) expect(verdict, what).toEqual(first);
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it('a tRPC request that carries its input twice, or a parameter tRPC would ignore, is refused', async () => {
    const body = `{"json":${plainJson({ name: 'Rex', categoryId: 1n })}}`;
    for (const query of ['?input=%7B%22json%22%3A%7B%7D%7D', '?limit=5', '?batch=0', '?batch=true']) {
      const before = await trpcGet('pets.list', '{"json":{"limit":100}}');
      const reply = await send(`/trpc/pets.create${query}`, { method: 'POST', body });
      expect(trpcVerdict(reply), query).toMatchObject({ status: 400, code: 'validation_failed' });
      const after = await trpcGet('pets.list', '{"json":{"limit":100}}');
      expect(after.text, `${query}: nothing stored`).toBe(before.text);
    }
    const list = await send('/trpc/pets.list?input=%7B%22json%22%3A%7B%7D%7D&cursor=x');
    expect(trpcVerdict(list)).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  // A bad percent-encoding is one 400 naming the part it is in, wherever it is (a bare URIError's message on REST's
  // path parameters, another on tRPC's procedure path, a third on a query).
  it('names the part of the target that is not valid percent-encoding the same way everywhere', async () => {
    const bad = fc.oneof(
      fc.constantFrom('%', '%G1', '%FF', '%C3', '%E0%A4%A', '%ED%A0%80', '%F8%88%80%80%80'),
      fc.string({ maxLength: 4 }).map((text) => `${encodeURIComponent(text)}%C3`),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (text) => {
        const said = (what: string) => `${what} is not valid percent-encoded UTF-8`;
        expect(restVerdict(await send(`/pets/${text}`)).message).toBe(said('path parameter "petId"'));
        expect(restVerdict(await send(`/pets?limit=${text}`)).message).toBe(said('query parameter "limit"'));
        expect(trpcVerdict(await send(`/trpc/pets.list${text}`)).message).toBe(said('the procedure path'));
      }),
      { seed: 78, numRuns: 40 },
    );
  });

  // One wording names the query parameters nothing reads, every one of them, on every endpoint: REST's read with a
  // query, REST's routes without one, tRPC and MCP (each said it its own way: the first name only, or all).
  // `__proto__` among them: tRPC's reader refused it alone (`unknown field "__proto__"`), naming no other key.
  it('names every unknown field of a body the same way on REST, tRPC and MCP, __proto__ among them', async () => {
    const names = fc.uniqueArray(
      fc
        .oneof(fc.constant('__proto__'), fc.stringMatching(/^[a-z]{1,6}$/))
        .filter((name) => !['name', 'categoryId', 'status'].includes(name)),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(names, fc.constantFrom('1', '{}', '"x"'), async (unknown, value) => {
        const body = `{"name":"Rex",${unknown.map((name) => `"${name}":${value}`).join(',')},"categoryId":1}`;
        const rest = restVerdict(await send('/pets', { method: 'POST', body }));
        const trpc = trpcVerdict(
          await send('/trpc/pets.create', { method: 'POST', body: `{"json":${body}}` }),
        );
        const mcp = await mcpCall('createPet', body);
        expect(rest, body).toMatchObject({ status: 400, code: 'validation_failed' });
        expect({ ...trpc, data: undefined }, body).toEqual({ ...rest, data: undefined });
        expect(withoutId(mcp), body).toEqual(withoutId(rest));
      }),
      { seed: 35, numRuns: 40 },
    );
  });

  it('names every unread query parameter the same way on REST, tRPC and MCP', async () => {
    const read = new Set(['limit', 'status', 'cursor', 'batch', 'input', 'lastEventId', 'Last-Event-Id']);
    const names = fc.uniqueArray(
      fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !read.has(name) && name.isWellFormed()),
      { minLength: 1, maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(names, async (unknown) => {
        // The first name given twice: still unknown, never `must be given at most once` (the edge said that first).
        const query = [...unknown, unknown[0] as string]
          .map((name) => `${encodeURIComponent(name)}=1`)
          .join('&');
        // In a record's key order (integer-like names first), as every reader holds a query.
        const expected = unknownKeysMessage(
          Object.keys(Object.fromEntries(unknown.map((name) => [name, 1]))),
          'query parameter',
        );
        const replies = [
          restVerdict(await send(`/pets?${query}`)),
          restVerdict(await send('/pets/1?' + query)),
          restVerdict(
            await send(`/pets?${query}`, { method: 'POST', body: '{"name":"Rex","categoryId":1}' }),
          ),
          trpcVerdict(await send(`/trpc/pets.list?${query}`)),
          restVerdict(await send(`/mcp?${query}`, { method: 'POST', body: '{}', headers: MCP })),
        ];
        for (const verdict of replies) {
          expect(verdict).toMatchObject({ status: 400, code: 'validation_failed' });
          expect(verdict.message?.startsWith(expected), `${verdict.message} starts with ${expected}`).toBe(
            true,
          );
        }
      }),
      { seed: 77, numRuns: 60 },
    );
  });
});

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
/** Marks where the spelled number goes in a JSON text. */
const SPELLED = Symbol('spelled');
/** Ways to write an integer as a number literal: each denotes it exactly, or (the last ones) does not. */
const INTEGER_SPELLINGS: ((value: bigint) => string)[] = [
  (value) => String(value),
  (value) => `${value}.0`,
  (value) => `${value}e0`,
  (value) => `${value}E+0`,
  (value) => (value === 0n ? '0e-3' : `${value}000e-3`),
  (value) => `${value}.5`,
  (value) => `${value}e-1`,
  (value) => `${value}.0000000000000000001`,
];
/** Unicode White_Space (PropList.txt), default-ignorable characters and controls (a sample), the oracle written out. */
const WHITE_SPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff, 0x200b, 0x2060,
  0x01, 0x07, 0x1b, 0x7f, 0x90, 0x9f,
].map((code) => String.fromCodePoint(code));
