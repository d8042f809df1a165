// Read-your-writes on every transport (issue 39, item 2): with read replicas configured, each create answers
// Petstore-Read-After, the primary's position once the write committed, for the client to send back. A streamed
// tRPC call (`trpc-accept: application/jsonl`, tRPC's httpBatchStreamLink) writes its headers before its calls
// settle, so the position of a streamed create was never sent. The api holds a streamed mutation's answer until
// its calls settle (trpc/trpc.express.ts); queries still stream.
//
// PostgreSQL only: replicas are a PostgreSQL feature. The primary is listed as its own replica (never a standby,
// so reads stay on it) and the position is real: pg_current_wal_lsn() after the commit.

import type { AppRouter } from '@petstore/client';
import { READ_AFTER_HEADER } from '@petstore/schema';
import { parseReadPosition } from '@petstore/schema/internal';
import { createTRPCClient, httpBatchStreamLink, httpLink } from '@trpc/client';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

vi.setConfig({ testTimeout: timeouts.server });

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer('postgresql', 'read-after', { readAfterWrites: true });
});
afterAll(() => server?.close());

const auth = { Authorization: `Bearer ${TEST_API_KEY}` };
const newPet = (name: string) => ({ name, categoryId: 3n, status: 'available' as const });

/** The position a response carries, checked to be one (a position the server can read back). */
function positionOf(headers: Headers): string {
  const position = headers.get(READ_AFTER_HEADER);
  expect(position, `${READ_AFTER_HEADER} on the answer`).not.toBeNull();
  expect(parseReadPosition(position as string)).toBeDefined();
  return position as string;
}

/** A tRPC client whose fetch records every response's headers. */
function recordingClient(stream: boolean) {
  const seen: Headers[] = [];
  const link = (stream ? httpBatchStreamLink : httpLink)({
    url: `${server.baseUrl}/trpc`,
    transformer: superjson,
    headers: auth,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.headers);
      return response;
    },
  });
  return { client: createTRPCClient<AppRouter>({ links: [link] }), seen };
}

describe('Petstore-Read-After on every create', () => {
  it('REST createPet carries it', async () => {
    const response = await fetch(`${server.baseUrl}/pets`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rest', categoryId: 3 }),
    });
    expect(response.status).toBe(201);
    positionOf(response.headers);
  });

  it.each([
    ['plain', false],
    ['streamed (httpBatchStreamLink, trpc-accept: application/jsonl)', true],
  ])('tRPC pets.create, %s, carries it, and the pet is returned', async (_, stream) => {
    const { client, seen } = recordingClient(stream);
    const pet = await client.pets.create.mutate(newPet(`Trpc ${stream}`));
    expect(pet).toMatchObject({ name: `Trpc ${stream}`, categoryId: 3n });
    expect(seen).toHaveLength(1);
    positionOf(seen[0] as Headers);
  });

  it('a streamed batch of creates carries the position of the last write', async () => {
    const response = await fetch(`${server.baseUrl}/trpc/pets.create,pets.create?batch=1`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', 'trpc-accept': 'application/jsonl' },
      body: JSON.stringify({
        0: superjson.serialize(newPet('Batch one')),
        1: superjson.serialize(newPet('Batch two')),
      }),
    });
    expect(response.status).toBe(200);
    const position = positionOf(response.headers);
    // The body is still tRPC's stream: one JSON value per line, both pets in it.
    const lines = (await response.text()).trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) JSON.parse(line);
    expect(lines.join('\n')).toContain('Batch one');
    expect(lines.join('\n')).toContain('Batch two');
    // A read sent with it is answered (the primary has replayed its own position).
    const read = await fetch(`${server.baseUrl}/pets?limit=1`, {
      headers: { ...auth, [READ_AFTER_HEADER]: position },
    });
    expect(read.status).toBe(200);
  });
});
