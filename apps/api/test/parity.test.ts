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
            if (field === 'categoryId') {
              const body = json({ name: 'Rex', categoryId: SPELLED });
              const rest = restVerdict(await send('/pets', { method: 'POST', body }));
              const trpc = trpcVerdict(
                await send('/trpc/pets.create', { method: 'POST', body: `{"json":${body}}` }),
              );
              expect(withoutId(trpc), what).toEqual(withoutId(rest));
              return;
            }
            const rest = restVerdict(
              await send(
                field === 'limit'
                  ? `/pets?limit=${encodeURIComponent(text)}`
                  : `/pets/${encodeURIComponent(text)}`,
              ),
            );
            const procedure = field === 'limit' ? 'pets.list' : 'pets.get';
            const trpc = trpcVerdict(await trpcGet(procedure, `{"json":${json({ [field]: SPELLED })}}`));
            expect(trpc, what).toEqual(rest);
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'names of Unicode White_Space (U+0085 included) and invisible characters: refused alike',
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
            const what = `name ${JSON.stringify(name)}`;
            expect(rest.status, what).toBe(visible === undefined ? 400 : 'success');
            expect({ ...trpc, data: undefined }, what).toEqual({ ...rest, data: undefined });
          },
        ),
        fuzzParameters(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );

  it(
    'Idempotency-Key: one rule for the header and the tRPC field, and one key across transports',
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('', ' ', '  ', '\t'),
          fc.stringMatching(/^[ -~]{0,12}$/),
          fc.constantFrom('', ' ', '  ', '\t'),
          fc.boolean(),
          async (lead, middle, trail, restFirst) => {
            // A fresh key each run (the run number inside), with the generated edges around it.
            const key = `${lead}k${++run}-${Date.now()}${middle}${trail}`;
            const body = plainJson({ name: 'Rex', categoryId: 7n });
            const overRest = async () =>
              restVerdict(await send('/pets', { method: 'POST', body, headers: { 'idempotency-key': key } }));
            const overTrpc = async () =>
              trpcVerdict(
                await send('/trpc/pets.create', {
                  method: 'POST',
                  body: `{"json":${plainJson({ name: 'Rex', categoryId: 7n, idempotencyKey: key })}}`,
                }),
              );
            const first = restFirst ? await overRest() : await overTrpc();
            const second = restFirst ? await overTrpc() : await overRest();
            const what = `key ${JSON.stringify(key)}, ${restFirst ? 'REST then tRPC' : 'tRPC then REST'}`;
            // HTTP drops whitespace around a header value: a key with any has no REST spelling, and is refused on
            // tRPC rather than stored as a key no REST retry could repeat.
            if (key !== key.trim()) {
              const trpc = restFirst ? second : first;
              expect(trpc, what).toMatchObject({ status: 400, code: 'invalid_idempotency_key' });
              return;
            }
            // Same key, same body, same caller: the second is a replay of the first, whichever way each came.
            expect(second, what).toEqual(first);
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
/** Unicode White_Space (PropList.txt) and default-ignorable characters, the oracle written out. */
const WHITE_SPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff, 0x200b, 0x2060,
].map((code) => String.fromCodePoint(code));
