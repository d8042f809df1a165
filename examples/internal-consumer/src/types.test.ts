// Compile-time guarantees for an internal app: wrong inputs do not compile, results are typed. The
// `@ts-expect-error` lines are checked by `pnpm typecheck` (an unused one is itself an error); the calls sit in a
// function that is never run, so this file needs no server.
import {
  type ApiError,
  apiErrorOf,
  createRestClient,
  createTrpcClient,
  type Pet,
  type PetStoreApiError,
} from '@petstore/client';
import { describe, expectTypeOf, it } from 'vitest';

const rest = createRestClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' });
const trpc = createTrpcClient({ url: 'http://127.0.0.1:1/v1/trpc', apiKey: 'k' });

function neverRun() {
  // @ts-expect-error misspelt field
  void rest.createPet({ name: 'Rex', categoryId: 1, stauts: 'sold' });
  // @ts-expect-error categoryId must be an integer (number or bigint), not text
  void rest.createPet({ name: 'Rex', categoryId: '1' });
  // @ts-expect-error not a PetStatus
  void rest.listPets({ status: 'lost' });
  // @ts-expect-error limit is a number
  void rest.listPets({ limit: '5' });
  // @ts-expect-error name is required
  void rest.createPet({ categoryId: 1 });
  // @ts-expect-error misspelt field
  void trpc.pets.create.mutate({ name: 'Rex', categoryId: 1, stauts: 'sold' });
  // @ts-expect-error categoryId must be an integer (number or bigint), not text
  void trpc.pets.create.mutate({ name: 'Rex', categoryId: '1' });
  // @ts-expect-error not a PetStatus
  void trpc.pets.list.query({ status: 'lost' });
  // @ts-expect-error the input is { petId }, not a bare id
  void trpc.pets.get.query(1n);
  // @ts-expect-error a cursor is opaque text, not a number
  void trpc.pets.page.query({ cursor: 5 });
  // @ts-expect-error allPets takes the filter and page size, not a cursor
  void rest.allPets({ cursor: 'x' });
  // @ts-expect-error no such procedure
  void trpc.pets.delete.mutate({ petId: 1n });
  // @ts-expect-error queries are not mutations
  void trpc.pets.list.mutate();
  // @ts-expect-error no such field on a Pet
  void rest.getPet(1n).then((pet) => pet.category);
  // @ts-expect-error environments are production or staging
  createRestClient({ environment: 'qa', apiKey: 'k' });
  // @ts-expect-error a base URL or an environment, not both
  createRestClient({ baseUrl: 'http://127.0.0.1:1/v1', environment: 'staging', apiKey: 'k' });
}

describe('typed results', () => {
  it('both clients return Pet, with int64 fields as bigint', () => {
    expectTypeOf(rest.listPets).returns.resolves.toEqualTypeOf<Pet[]>();
    expectTypeOf(rest.createPet).returns.resolves.toEqualTypeOf<Pet>();
    expectTypeOf(rest.getPet).returns.resolves.toEqualTypeOf<Pet>();
    expectTypeOf(trpc.pets.list.query).returns.resolves.toEqualTypeOf<Pet[]>();
    expectTypeOf(trpc.pets.create.mutate).returns.resolves.toEqualTypeOf<Pet>();
    expectTypeOf(trpc.pets.get.query).returns.resolves.toEqualTypeOf<Pet>();
    expectTypeOf(trpc.pets.page.query).returns.resolves.toEqualTypeOf<{
      items: Pet[];
      nextCursor: string | null;
    }>();
    expectTypeOf(rest.listPetsPage).returns.resolves.toEqualTypeOf<{
      pets: Pet[];
      nextCursor: string | null;
    }>();
    expectTypeOf(rest.allPets).returns.toEqualTypeOf<AsyncGenerator<Pet, void, undefined>>();
    expectTypeOf<Pet['id']>().toEqualTypeOf<bigint>();
    expectTypeOf<Pet['categoryId']>().toEqualTypeOf<bigint>();
    expectTypeOf<Pet['status']>().toEqualTypeOf<'available' | 'pending' | 'sold' | undefined>();
  });

  it('inputs take int64 values as number or bigint', () => {
    expectTypeOf(trpc.pets.create.mutate)
      .parameter(0)
      .toHaveProperty('categoryId')
      .toEqualTypeOf<number | bigint>();
    expectTypeOf(rest.getPet).parameter(0).toEqualTypeOf<number | bigint>();
  });

  it('errors carry the Error body', () => {
    expectTypeOf(apiErrorOf).returns.toEqualTypeOf<ApiError | undefined>();
    expectTypeOf<PetStoreApiError['error']>().toEqualTypeOf<ApiError | undefined>();
    expectTypeOf<PetStoreApiError['kind']>().toEqualTypeOf<'api' | 'network' | 'non_json' | 'invalid_body'>();
    expectTypeOf(neverRun).toBeFunction();
  });
});
