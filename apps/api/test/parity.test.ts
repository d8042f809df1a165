// Same input, same verdict, on both transports. Generated logical inputs (int64 edges, Unicode edges, missing,
// unknown and repeated fields, statuses, limits, cursors) go to REST and, as the equivalent tRPC call, to tRPC
// (as @trpc/client writes it, bigints annotated, and as plain JSON numbers); the status (201 on REST is 200 on
// tRPC), the Error code and what was stored (read back over both) must agree. How each REST input maps to a tRPC
// input: docs/interface-decisions.md "REST and tRPC inputs".
import { parseJson } from '@petstore/schema';
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
  plainEnvelope,
  plainJson,
  superjsonEnvelope,
} from './support/fuzz-inputs.js';
import { fuzzAgent, type RawReply, rawSend } from './support/raw-send.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const RUNS = 200;
const AUTH = { authorization: `Bearer ${TEST_API_KEY}` };

interface Verdict {
  /** 2xx as one class (REST's 201 is tRPC's 200); otherwise the status. */
  status: number | 'success';
  code: string | undefined;
  /** The answer's data, bigints as exact digits. */
  data: string | undefined;
}

const canonical = (value: unknown) => plainJson(value);

function restVerdict(reply: RawReply): Verdict {
  const body = reply.text === '' ? undefined : parseJson(reply.text);
  if (reply.status >= 200 && reply.status < 300)
    return { status: 'success', code: undefined, data: canonical(body) };
  return { status: reply.status, code: (body as { code?: string }).code, data: undefined };
}

function trpcVerdict(reply: RawReply): Verdict {
  const body = JSON.parse(reply.text) as {
    result?: { data: unknown };
    error?: { json: { data: { error: { code: string } } } };
  };
  if (reply.status === 200 && body.result !== undefined) {
    return {
      status: 'success',
      code: undefined,
      data: canonical(superjson.deserialize(body.result.data as never)),
    };
  }
  return { status: reply.status, code: body.error?.json.data.error.code, data: undefined };
}

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

describe('REST and tRPC give the same verdict to the same input', () => {
  let server: TestServer;
  const agent = fuzzAgent();
  let sent = 0;
  beforeAll(async () => {
    server = await startTestServer('pglite', 'parity');
  });
  afterAll(async () => {
    agent.destroy();
    await server?.close();
    if (process.env.FUZZ_RUNS !== undefined) console.info(`parity: ${sent} requests`);
  });

  const send = (path: string, options: { method?: string; body?: string } = {}) => {
    sent++;
    return rawSend(server.baseUrl, path, {
      ...options,
      agent,
      headers: { ...AUTH, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    });
  };
  const trpcGet = (procedure: string, input: string) =>
    send(`/trpc/${procedure}?input=${encodeURIComponent(input)}`);

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
            fc.oneof({ weight: 6, arbitrary: edgeInteger }, { weight: 1, arbitrary: edgeString }),
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
            const withoutId = (verdict: Verdict) => ({
              ...verdict,
              data:
                verdict.data === undefined
                  ? undefined
                  : JSON.stringify({ ...JSON.parse(verdict.data), id: 0 }),
            });
            expect(withoutId(trpc), what).toEqual(withoutId(rest));
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
          const rest = restVerdict(await send(`/pets${search === '' ? '' : `?${search}`}`));
          const trpc = trpcVerdict(await trpcGet('pets.list', envelope(input, annotated)));
          expect(trpc, `REST ?${search} / tRPC ${envelope(input, annotated)}`).toEqual(rest);
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
        }),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );
});
