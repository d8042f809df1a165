// The tRPC client's subscription link against a stock tRPC server (@trpc/server's own HTTP handler, superjson,
// tracked() events: the wire the service speaks), which the test cuts off and refuses on purpose. The real service
// is in apps/api/test/clients.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PetEvent } from '@petstore/schema';
import { TRPCClientError } from '@trpc/client';
import { initTRPC, tracked } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import superjson from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiErrorOf } from './api-error-of.js';
import { PetStoreApiError } from './client-error.js';
import { createTrpcClient } from './trpc-client.js';

const ABOVE_2_53 = 9007199254740993n;
const eventOf = (id: bigint) => ({
  id,
  kind: 'pet.created' as const,
  pet: { id, name: `Pet ${id}`, categoryId: ABOVE_2_53 },
});

type Input = { since?: bigint; lastEventId?: string | null };

interface Seen {
  input: Input;
  headers: IncomingHttpHeaders;
}

let seen: Seen[];
/** Events the server has: 1..5. The first connection stops after `cutAfter` of them and waits to be cut. */
let cutAfter: number;
/** Requests the server refuses with this answer before it serves (a 503 from a restart, say). */
let refusals: { status: number; body: string }[];

const t = initTRPC.context<{ headers: IncomingHttpHeaders }>().create({ transformer: superjson });
const router = t.router({
  pets: t.router({
    events: t.procedure
      .input((value) => value as Input)
      .subscription(async function* ({ input, ctx, signal }) {
        seen.push({ input, headers: ctx.headers });
        const after = input.lastEventId ? BigInt(input.lastEventId) : (input.since ?? 0n);
        const first = seen.length === 1;
        for (let id = after + 1n; id <= 5n; id++) {
          if (first && id > BigInt(cutAfter)) break;
          yield tracked(String(id), eventOf(id));
        }
        // Open until the client goes (or the test cuts the connection).
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      }),
  }),
});

let server: Server;
let url: string;
beforeAll(async () => {
  const handler = createHTTPHandler({
    router,
    basePath: '/v1/trpc/',
    createContext: ({ req }) => ({ headers: req.headers }),
  });
  server = createServer((req, res) => {
    const refusal = refusals.shift();
    if (refusal === undefined) return handler(req, res);
    res.writeHead(refusal.status, { 'content-type': 'application/json', 'retry-after': '0' });
    res.end(refusal.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/trpc`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  cutAfter = 5;
  refusals = [];
});

/** Subscribes to pets.events from `since`, until `count` events arrived (or an error); then unsubscribes. */
function follow(count: number, onEvent: (id: string) => void = () => {}) {
  const client = createTrpcClient({ url, apiKey: 'key-0123456789abcdef' });
  const received: { id: string; data: PetEvent }[] = [];
  return new Promise<typeof received>((resolve, reject) => {
    const subscription = client.pets.events.subscribe(
      { since: 0n },
      {
        onData: (value) => {
          // What tRPC's client hands onData for a tracked() event. The router type in @petstore/schema/trpc still
          // declares the server-side envelope (a tuple) as the output: cast until it declares TrackedData.
          const tracked = value as unknown as (typeof received)[number];
          received.push(tracked);
          onEvent(tracked.id);
          if (received.length === count) {
            subscription.unsubscribe();
            resolve(received);
          }
        },
        onError: (error) => {
          subscription.unsubscribe();
          reject(error);
        },
      },
    );
  });
}

describe('tRPC client subscriptions (httpSubscriptionLink)', () => {
  it('receives tracked events { id, data } with bigint fields, the bearer key on the connection', async () => {
    const received = await follow(2);
    expect(received).toEqual([
      { id: '1', data: eventOf(1n) },
      { id: '2', data: eventOf(2n) },
    ]);
    expect(seen).toEqual([
      {
        input: { since: 0n },
        headers: expect.objectContaining({ authorization: 'Bearer key-0123456789abcdef' }),
      },
    ]);
  });

  it('resumes after the server cuts the connection, from the last id (lastEventId), each event once', async () => {
    cutAfter = 2;
    const received = await follow(5, (id) => {
      if (id === '2') server.closeAllConnections();
    });
    expect(received.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(seen.map((connection) => connection.input)).toEqual([
      { since: 0n },
      { since: 0n, lastEventId: '2' },
    ]);
    expect(seen[1]?.headers.authorization).toBe('Bearer key-0123456789abcdef');
  });

  it('connects again after a 503 instead of giving up', async () => {
    refusals = [{ status: 503, body: '{"code":"service_unavailable","message":"restarting","status":503}' }];
    expect((await follow(1)).map((event) => event.id)).toEqual(['1']);
    expect(refusals).toEqual([]);
  });

  it('a 401 ends the subscription with the Error body the refusal carried (apiErrorOf), and is not retried', async () => {
    // What the service answers a subscription with a bad key: tRPC's error envelope, the Error body in data.error.
    const unauthorized = { code: 'unauthorized', message: 'invalid API key', status: 401 };
    const shape = {
      message: unauthorized.message,
      code: -32001,
      data: { code: 'UNAUTHORIZED', httpStatus: 401, error: unauthorized },
    };
    refusals = [{ status: 401, body: JSON.stringify({ error: superjson.serialize(shape) }) }];
    const error = await follow(1).then(
      () => expect.unreachable('the subscription should have failed'),
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as Error).message).toBe('invalid API key');
    expect(apiErrorOf(error)).toEqual(unauthorized);
    expect(refusals).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('a refusal whose body is not a tRPC error (a proxy page) still ends the subscription, without a body', async () => {
    refusals = [{ status: 403, body: '<html>forbidden</html>' }];
    const error = await follow(1).then(
      () => expect.unreachable('the subscription should have failed'),
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(apiErrorOf(error)).toBeUndefined();
  });
});

describe('tRPC client calls (httpBatchLink)', () => {
  it('a reply that is not JSON (a proxy page) is retried and fails as REST does: attempts, status, kind', async () => {
    refusals = Array.from({ length: 3 }, () => ({ status: 502, body: '<html>Bad Gateway</html>' }));
    const client = createTrpcClient({ url, apiKey: 'key-0123456789abcdef', retries: { baseDelayMs: 1 } });
    const error = (await client.pets.list
      .query({})
      .catch((failure: unknown) => failure)) as TRPCClientError<never> & {
      attempts?: number;
    };
    expect(refusals).toEqual([]);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error.message).toMatch(/answered 502 with a body that is not JSON \(after 3 attempts\)$/);
    expect(error.attempts).toBe(3);
    expect(error.cause).toBeInstanceOf(PetStoreApiError);
    expect(error.cause).toMatchObject({
      kind: 'non_json',
      status: 502,
      attempts: 3,
      responseText: '<html>Bad Gateway</html>',
    });
  });
});
