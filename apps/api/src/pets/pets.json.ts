import type { Pet } from '@petstore/schema';

// The response bodies of the hot routes, written directly: the generic int64-aware stringifyJson walks every
// value through a replacer, which the profile showed at 5-11% of a list request (bench/PROFILE.md).
// The output is byte-for-byte what stringifyJson gives (pets.json.test.ts checks it).

/** A Pet as JSON text: int64 values with every digit, `status` absent when the pet has none. */
export function petJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** The listPets body: a bare JSON array of Pet. */
export function petsJson(pets: readonly Pet[]): string {
  return `[${pets.map(petJson).join(',')}]`;
}

/** The hot writers, by the contract's name for the body they write; other bodies use stringifyJson. */
export const PET_BODY_WRITERS: Readonly<Record<string, (body: never) => string>> = {
  Pet: petJson,
  Pets: petsJson,
};
