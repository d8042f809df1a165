// createPet with an Idempotency-Key (REST header) or idempotencyKey (tRPC input field), on both databases:
// a repeat replays the first response and creates nothing, another body is 422, a concurrent repeat is 409,
// keys of different callers never meet, and expired keys are forgotten.
import { randomUUID } from 'node:crypto';
import { type ApiError, ErrorSchema } from '@petstore/schema';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import { idempotencyKeyHash, idempotencyLockId } from '../src/idempotency/idempotency.js';
import { createPetsService } from '../src/pets/pets.service.js';
import { call, expectError, type Reply } from './support/http.js';
import {
  DATABASE_KINDS,
  OTHER_API_KEY,
  startTestServer,
  TEST_CALLER,
  type TestServer,
} from './support/test-server.js';

/** The key TTL the test server runs with: an hour, so no key expires by the clock during the run. */
const KEY_TTL_SECONDS = 3_600;

const createRest = (server: TestServer, body: object, key?: string, apiKey?: string) =>
  call(server.baseUrl, '/pets', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: key === undefined ? {} : { 'idempotency-key': key },
    ...(apiKey === undefined ? {} : { apiKey }),
  });

/** pets.create over tRPC's HTTP protocol, the key as a field of the call's input. */
const createTrpc = (server: TestServer, body: object, key?: string) =>
  call(server.baseUrl, '/trpc/pets.create', {
    method: 'POST',
    body: JSON.stringify(superjson.serialize(key === undefined ? body : { ...body, idempotencyKey: key })),
  });

const trpcError = (reply: Reply): ApiError =>
  ErrorSchema.parse(
    superjson.deserialize<{ data: { error: ApiError } }>((reply.body as { error: never }).error).data.error,
  );

