import { INT64_MAX, INT64_MIN, PET_STATUSES, type Pet, stringifyJson } from '@petstore/schema';
import fc from 'fast-check';
import superjson from 'superjson';
import { describe, expect, it } from 'vitest';
import { serializeOutput } from '../trpc/transformer.js';
import { petJson, petSuperjson, petsJson, petsSuperjson } from './pets.json.js';

const petArb: fc.Arbitrary<Pet> = fc.record(
  {
    id: fc.bigInt({ min: 1n, max: INT64_MAX }),
    name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: ['id', 'name', 'categoryId'] },
);

describe('the hot-path Pet JSON writer', () => {
  it('writes exactly what stringifyJson writes, for any pet and list', () => {
    fc.assert(
      fc.property(fc.array(petArb, { maxLength: 5 }), (pets) => {
        expect(petsJson(pets)).toBe(stringifyJson(pets));
        for (const pet of pets) expect(petJson(pet)).toBe(stringifyJson(pet));
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('escapes names and keeps int64 exact', () => {
    const pet: Pet = { id: INT64_MAX, name: 'a "quoted"\\\n\u2028name', categoryId: -9007199254740993n };
    expect(JSON.parse(petJson(pet)).name).toBe(pet.name);
    expect(petJson(pet)).toContain('"categoryId":-9007199254740993');
    expect(petsJson([])).toBe('[]');
  });
});

describe('the tRPC Pet writers (superjson wire format)', () => {
  /**
   * What tRPC's generic path writes for a procedure's output: the transformer the router is configured with
   * (trpc/transformer.ts, superjson's format without its generic walk), then JSON.stringify.
   */
  const oracle = (value: unknown) => JSON.stringify(serializeOutput(value));
  /**
   * What a client reads back with superjson itself. (Not superjson.serialize's bytes: superjson records equal
   * bigints as `referentialEqualities`, which our transformer, like tRPC's answer today, never writes.)
   */
  const readBack = (text: string | undefined) => superjson.deserialize(JSON.parse(text ?? 'null'));

  /** Values near a Pet: a key missing, added, reordered or mistyped, null prototypes, class instances. */
  const nearPetArb: fc.Arbitrary<unknown> = fc.oneof(
    petArb,
    petArb.map(({ id, ...rest }) => ({ ...rest, id })),
    petArb.map((pet) => ({ ...pet, extra: 1 })),
    petArb.map((pet) => ({ ...pet, status: undefined })),
    petArb.map((pet) => ({ ...pet, id: Number(pet.id) })),
    petArb.map((pet) => ({ ...pet, categoryId: String(pet.categoryId) })),
    petArb.map((pet) => ({ ...pet, status: null })),
    petArb.map((pet) => Object.assign(Object.create(null), pet)),
    petArb.map((pet) => new Map(Object.entries(pet))),
    fc.record({ id: fc.bigInt(), name: fc.string() }),
    fc.anything({ withBigInt: true }),
  );

  it('writes exactly what the transformer writes for any Pet and list, read back by superjson as the value', () => {
    fc.assert(
      fc.property(fc.array(petArb, { maxLength: 6 }), (pets) => {
        expect(petsSuperjson(pets)).toBe(oracle(pets));
        expect(readBack(petsSuperjson(pets))).toEqual(pets);
        for (const pet of pets) {
          expect(petSuperjson(pet)).toBe(oracle(pet));
          expect(readBack(petSuperjson(pet))).toEqual(pet);
        }
      }),
      { seed: 11, numRuns: 500 },
    );
  });

  it('writes lists of every length a page can have and past it (each length written once, then reused) as the transformer does', () => {
    fc.assert(
      fc.property(
        fc.array(petArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 300 }),
        (pets, length) => {
          const list = Array.from({ length }, (_, index) => pets[index % pets.length] as Pet);
          // Twice: the first writes the length's meta, the second reads it back from the cache.
          expect(petsSuperjson(list)).toBe(oracle(list));
          expect(petsSuperjson(list)).toBe(oracle(list));
        },
      ),
      { seed: 12, numRuns: 150 },
    );
  });

  it('leaves every other value to the generic path (undefined) or writes it exactly as the transformer would', () => {
    fc.assert(
      fc.property(nearPetArb, fc.array(nearPetArb, { maxLength: 4 }), (value, list) => {
        for (const candidate of [value, list, [...list, value]]) {
          const single = petSuperjson(candidate);
          if (single !== undefined) expect(single).toBe(oracle(candidate));
          const many = petsSuperjson(candidate);
          if (many !== undefined) expect(many).toBe(oracle(candidate));
        }
      }),
      { seed: 13, numRuns: 1000 },
    );
  });

  it('refuses sparse arrays, non-plain arrays and non-arrays', () => {
    const pet: Pet = { id: 1n, name: 'a', categoryId: 2n };
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(petsSuperjson([pet, , pet])).toBeUndefined();
    class Pets extends Array {}
    expect(petsSuperjson(Pets.from([pet]))).toBeUndefined();
    expect(petsSuperjson(pet)).toBeUndefined();
    expect(petSuperjson([pet])).toBeUndefined();
    expect(petsSuperjson([])).toBe(oracle([]));
  });
});
