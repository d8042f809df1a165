// Two instances on one database whose API_KEYS lists are in different orders (a rolling deploy, a rotation that
// removed a key): a caller is the same caller on both, and never another caller. Its identity comes from its key,
// not from the key's position in the list, so idempotency records and rate-limit windows follow the key.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atStartOfRateWindow, call, type Reply } from './support/http.js';
import {
  DATABASE_KINDS,
  FOURTH_API_KEY,
  OTHER_API_KEY,
  startTestServer,
  TEST_API_KEY,
  type TestServer,
  THIRD_API_KEY,
} from './support/test-server.js';

const A = TEST_API_KEY;
const B = OTHER_API_KEY;
/** Keys only the rate-limit case spends, so that the budgets it reads start full. */
const C = THIRD_API_KEY;
const D = FOURTH_API_KEY;

const RATE_LIMIT = 10;

const create = (server: TestServer, apiKey: string, idempotencyKey: string, body: object) =>
  call(server.baseUrl, '/pets', {
    method: 'POST',
    apiKey,
    body: JSON.stringify(body),
    headers: { 'idempotency-key': idempotencyKey },
  });

const idOf = (reply: Reply) => (reply.body as { id: bigint | number }).id;

/** The requests left in the caller's window, from the `RateLimit` field. */
const remaining = (reply: Reply) => {
  const fields = /^"per-key";r=(\d+);t=\d+$/.exec(reply.headers.get('ratelimit') ?? '');
  expect(fields, `RateLimit of a ${reply.status}`).not.toBeNull();
  return Number((fields as RegExpExecArray)[1]);
};

describe.each(DATABASE_KINDS)('the caller identity across two instances on %s', (kind) => {
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    // The same keys, each at another position on the other instance (B sits where A sat, D where C sat).
    one = await startTestServer(kind, 'caller-identity', {
      apiKeys: [A, B, C, D],
      rateLimitPerMinute: RATE_LIMIT,
    });
    two = await startTestServer(kind, 'caller-identity', {
      sharing: one,
      apiKeys: [B, A, D, C],
      rateLimitPerMinute: RATE_LIMIT,
    });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const petsNamed = async (name: string) =>
    (
      await one.database.prisma.$queryRaw<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pets WHERE name = ${name}`
    )[0]?.n;

  it('a keyed create retried on the other instance replays the first pet, and creates no second one', async () => {
    const key = randomUUID();
    const body = { name: `Retried ${key}`, categoryId: 1 };
    const first = await create(one, A, key, body);
    expect(first.status).toBe(201);
    const retried = await create(two, A, key, body);
    expect({ status: retried.status, id: idOf(retried), text: retried.text }).toEqual({
      status: 201,
      id: idOf(first),
      text: first.text,
    });
    expect(await petsNamed(body.name)).toBe(1);
  });

  it("another key never meets the first key's Idempotency-Key, whichever instance it calls", async () => {
    const key = randomUUID();
    const mine = await create(one, A, key, { name: `Mine ${key}`, categoryId: 1 });
    expect(mine.status).toBe(201);
    // B sits on instance two where A sits on instance one: another body is a new pet of B's, not a 422.
    const other = await create(two, B, key, { name: `Theirs ${key}`, categoryId: 2 });
    expect(other.status).toBe(201);
    expect(idOf(other)).not.toBe(idOf(mine));
    // The same key and the same body: B gets a pet of its own, not A's pet replayed.
    const shared = randomUUID();
    const body = { name: `Same ${shared}`, categoryId: 1 };
    const a = await create(one, A, shared, body);
    const b = await create(two, B, shared, body);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(idOf(b)).not.toBe(idOf(a));
    expect(await petsNamed(body.name)).toBe(2);
  });

  it("one key's rate budget is its own on both instances, and never shown to another key", async () => {
    await atStartOfRateWindow();
    const spent = [];
    for (let i = 0; i < 3; i++) spent.push(remaining(await call(one.baseUrl, '/pets', { apiKey: C })));
    expect(spent).toEqual([RATE_LIMIT - 1, RATE_LIMIT - 2, RATE_LIMIT - 3]);
    // D sits on instance two where C sits on instance one: its budget is full.
    expect(remaining(await call(two.baseUrl, '/pets', { apiKey: D }))).toBe(RATE_LIMIT - 1);
    // C's budget follows C to the other instance; D's follows D.
    expect(remaining(await call(two.baseUrl, '/pets', { apiKey: C }))).toBe(RATE_LIMIT - 4);
    expect(remaining(await call(one.baseUrl, '/pets', { apiKey: D }))).toBe(RATE_LIMIT - 2);
  });
});
