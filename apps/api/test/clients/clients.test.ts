// Every REST route through the REST client and every procedure through the tRPC client, against the real API
// (apps/api) on a real PostgreSQL database and on PGlite, error cases included.

import {
  apiErrorOf,
  createRestClient,
  createTrpcClient,
  PetStoreApiError,
  type PetStoreTrpcClient,
  type RestClient,
} from '@petstore/client';
import { ERROR_CODES } from '@petstore/schema';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from '../support/test-server.js';

const ABOVE_2_53 = 9007199254740993n;
const INT64_MAX = 9223372036854775807n;

/** The failure of a call that must fail. */
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );

describe.each(DATABASE_KINDS)('clients against the API on %s', (kind) => {
  let server: TestServer;
  let rest: RestClient;
  let trpc: PetStoreTrpcClient;
  const restWithKey = (apiKey: string) => createRestClient({ baseUrl: server.baseUrl, apiKey });
  const trpcWithKey = (apiKey: string) => createTrpcClient({ url: `${server.baseUrl}/trpc`, apiKey });

  beforeAll(async () => {
    server = await startTestServer(kind, 'client');
    rest = restWithKey(TEST_API_KEY);
    trpc = trpcWithKey(TEST_API_KEY);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('REST client', () => {
    it('createPet, getPet and listPets return typed pets, int64 above 2^53 exact both ways', async () => {
      const created = await rest.createPet({ name: 'Rex', categoryId: ABOVE_2_53, status: 'available' });
      expect(created).toEqual({ id: created.id, name: 'Rex', categoryId: ABOVE_2_53, status: 'available' });
      expect(typeof created.id).toBe('bigint');
      const bare = await rest.createPet({ name: 'Max', categoryId: INT64_MAX });
      expect(bare).toEqual({ id: bare.id, name: 'Max', categoryId: INT64_MAX });
      expect(bare).not.toHaveProperty('status');
      expect(await rest.getPet(created.id)).toEqual(created);
      const listed = await rest.listPets({ limit: 100 });
      expect(listed.slice(-2)).toEqual([created, bare]);
      expect(await rest.listPets({ status: 'available', limit: 100 })).toContainEqual(created);
      expect((await rest.listPets()).length).toBeLessThanOrEqual(20);
    });

    it('401 for a missing-in-practice or wrong key, on every route', async () => {
      for (const call of [
        (client: RestClient) => client.listPets(),
        (client: RestClient) => client.createPet({ name: 'Rex', categoryId: 1 }),
        (client: RestClient) => client.getPet(1n),
      ]) {
        const error = await failureOf(call(restWithKey('wrong-key-0123456789abcdef')));
        expect(error).toBeInstanceOf(PetStoreApiError);
        expect(error).toMatchObject({
          kind: 'api',
          status: 401,
          error: { code: 'unauthorized', status: 401 },
        });
        // A key that is not a b64token cannot even be sent as a bearer token: still 401, never a client crash.
        const malformed = await failureOf(call(restWithKey('not a token')));
        expect(malformed).toMatchObject({ kind: 'api', status: 401, code: 'unauthorized' });
      }
    });

    it.each([
      ['limit too small', { limit: 0 }, 'limit: must be an integer between 1 and 100'],
      ['limit too large', { limit: 101 }, 'limit: must be an integer between 1 and 100'],
      ['limit not an integer', { limit: 1.5 }, 'limit: must be an integer between 1 and 100'],
      ['unknown status', { status: 'lost' }, 'status: must be one of available, pending, sold'],
      ['unsupported parameter', { offset: 20 }, 'unknown query parameter "offset"'],
    ])('listPets: 400 for %s', async (_name, query, message) => {
      const error = await failureOf(rest.listPets(query as never));
      expect(apiErrorOf(error)).toEqual({ code: 'validation_failed', message, status: 400 });
    });

    it.each([
      ['missing fields', {}, 'name: is required; categoryId: is required'],
      ['empty name', { name: '', categoryId: 1 }, 'name: must not be empty'],
      ['categoryId as text', { name: 'Rex', categoryId: '1' }, 'categoryId: must be an integer (int64)'],
      [
        'categoryId past int64',
        { name: 'Rex', categoryId: INT64_MAX + 1n },
        /^categoryId: must be an integer between/,
      ],
      [
        'null status',
        { name: 'Rex', categoryId: 1, status: null },
        /^status: must be one of available, pending, sold \(omit/,
      ],
      ['client-chosen id', { name: 'Rex', categoryId: 1, id: 5 }, 'unknown field "id"'],
    ])('createPet: 400 for %s', async (_name, body, message) => {
      const error = await failureOf(rest.createPet(body as never));
      expect(error).toMatchObject({ kind: 'api', status: 400, code: 'validation_failed' });
      expect((error as PetStoreApiError).error?.message).toMatch(message);
    });

    it.each([0n, -1n, INT64_MAX + 1n])('getPet(%s): 400, it can name no pet', async (petId) => {
      const error = await failureOf(rest.getPet(petId));
      expect(error).toMatchObject({ kind: 'api', status: 400, code: 'validation_failed' });
    });

    it('getPet: 404 pet_not_found for a well-formed id no pet has', async () => {
      const error = await failureOf(rest.getPet(INT64_MAX));
      expect(error).toMatchObject({
        kind: 'api',
        status: ERROR_CODES.pet_not_found,
        error: { code: 'pet_not_found', message: `no pet with id ${INT64_MAX}`, status: 404 },
      });
    });
  });

  describe('paging through the clients', () => {
    it('REST listPetsPage reads the Link header, allPets follows it to the end; tRPC pets.page matches', async () => {
      const made: bigint[] = [];
      for (let index = 0; index < 7; index += 1) {
        made.push((await rest.createPet({ name: `Page ${index}`, categoryId: 1, status: 'pending' })).id);
      }
      const first = await rest.listPetsPage({ status: 'pending', limit: 3 });
      expect(first.pets.map((pet) => pet.id)).toEqual(made.slice(0, 3));
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await rest.listPetsPage({
        status: 'pending',
        limit: 3,
        cursor: first.nextCursor as string,
      });
      expect(second.pets.map((pet) => pet.id)).toEqual(made.slice(3, 6));
      const walked: bigint[] = [];
      for await (const pet of rest.allPets({ status: 'pending', limit: 2 })) walked.push(pet.id);
      expect(walked).toEqual(made);
      // The same cursor on tRPC: interchangeable.
      const page = await trpc.pets.page.query({
        status: 'pending',
        limit: 3,
        cursor: first.nextCursor as string,
      });
      expect(page.items).toEqual(second.pets);
      expect(page.nextCursor).toBe(second.nextCursor);
      const last = await trpc.pets.page.query({
        status: 'pending',
        limit: 3,
        cursor: page.nextCursor as string,
      });
      expect(last).toEqual({ items: [expect.objectContaining({ id: made[6] })], nextCursor: null });
      const refused = await failureOf(
        rest.listPetsPage({ status: 'sold', cursor: first.nextCursor as string }),
      );
      expect(apiErrorOf(refused)).toMatchObject({ code: 'validation_failed', status: 400 });
      const refusedTrpc = await failureOf(trpc.pets.page.query({ cursor: 'forged.cursor' }));
      expect(apiErrorOf(refusedTrpc)).toMatchObject({ code: 'validation_failed', status: 400 });
    });
  });

  describe('tRPC client', () => {
    it('pets.create, pets.get and pets.list return typed pets, int64 above 2^53 exact both ways', async () => {
      const created = await trpc.pets.create.mutate({
        name: 'Rex',
        categoryId: ABOVE_2_53,
        status: 'pending',
      });
      expect(created).toEqual({ id: created.id, name: 'Rex', categoryId: ABOVE_2_53, status: 'pending' });
      const bare = await trpc.pets.create.mutate({ name: 'Max', categoryId: INT64_MAX });
      expect(bare).not.toHaveProperty('status');
      // Two queries in the same tick travel in one batched request.
      const [got, listed] = await Promise.all([
        trpc.pets.get.query({ petId: created.id }),
        trpc.pets.list.query({ limit: 100 }),
      ]);
      expect(got).toEqual(created);
      expect(listed.slice(-2)).toEqual([created, bare]);
      expect(await trpc.pets.list.query({ status: 'pending', limit: 100 })).toContainEqual(created);
      expect((await trpc.pets.list.query()).length).toBeLessThanOrEqual(20);
    });

    it('401 UNAUTHORIZED with the REST Error body, on every procedure', async () => {
      const client = trpcWithKey('wrong-key-0123456789abcdef');
      for (const call of [
        () => client.pets.list.query(),
        () => client.pets.create.mutate({ name: 'Rex', categoryId: 1 }),
        () => client.pets.get.query({ petId: 1n }),
      ]) {
        const error = await failureOf(call());
        expect(error).toBeInstanceOf(TRPCClientError);
        expect((error as TRPCClientError<never>).data).toMatchObject({
          code: 'UNAUTHORIZED',
          httpStatus: 401,
        });
        expect(apiErrorOf(error)).toEqual({ code: 'unauthorized', message: 'invalid API key', status: 401 });
      }
    });

    it.each([
      [
        'pets.list limit 0',
        (c: PetStoreTrpcClient) => c.pets.list.query({ limit: 0 }),
        'limit: must be an integer between 1 and 100',
      ],
      [
        'pets.list unknown status',
        (c: PetStoreTrpcClient) => c.pets.list.query({ status: 'lost' as never }),
        'status: must be one of available, pending, sold',
      ],
      [
        'pets.list offset',
        (c: PetStoreTrpcClient) => c.pets.list.query({ offset: 1 } as never),
        'unknown query parameter "offset"',
      ],
      [
        'pets.create missing fields',
        (c: PetStoreTrpcClient) => c.pets.create.mutate({} as never),
        'name: is required; categoryId: is required',
      ],
      [
        'pets.create id',
        (c: PetStoreTrpcClient) => c.pets.create.mutate({ name: 'Rex', categoryId: 1, id: 5 } as never),
        'unknown field "id"',
      ],
      [
        'pets.get petId 0',
        (c: PetStoreTrpcClient) => c.pets.get.query({ petId: 0n }),
        'petId: must be a positive integer (1 to 9223372036854775807)',
      ],
    ])('400 BAD_REQUEST for %s, with the REST message', async (_name, call, message) => {
      const error = await failureOf(call(trpc));
      expect((error as TRPCClientError<never>).data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      expect(apiErrorOf(error)).toEqual({ code: 'validation_failed', message, status: 400 });
    });

    it('404 NOT_FOUND pet_not_found from pets.get', async () => {
      const error = await failureOf(trpc.pets.get.query({ petId: INT64_MAX }));
      expect((error as TRPCClientError<never>).data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
      expect(apiErrorOf(error)).toEqual({
        code: 'pet_not_found',
        message: `no pet with id ${INT64_MAX}`,
        status: 404,
      });
    });

    it('works unbatched too', async () => {
      const client = createTrpcClient({ url: `${server.baseUrl}/trpc`, apiKey: TEST_API_KEY, batch: false });
      const pet = await client.pets.create.mutate({ name: 'Solo', categoryId: 2 });
      expect(await client.pets.get.query({ petId: pet.id })).toEqual(pet);
    });
  });
});
