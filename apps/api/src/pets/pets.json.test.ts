import { INT64_MAX, INT64_MIN, PET_STATUSES, type Pet, stringifyJson } from '@petstore/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { petJson, petsJson } from './pets.json.js';

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
