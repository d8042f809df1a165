import type { Pet } from '@petstore/schema';

// The hot routes' bodies, written directly: stringifyJson's replacer walk was 5-11% of a list request
// (bench/PROFILE.md). Byte for byte what stringifyJson gives (pets.json.test.ts).

/** A Pet as JSON text: int64 values with every digit, `status` absent when the pet has none. */
export function petJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** The listPets body: a bare JSON array of Pet. */
export function petsJson(pets: readonly Pet[]): string {
  // One string built in place: no array of pet texts to allocate, join and collect.
  let text = '[';
  for (let index = 0; index < pets.length; index++) {
    text += index === 0 ? petJson(pets[index] as Pet) : `,${petJson(pets[index] as Pet)}`;
  }
  return `${text}]`;
}

/** The hot writers, by the contract's name for the body they write; other bodies use stringifyJson. */
export const PET_BODY_WRITERS: Readonly<Record<string, (body: never) => string>> = {
  Pet: petJson,
  Pets: petsJson,
};

// The same bodies in tRPC's wire format, superjson's envelope (int64 as digit strings in `json`, their paths in
// `meta`): 3 µs for 20 pets where the transformer's walk and JSON.stringify took 24. A writer takes only a value it
// writes exactly as the transformer would (a plain object with exactly id, name, categoryId[, status] in that
// order, of those types), else returns undefined (pets.json.test.ts, superjson as the oracle).

/** True when `value` is a Pet as the service builds it, keys in the order the transformer would write them. */
function isWritablePet(value: unknown): value is Pet {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const pet = value as Record<string, unknown>;
  const keys = Object.keys(pet);
  return (
    keys[0] === 'id' &&
    keys[1] === 'name' &&
    keys[2] === 'categoryId' &&
    (keys.length === 3 || (keys.length === 4 && keys[3] === 'status' && typeof pet.status === 'string')) &&
    typeof pet.id === 'bigint' &&
    typeof pet.name === 'string' &&
    typeof pet.categoryId === 'bigint'
  );
}

/** The `json` part of a pet in superjson's envelope: its int64 values as digit strings. */
function petSuperjsonJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":${JSON.stringify(pet.status)}`;
  return `{"id":"${pet.id}","name":${JSON.stringify(pet.name)},"categoryId":"${pet.categoryId}"${status}}`;
}

/** The bigint paths of a pet under `prefix` (`""` or `"3."`), as `meta.values` lists them. */
const petMeta = (prefix: string) => `"${prefix}id":["bigint"],"${prefix}categoryId":["bigint"]`;

/** `meta` of a list of `length` pets: the same text for every list of that length, so each is written once. */
const listMetas: string[] = [];
const LIST_METAS_KEPT = 128;
function listMeta(length: number): string {
  let meta = listMetas[length];
  if (meta === undefined) {
    meta = Array.from({ length }, (_, index) => petMeta(`${index}.`)).join(',');
    if (length < LIST_METAS_KEPT) listMetas[length] = meta;
  }
  return meta;
}

/** A Pet in superjson's wire format, or undefined when the value is not exactly a Pet. */
export function petSuperjson(value: unknown): string | undefined {
  if (!isWritablePet(value)) return undefined;
  return `{"json":${petSuperjsonJson(value)},"meta":{"values":{${petMeta('')}},"v":1}}`;
}

/** A list of Pets in superjson's wire format, or undefined when the value is not exactly that. */
export function petsSuperjson(value: unknown): string | undefined {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return undefined;
  if (value.length === 0) return '{"json":[]}';
  let json = '';
  for (let index = 0; index < value.length; index++) {
    const pet: unknown = value[index];
    if (!isWritablePet(pet)) return undefined;
    json += index === 0 ? petSuperjsonJson(pet) : `,${petSuperjsonJson(pet)}`;
  }
  return `{"json":[${json}],"meta":{"values":{${listMeta(value.length)}},"v":1}}`;
}

/** The tRPC writers, by the contract's name for the body they write; other outputs use the generic transformer. */
export const PET_SUPERJSON_WRITERS: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  Pet: petSuperjson,
  Pets: petsSuperjson,
};