describe.each(DATABASE_KINDS)('idempotent createPet on %s', (kind) => {
  let server: TestServer;
  const countNamed = async (name: string) =>
    Number(
      (
        await server.database.sql.rows('SELECT count(*) AS count FROM pets WHERE name = $1', [
          { value: name, type: 'string' },
        ])
      )[0]?.count,
    );

  beforeAll(async () => {
    // A TTL far longer than any test: nothing expires by the clock mid-test on a slow machine. A test makes a key
    // expire by moving its pet's created_at back past the TTL (expiry is measured from created_at).
    server = await startTestServer(kind, 'idempotency', { idempotencyKeyTtlSeconds: KEY_TTL_SECONDS });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('REST: the same key and body twice give the same response, byte for byte, and one pet', async () => {
    const key = randomUUID();
    const first = await createRest(server, { name: 'Once', categoryId: 9007199254740993n.toString() }, key);
    expect(first.status).toBe(400); // categoryId as a string is invalid: nothing stored under the key
    const body = { name: 'Once', categoryId: 7, status: 'available' };
    const created = await createRest(server, body, key);
    const replayed = await createRest(server, { status: 'available', categoryId: 7.0, name: 'Once' }, key);
    expect(created.status).toBe(201);
    expect(replayed.status).toBe(201);
    expect(replayed.text).toBe(created.text);
    expect(replayed.headers.get('location')).toBe(created.headers.get('location'));
    expect(await countNamed('Once')).toBe(1);
  });

  it('REST: the same key with another body is 422, and creates nothing', async () => {
    const key = randomUUID();
    expect((await createRest(server, { name: 'First', categoryId: 1 }, key)).status).toBe(201);
    const other = await createRest(server, { name: 'Second', categoryId: 1 }, key);
    expectError(other, 422, 'idempotency_key_reused');
    expect(await countNamed('Second')).toBe(0);
  });

  it('REST: a key that is not 1..255 printable ASCII is 400 invalid_idempotency_key', async () => {
    for (const key of ['k'.repeat(256), 'tab\there']) {
      expectError(
        await createRest(server, { name: 'Bad key', categoryId: 1 }, key),
        400,
        'invalid_idempotency_key',
      );
    }
    expect(await countNamed('Bad key')).toBe(0);
  });

  it('keys of different callers never collide', async () => {
    const key = randomUUID();
    const mine = await createRest(server, { name: 'Caller', categoryId: 1 }, key);
    const theirs = await createRest(server, { name: 'Caller', categoryId: 1 }, key, OTHER_API_KEY);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.text).not.toBe(mine.text);
    expect(await countNamed('Caller')).toBe(2);
  });

  it('ten concurrent requests with one key: one pet, the others 201 (replayed) or 409', async () => {
    for (const send of [createRest, createTrpc]) {
      const key = randomUUID();
      const name = `Concurrent ${send === createRest ? 'REST' : 'tRPC'}`;
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => send(server, { name, categoryId: 3 }, key)),
      );
      const statuses = replies.map((reply) => reply.status);
      expect(statuses.every((status) => status === 201 || status === 200 || status === 409)).toBe(true);
      const successes = replies.filter((reply) => reply.status !== 409);
      expect(new Set(successes.map((reply) => reply.text)).size).toBe(1);
      for (const conflict of replies.filter((reply) => reply.status === 409)) {
        if (send === createRest) expectError(conflict, 409, 'idempotency_key_in_use');
        else expect(trpcError(conflict).code).toBe('idempotency_key_in_use');
      }
      expect(await countNamed(name)).toBe(1);
    }
  });

  it.runIf(kind === 'postgresql')(
    'while the first request with a key still runs (its lock held), a repeat is 409 and creates nothing',
    async () => {
      const key = randomUUID();
      // Holds the lock a running request would hold, from another connection, across the repeat.
      await server.database.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${idempotencyLockId(idempotencyKeyHash(TEST_CALLER, key))})`;
        expectError(
          await createRest(server, { name: 'Locked', categoryId: 1 }, key),
          409,
          'idempotency_key_in_use',
        );
        expect(trpcError(await createTrpc(server, { name: 'Locked', categoryId: 1 }, key)).code).toBe(
          'idempotency_key_in_use',
        );
      });
      expect(await countNamed('Locked')).toBe(0);
      expect((await createRest(server, { name: 'Locked', categoryId: 1 }, key)).status).toBe(201);
    },
  );

  it('tRPC: the key in the input has the same semantics, and is shared with REST', async () => {
    const key = randomUUID();
    const created = await createTrpc(server, { name: 'Both', categoryId: 5n }, key);
    const again = await createTrpc(server, { name: 'Both', categoryId: 5n }, key);
    expect(created.status).toBe(200);
    expect(again.text).toBe(created.text);
    const overRest = await createRest(server, { name: 'Both', categoryId: 5 }, key);
    expect(overRest.status).toBe(201);
    expect(BigInt((overRest.body as { id: number }).id)).toBe(
      superjson.deserialize<{ id: bigint }>((created.body as { result: { data: never } }).result.data).id,
    );
    expect(trpcError(await createTrpc(server, { name: 'Other', categoryId: 5n }, key)).code).toBe(
      'idempotency_key_reused',
    );
    expect(trpcError(await createTrpc(server, { name: 'Bad', categoryId: 5n }, '')).code).toBe(
      'invalid_idempotency_key',
    );
    expect(await countNamed('Both')).toBe(1);
  });

  it('a key is forgotten once it expires: the same key then creates again', async () => {
    const key = randomUUID();
    expect((await createRest(server, { name: 'Expiring', categoryId: 1 }, key)).status).toBe(201);
    expect((await createRest(server, { name: 'Expiring', categoryId: 1 }, key)).status).toBe(201);
    expect(await countNamed('Expiring')).toBe(1); // live: replayed
    await ageByTtl('Expiring');
    expect((await createRest(server, { name: 'Expiring', categoryId: 1 }, key)).status).toBe(201);
    expect(await countNamed('Expiring')).toBe(2);
  });

  /** Moves the creation of every pet named `name` back by the key TTL and a second: their keys are now expired. */
  const ageByTtl = async (name: string) => {
    await server.database.sql.rows(
      'UPDATE pets SET created_at = created_at - make_interval(secs => $1::int) WHERE name = $2',
      [
        { value: KEY_TTL_SECONDS + 1, type: 'int' },
        { value: name, type: 'string' },
      ],
    );
  };

  /** The idempotency columns of every pet named `name`, in id order: [key hash, fingerprint] as hex, or null. */
  const keyColumnsOf = async (name: string) =>
    (
      await server.database.sql.rows(
        "SELECT encode(idempotency_key_hash, 'hex') AS hash, encode(idempotency_fingerprint, 'hex') AS fingerprint FROM pets WHERE name = $1 ORDER BY id",
        [{ value: name, type: 'string' }],
      )
    ).map(({ hash, fingerprint }) => [hash, fingerprint]);

  it('the key is kept on its pet as a hash of caller and key, never in the clear', async () => {
    const key = randomUUID();
    expect((await createRest(server, { name: 'Hashed', categoryId: 1 }, key)).status).toBe(201);
    const [[hash, fingerprint]] = (await keyColumnsOf('Hashed')) as [[string, string]];
    expect(hash).toBe(idempotencyKeyHash(TEST_CALLER, key).toString('hex'));
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('expired keys are swept in the background; live ones stay', async () => {
    const [old, live] = [randomUUID(), randomUUID()];
    expect((await createRest(server, { name: 'Swept', categoryId: 1 }, old)).status).toBe(201);
    await ageByTtl('Swept');
    expect((await createRest(server, { name: 'Unswept', categoryId: 1 }, live)).status).toBe(201);
    // The server's own sweeper ran at its first keyed create and waits a minute before the next: a new instance
    // of the service sweeps on its first keyed create, as a freshly started api would.
    const fresh = createPetsService(server.database.sql, { idempotencyKeyTtlSeconds: KEY_TTL_SECONDS });
    await fresh.createPet(
      { name: 'Sweeper', categoryId: 1n, idempotencyKey: randomUUID() },
      { caller: { subject: TEST_CALLER } },
    );
    const deadline = Date.now() + scaled(10_000);
    while ((await keyColumnsOf('Swept'))[0]?.[0] !== null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await keyColumnsOf('Swept')).toEqual([[null, null]]);
    expect((await keyColumnsOf('Unswept'))[0]?.[0]).toBe(
      idempotencyKeyHash(TEST_CALLER, live).toString('hex'),
    );
    // The pet itself stays; its key is free again.
    expect((await createRest(server, { name: 'Swept', categoryId: 1 }, old)).status).toBe(201);
    expect(await countNamed('Swept')).toBe(2);
  });

  it('without a key nothing changes: two requests, two pets, no key stored', async () => {
    await createRest(server, { name: 'Keyless', categoryId: 1 });
    await createRest(server, { name: 'Keyless', categoryId: 1 });
    expect(await countNamed('Keyless')).toBe(2);
    expect(await keyColumnsOf('Keyless')).toEqual([
      [null, null],
      [null, null],
    ]);
  });
});
