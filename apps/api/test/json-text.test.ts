// One rule for a JSON text wherever the api reads one (a body on REST, tRPC and MCP, a tRPC GET's `?input=`): one
// byte order mark at its start is ignored (RFC 8259 section 8.1); one anywhere else outside a string (a second at
// the start, one between tokens) is malformed JSON; U+FEFF inside a string, raw or escaped, is data. And a tRPC
// input that marks a number field as a superjson bigint is told so, not told its value is out of range.
import { type ApiError, ErrorSchema } from '@petstore/schema';
import fc from 'fast-check';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { fuzzParameters, fuzzTimeout } from './support/fuzz.js';
import { MCP_POST_HEADERS, mcpToolCall } from './support/fuzz-inputs.js';
import { call, expectError, type Reply } from './support/http.js';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

const BOM = '\uFEFF';

/** The Error body tRPC puts in `data.error` (superjson-encoded), or undefined for an answer without an error. */
const trpcError = (body: unknown): ApiError | undefined => {
  const error = (body as { error?: never }).error;
  return error === undefined
    ? undefined
    : ErrorSchema.parse(superjson.deserialize<{ data: { error: ApiError } }>(error).data.error);
};

type Placement = 'start' | 'twice' | 'between tokens' | 'raw in a string' | 'escaped in a string';

/** A pet's JSON text with U+FEFF placed as `placement` says, and the name it must be stored under if accepted. */
function newPetText(name: string, placement: Placement): { text: string; name: string } {
  const fields = (nameText: string) => `{"name":${nameText},"categoryId":1}`;
  switch (placement) {
    case 'start':
      return { text: BOM + fields(JSON.stringify(name)), name };
    case 'twice':
      return { text: BOM + BOM + fields(JSON.stringify(name)), name };
    case 'between tokens':
      return { text: `{"name":${BOM}${JSON.stringify(name)},"categoryId":1}`, name };
    case 'raw in a string':
      return { text: fields(JSON.stringify(`${name}${BOM}`)), name: `${name}${BOM}` };
    case 'escaped in a string':
      return {
        text: `${BOM}${fields(`${JSON.stringify(name).slice(0, -1)}\\ufeff"`)}`,
        name: `${name}${BOM}`,
      };
  }
}

const accepted = (placement: Placement) => placement !== 'twice' && placement !== 'between tokens';

const placement = fc.constantFrom<Placement>(
  'start',
  'twice',
  'between tokens',
  'raw in a string',
  'escaped in a string',
);
const petName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/);

function postJson(server: TestServer, path: string, text: string): Promise<Reply> {
  return call(server.baseUrl, path, {
    method: 'POST',
    body: Buffer.from(text, 'utf8') as Uint8Array,
    headers: { 'content-type': 'application/json' },
  });
}

/** The transports a body or input travels by, each answering with the stored pet's name or the Error it refused with. */
const transports: Record<
  string,
  (server: TestServer, text: string) => Promise<{ name?: unknown; error?: unknown; status: number }>
> = {
  'REST body': async (server, text) => {
    const reply = await postJson(server, '/pets', text);
    if (reply.status === 201) return { status: 201, name: (reply.body as { name: unknown }).name };
    expectError(reply, reply.status, (reply.body as { code: string }).code);
    return { status: reply.status, error: reply.body };
  },
  'tRPC body': async (server, text) => {
    const envelope = text.startsWith(BOM + BOM)
      ? `${BOM}${BOM}{"json":${text.slice(2)}}`
      : text.startsWith(BOM)
        ? `${BOM}{"json":${text.slice(1)}}`
        : `{"json":${text}}`;
    const reply = await postJson(server, '/trpc/pets.create', envelope);
    if (reply.status === 200)
      return {
        status: 200,
        name: (reply.body as { result: { data: { json: { name: unknown } } } }).result.data.json.name,
      };
    return {
      status: reply.status,
      error: trpcError(reply.body),
    };
  },
  'MCP body': async (server, text) => {
    const leading = text.match(/^\uFEFF*/)?.[0] ?? '';
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, ...MCP_POST_HEADERS },
      body: Buffer.from(leading + mcpToolCall('createPet', text.slice(leading.length)), 'utf8'),
    });
    const answered = await response.text();
    // One JSON-RPC message, as JSON or as the data of one event.
    const json = answered.startsWith('{')
      ? answered
      : (answered.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
    const answer = JSON.parse(json) as {
      result?: { isError?: boolean; structuredContent?: { name?: unknown } };
      error?: { code: number; message: string };
    };
    if (answer.error !== undefined) return { status: response.status, error: answer.error };
    expect(answer.result?.isError, JSON.stringify(answer)).toBeFalsy();
    return { status: 201, name: answer.result?.structuredContent?.name };
  },
};

