// int64 inputs on both clients: a number that is not a safe integer where the contract expects an int64 is refused
// with a TypeError naming the field before any request (it would be rounded, or sent as null); a safe integer
// (-0 included) or any bigint is sent with its exact digits. Against a local server that records what arrives.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import superjson from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRestClient } from './rest-client.js';
import { createTrpcClient } from './trpc-client.js';

let server: Server;
let origin: string;
let seen: { method: string; url: string; body: string }[];

const ERROR = { code: 'validation_failed', message: 'refused by the test server', status: 400 };
const TRPC_ERROR = {
  error: superjson.serialize({
    message: ERROR.message,
    code: -32600,
    data: { code: 'BAD_REQUEST', httpStatus: 400, error: ERROR },
  }),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      seen.push({ method: req.method ?? '', url, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(url.startsWith('/v1/trpc/') ? TRPC_ERROR : ERROR));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const apiKey = 'key-0123456789abcdef';
const rest = () => createRestClient({ baseUrl: `${origin}/v1`, apiKey, retries: false });
const trpc = () => createTrpcClient({ url: `${origin}/v1/trpc`, apiKey, retries: false, batch: false });

/** The failure of a call (each call here fails: the server refuses everything). */
const failureOf = async (call: () => Promise<unknown> | unknown) => {
  try {
    await call();
  } catch (failure) {
    return failure;
  }
  return expect.unreachable('the call should have failed');
};

/** The TypeError behind a failure: REST throws it, tRPC's client wraps it in a TRPCClientError (its cause). */
const typeErrorOf = (failure: unknown) =>
  failure instanceof TypeError
    ? failure
    : (failure as { cause?: unknown } | undefined)?.cause instanceof TypeError
      ? ((failure as { cause: TypeError }).cause as TypeError)
      : undefined;

/** Follows tRPC's pets.events until its first error. */
const subscribeFailure = (since: number | bigint) =>
  new Promise<unknown>((resolve) => {
    // onError may come before subscribe returns (an input refused before any request): unsubscribe after it.
    const subscription = trpc().pets.events.subscribe(
      { since },
      {
        onError: (error) => {
          resolve(error);
          queueMicrotask(() => subscription.unsubscribe());
        },
      },
    );
  });

/** The int64 calls of both clients, each with the field its value goes to. */
const CALLS: { name: string; field: string; call: (value: number | bigint) => Promise<unknown> }[] = [
  {
    name: 'REST createPet',
    field: 'categoryId',
    call: (value) => failureOf(() => rest().createPet({ name: 'Rex', categoryId: value })),
  },
  { name: 'REST getPet', field: 'petId', call: (value) => failureOf(() => rest().getPet(value)) },
  {
    name: 'REST followPetEvents',
    field: 'since',
    call: (value) =>
      failureOf(async () => {
        for await (const _ of rest().followPetEvents({ since: value })) break;
      }),
  },
  {
    name: 'tRPC pets.create',
    field: 'categoryId',
    call: (value) => failureOf(() => trpc().pets.create.mutate({ name: 'Rex', categoryId: value })),
  },
  {
    name: 'tRPC pets.get',
    field: 'petId',
    call: (value) => failureOf(() => trpc().pets.get.query({ petId: value })),
  },
  { name: 'tRPC pets.events', field: 'since', call: (value) => subscribeFailure(value) },
];

/** The int64 value a request carried, however the transport wrote it. */
function sentValue(request: { url: string; body: string }, field: string): bigint {
  const url = new URL(request.url, origin);
  if (url.pathname.startsWith('/v1/trpc/')) {
    const envelope =
      request.body === '' ? JSON.parse(url.searchParams.get('input') ?? '') : JSON.parse(request.body);
    return BigInt(superjson.deserialize<Record<string, number | bigint>>(envelope)[field] as number | bigint);
  }
  if (field === 'petId') return BigInt(url.pathname.split('/').pop() ?? '');
  if (field === 'since') return BigInt(url.searchParams.get('since') ?? '');
  // The body's digits as written: JSON.parse would round them.
  return BigInt(/"categoryId":(-?\d+)[,}]/.exec(request.body)?.[1] ?? 'NaN');
}

/** Numbers the wire would alter: integers past 2^53 (already rounded), NaN and the infinities (sent as null). */
const notSafe = fc.oneof(
  fc
    .double()
    .filter((value) => !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))),
  fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 60, 2 ** 63, Number.MAX_VALUE, NaN, Infinity, -Infinity),
);
/** Fractions: written as given, so the service judges them (400, the same message on every transport). */
const fractions = fc
  .double({ noNaN: true, noDefaultInfinity: true })
  .filter((value) => !Number.isInteger(value));
const exact = fc.oneof(
  fc.maxSafeInteger(),
  fc.constantFrom(-0, 0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
);

describe.each(CALLS)('$name: int64 $field', ({ field, call }) => {
  it('refuses a number that is not a safe integer with a TypeError naming the field, before any request', async () => {
    await fc.assert(
      fc.asyncProperty(notSafe, async (value) => {
        seen = [];
        const error = typeErrorOf(await call(value));
        expect(error?.message).toContain(`${field} is an int64`);
        expect(seen).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('sends a fraction as given, for the service to refuse as it does on every transport', async () => {
    await fc.assert(
      fc.asyncProperty(fractions, async (value) => {
        seen = [];
        expect(typeErrorOf(await call(value))).toBeUndefined();
        expect(seen).toHaveLength(1);
      }),
      { numRuns: 20 },
    );
  });

  it('sends a safe integer (-0 too) or any bigint with its exact digits', async () => {
    await fc.assert(
      fc.asyncProperty(exact, async (value) => {
        seen = [];
        expect(typeErrorOf(await call(value))).toBeUndefined();
        expect(seen).toHaveLength(1);
        expect(sentValue(seen[0] as (typeof seen)[number], field)).toBe(BigInt(value));
      }),
      { numRuns: 40 },
    );
  });
});
