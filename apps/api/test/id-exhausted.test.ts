// An id sequence at its maximum (SQLSTATE 2200H, sequence_generator_limit_exceeded) makes every create fail until an
// operator acts: answered as the database that cannot store more, a 503 `Error` saying so, on REST, tRPC and MCP,
// never a 500. Reads still work.
import { type ApiError, ErrorSchema } from '@petstore/schema';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { MCP_POST_HEADERS, mcpToolCall } from './support/fuzz-inputs.js';
import { call, expectError } from './support/http.js';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

const EXHAUSTED = {
  code: 'service_unavailable',
  status: 503,
  message: expect.stringMatching(
    /^the database cannot store a new row \(2200H: an id sequence reached its maximum\)/,
  ),
};

describe.each(DATABASE_KINDS)('an exhausted id sequence on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, 'id-exhausted');
    const before = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"Before","categoryId":1}',
      headers: { 'idempotency-key': 'before' },
    });
    expect(before.status).toBe(201);
    await server.database.sql.rows("SELECT setval('pets_id_seq', 9223372036854775807)");
  });
  afterAll(() => server?.close());

  it('refuses a create on REST with a 503 Error saying why, and still serves reads', async () => {
    const reply = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"Rex","categoryId":1}',
      headers: { 'idempotency-key': 'exhausted-1' },
    });
    expectError(reply, 503, 'service_unavailable');
    expect(reply.body).toEqual(EXHAUSTED);
    expect(reply.headers.get('retry-after')).not.toBeNull();
    const list = await call(server.baseUrl, '/pets');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject([{ name: 'Before' }]);
  });

  it('answers a keyed repeat the same way: its insert draws an id before it meets the stored key', async () => {
    const repeat = await call(server.baseUrl, '/pets', {
      method: 'POST',
      body: '{"name":"Before","categoryId":1}',
      headers: { 'idempotency-key': 'before' },
    });
    expect(repeat.body).toEqual(EXHAUSTED);
  });

  it('refuses it on tRPC with the same Error', async () => {
    const reply = await call(server.baseUrl, '/trpc/pets.create', {
      method: 'POST',
      body: '{"json":{"name":"Rex","categoryId":1}}',
    });
    expect(reply.status).toBe(503);
    const shape = superjson.deserialize<{ data: { error: ApiError } }>(
      (reply.body as { error: never }).error,
    );
    expect(ErrorSchema.parse(shape.data.error)).toEqual(EXHAUSTED);
  });

  it('refuses it on MCP with the same Error', async () => {
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, ...MCP_POST_HEADERS },
      body: mcpToolCall('createPet', '{"name":"Rex","categoryId":1}'),
    });
    const text = await response.text();
    const json = text.startsWith('{')
      ? text
      : (text.split('\n').find((line) => line.startsWith('data: ')) ?? '').slice(6);
    const { result } = JSON.parse(json) as { result: { isError?: boolean; structuredContent: unknown } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(EXHAUSTED);
  });
});
