// Code another team writes against @petstore/client (see schema-consumer.ts for how it is used). Type-checked only.
import {
  apiErrorOf,
  createRestClient,
  createTrpcClient,
  type NewPetInput,
  type Pet,
  PetStoreApiError,
  type PetStoreErrorKind,
  type RestClient,
} from '@petstore/client';

export async function useRest(): Promise<string[]> {
  const rest: RestClient = createRestClient({
    baseUrl: 'https://api.example/v1',
    apiKey: 'key-0123456789abcdef',
  });
  const input: NewPetInput = { name: 'Rex', categoryId: 1n, status: 'available' };
  const pet: Pet = await rest.createPet(input);
  const listed: Pet[] = await rest.listPets({ limit: 10, status: 'pending' });
  const page = await rest.listPetsPage({ limit: 5, cursor: 'abc' });
  const next: string | null = page.nextCursor;
  for await (const each of rest.allPets({ status: 'sold', limit: 50 })) listed.push(each);
  const one: Pet = await rest.getPet(pet.id);
  return [one.name, ...listed.map((each) => each.name), String(next)];
}

export async function useTrpc(): Promise<bigint> {
  const trpc = createTrpcClient({ url: 'https://api.example/v1/trpc', apiKey: 'key-0123456789abcdef' });
  const pet = await trpc.pets.create.mutate({ name: 'Rex', categoryId: 1n });
  const pets = await trpc.pets.list.query({ limit: 3 });
  const page = await trpc.pets.page.query({ status: 'available' });
  const got = await trpc.pets.get.query({ petId: pet.id });
  return got.id + BigInt(pets.length + page.items.length) + (page.nextCursor === null ? 0n : 1n);
}

export function kindOf(error: unknown): PetStoreErrorKind | 'other' {
  if (error instanceof PetStoreApiError) return error.kind;
  return apiErrorOf(error) === undefined ? 'other' : 'api';
}