describe.each(DATABASE_KINDS)('a JSON text on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, 'json-text');
  });
  afterAll(() => server?.close());

  it.each(Object.keys(transports))(
    'is read by one rule for U+FEFF on the %s (generated)',
    async (transport) => {
      const send = transports[transport] as (typeof transports)[string];
      await fc.assert(
        fc.asyncProperty(petName, placement, async (name, where) => {
          const sent = newPetText(name, where);
          const answer = await send(server, sent.text);
          if (accepted(where)) {
            expect(answer, `${where}: ${JSON.stringify(sent.text)}`).toEqual({
              status: answer.status,
              name: sent.name,
            });
            expect(answer.status).toBeLessThan(300);
          } else if (transport === 'MCP body') {
            expect(answer, where).toMatchObject({ status: 400, error: { code: -32700 } });
          } else {
            expect(answer, where).toMatchObject({
              status: 400,
              error: { code: 'malformed_json', status: 400 },
            });
          }
        }),
        fuzzParameters(20),
      );
    },
    fuzzTimeout(30),
  );

  it(
    'reads a tRPC GET input by the same rule (generated)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 100 }), placement, async (limit, where) => {
          const input =
            where === 'start'
              ? `${BOM}{"json":{"limit":${limit}}}`
              : where === 'twice'
                ? `${BOM}${BOM}{"json":{"limit":${limit}}}`
                : where === 'between tokens'
                  ? `{"json":${BOM}{"limit":${limit}}}`
                  : where === 'raw in a string'
                    ? `{"json":{"limit":${limit},"status":"sold${BOM}"}}`
                    : `${BOM}{"json":{"limit":${limit},"status":"sold\\ufeff"}}`;
          const reply = await call(server.baseUrl, `/trpc/pets.list?input=${encodeURIComponent(input)}`);
          const error = trpcError(reply.body);
          if (where === 'start')
            expect({ status: reply.status, error }).toEqual({ status: 200, error: undefined });
          else if (accepted(where))
            // The U+FEFF is part of the status it was written in: no such status (not unreadable JSON).
            expect(error, where).toMatchObject({
              code: 'validation_failed',
              message: expect.stringMatching(/^status: /),
            });
          else expect(error, where).toMatchObject({ code: 'malformed_json', status: 400 });
        }),
        fuzzParameters(30),
      );
    },
    fuzzTimeout(30),
  );

  it('tells a tRPC caller that marks a number field as a bigint what is wrong', async () => {
    for (const [procedure, limit] of [
      ['pets.list', 10],
      ['pets.page', 10],
      ['pets.list', 1000],
    ] as const) {
      const input = `{"json":{"limit":"${limit}"},"meta":{"values":{"limit":["bigint"]}}}`;
      const reply = await call(server.baseUrl, `/trpc/${procedure}?input=${encodeURIComponent(input)}`);
      expect(reply.status).toBe(400);
      expect(trpcError(reply.body)).toEqual({
        code: 'validation_failed',
        status: 400,
        message: 'limit: must be a JSON number, not a bigint (drop its superjson "bigint" annotation)',
      });
    }
    // A number a plain JSON input spells past 2^53 is read as a bigint too, and is out of range: said so.
    const big = await call(
      server.baseUrl,
      `/trpc/pets.list?input=${encodeURIComponent('{"json":{"limit":9007199254740993}}')}`,
    );
    expect(trpcError(big.body)?.message).toBe('limit: must be an integer between 1 and 100');
    // The annotations a tRPC input may carry, as the message names them: `number` is one.
    const date = await call(
      server.baseUrl,
      `/trpc/pets.list?input=${encodeURIComponent('{"json":{"limit":"x"},"meta":{"values":{"limit":["Date"]}}}')}`,
    );
    expect(trpcError(date.body)?.message).toBe(
      'limit: tRPC input annotations may only mark bigint, number or undefined values',
    );
  });
});
